package io.github.delayqueue.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.util.Assert;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Lets a request to a handler method of {@link DelayQueueHttpApi} through only with
 * {@code Authorization: Bearer <token>} naming one of the configured tokens (compared in
 * constant time); else refuses it with a 401 and a {@code WWW-Authenticate: Bearer} challenge,
 * answered as the API's other refusals are, and the API's method is not called. Other handlers are let through untouched.
 *
 * <p>
 * The check is made on the handler that a request was mapped to, not on its path, so every
 * path that reaches the API is checked however it is spelt or mapped (a servlet path, a
 * context path, path parameters, percent-encoded characters) and on every dispatch to the API
 * (a forward, an error or an asynchronous dispatch too). Register it for all handlers, such
 * as in a {@link org.springframework.web.servlet.handler.MappedInterceptor} without path
 * patterns. Thread safe.
 */
public class BearerTokenInterceptor implements HandlerInterceptor {

	/**
	 * The request attribute that holds which token a request to the API presented: its index
	 * in {@code delayqueue.http.tokens} (an {@link Integer}), so that the audit log can say
	 * which client it was without naming the token.
	 */
	public static final String TOKEN_INDEX_ATTRIBUTE = BearerTokenInterceptor.class.getName() + ".tokenIndex";

	private static final String PREFIX = "Bearer ";

	private static final String CHALLENGE = "Bearer realm=\"delayqueue\"";

	private final List<byte[]> tokens = new ArrayList<>();

	/**
	 * Creates an interceptor that accepts the given tokens.
	 * @param tokens the tokens, at least one, none blank
	 */
	public BearerTokenInterceptor(List<String> tokens) {
		Assert.notEmpty(tokens, "delayqueue.http.tokens must not be empty");
		for (String token : tokens) {
			Assert.isTrue(token != null && !token.isBlank(), "delayqueue.http.tokens must not hold a blank token");
			this.tokens.add(token.getBytes(StandardCharsets.UTF_8));
		}
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		if (!isApi(handler)) {
			return true;
		}
		String header = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
			throw unauthorized(CHALLENGE, "a bearer token is required: send 'Authorization: Bearer <token>' with a token of delayqueue.http.tokens");
		}
		int index = indexOf(header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8));
		if (index < 0) {
			throw unauthorized(CHALLENGE, "the bearer token is not one of delayqueue.http.tokens");
		}
		request.setAttribute(TOKEN_INDEX_ATTRIBUTE, index);
		return true;
	}

	static boolean isApi(Object handler) {
		return handler instanceof HandlerMethod method && DelayQueueHttpApi.class.isAssignableFrom(method.getBeanType());
	}

	/**
	 * The index of the presented token, or -1; every token is compared, in constant time.
	 */
	private int indexOf(byte[] presented) {
		int index = -1;
		for (int i = 0; i < this.tokens.size(); i++) {
			boolean equal = MessageDigest.isEqual(this.tokens.get(i), presented);
			index = equal ? i : index;
		}
		return index;
	}

	/**
	 * A 401 with, unless {@code null}, a challenge, answered as the API's other refusals are.
	 */
	static HttpApiException unauthorized(@Nullable String challenge, String detail) {
		HttpApiException refusal = new HttpApiException(HttpStatus.UNAUTHORIZED, null, detail);
		if (challenge != null) {
			refusal.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, challenge);
		}
		return refusal;
	}

}
