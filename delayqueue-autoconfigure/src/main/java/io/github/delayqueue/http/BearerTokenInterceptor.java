package io.github.delayqueue.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.util.Assert;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Lets a request to a handler method of {@link DelayQueueHttpApi} through only with
 * {@code Authorization: Bearer <token>} naming one of the configured tokens (compared in
 * constant time); else answers 401 with a {@code WWW-Authenticate: Bearer} challenge and the
 * API's method is not called. Other handlers are let through untouched.
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

	private static final String PREFIX = "Bearer ";

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
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws IOException {
		if (!isApi(handler)) {
			return true;
		}
		String header = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
			refuse(response, "a bearer token is required: send 'Authorization: Bearer <token>' with a token of delayqueue.http.tokens");
			return false;
		}
		if (!accepts(header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8))) {
			refuse(response, "the bearer token is not one of delayqueue.http.tokens");
			return false;
		}
		return true;
	}

	private static boolean isApi(Object handler) {
		return handler instanceof HandlerMethod method && DelayQueueHttpApi.class.isAssignableFrom(method.getBeanType());
	}

	private boolean accepts(byte[] presented) {
		boolean accepted = false;
		for (byte[] token : this.tokens) {
			accepted |= MessageDigest.isEqual(token, presented);
		}
		return accepted;
	}

	private static void refuse(HttpServletResponse response, String detail) throws IOException {
		response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
		response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"delayqueue\"");
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.getWriter().write(JobViews.problem(401, "Unauthorized", detail, null).toString());
	}

}
