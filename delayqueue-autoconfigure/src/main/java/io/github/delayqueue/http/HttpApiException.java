package io.github.delayqueue.http;

import java.io.IOException;
import java.net.URI;
import java.util.Objects;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.ErrorResponse;
import org.springframework.web.ErrorResponseException;

/**
 * A request the HTTP job API refuses: its {@link ProblemDetail} names the request field at fault
 * ({@code field}) when there is one; a 429 or a 503 says {@code Retry-After}.
 */
final class HttpApiException extends ErrorResponseException {

	private static final JacksonJsonHttpMessageConverter json = new JacksonJsonHttpMessageConverter();

	HttpApiException(HttpStatus status, @Nullable String field, @Nullable String detail) {
		super(status, problem(status, field, detail), null);
		if (status == HttpStatus.TOO_MANY_REQUESTS || status == HttpStatus.SERVICE_UNAVAILABLE) {
			getHeaders().set(HttpHeaders.RETRY_AFTER, "1");
		}
	}

	static HttpApiException badRequest(@Nullable String field, String detail) {
		return new HttpApiException(HttpStatus.BAD_REQUEST, field, detail);
	}

	private static ProblemDetail problem(HttpStatus status, @Nullable String field, @Nullable String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(URI.create("about:blank"));
		if (field != null) {
			problem.setProperty("field", field);
		}
		return problem;
	}

	/** Writes a problem as {@code application/problem+json}, with a {@code type} and an {@code instance}. */
	static void write(ErrorResponse refusal, HttpServletRequest request, HttpServletResponse response) throws IOException {
		ProblemDetail problem = refusal.getBody();
		problem.setType(Objects.requireNonNullElse(problem.getType(), URI.create("about:blank")));
		problem.setInstance(Objects.requireNonNullElse(problem.getInstance(), URI.create(request.getRequestURI())));
		ServletServerHttpResponse answer = new ServletServerHttpResponse(response);
		answer.setStatusCode(refusal.getStatusCode());
		answer.getHeaders().putAll(refusal.getHeaders());
		json.write(problem, MediaType.APPLICATION_PROBLEM_JSON, answer);
	}

}
