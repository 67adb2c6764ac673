package io.github.delayqueue.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.util.Assert;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Lets a request of the HTTP job API through only with {@code Authorization: Bearer <token>}
 * naming one of the configured tokens (compared in constant time); else answers 401 with a
 * {@code WWW-Authenticate: Bearer} challenge. Used when Spring Security is not on the
 * classpath; registered for the API's base path only.
 */
public class BearerTokenFilter extends OncePerRequestFilter {

	private static final String PREFIX = "Bearer ";

	private final List<byte[]> tokens = new ArrayList<>();

	/**
	 * Creates a filter that accepts the given tokens.
	 * @param tokens the tokens, at least one, none blank
	 */
	public BearerTokenFilter(List<String> tokens) {
		Assert.notEmpty(tokens, "tokens must not be empty");
		for (String token : tokens) {
			Assert.hasText(token, "tokens must not be blank");
			this.tokens.add(token.getBytes(StandardCharsets.UTF_8));
		}
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String header = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
			refuse(response, "a bearer token is required: send 'Authorization: Bearer <token>' with a token of delayqueue.http.tokens");
			return;
		}
		if (!accepts(header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8))) {
			refuse(response, "the bearer token is not one of delayqueue.http.tokens");
			return;
		}
		chain.doFilter(request, response);
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
		response.getWriter()
			.write(JobViews.problem(401, "Unauthorized", detail, null).toString());
	}

}
