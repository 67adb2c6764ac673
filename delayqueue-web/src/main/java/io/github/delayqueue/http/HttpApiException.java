package io.github.delayqueue.http;

import java.net.URI;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A request the HTTP job API refuses: its {@link ProblemDetail} names the request field at fault
 * ({@code field}) when there is one; a 429 or a 503 says {@code Retry-After}.
 */
final class HttpApiException extends ErrorResponseException {

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

}
