package io.github.delayqueue.http;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;

/**
 * A request the HTTP job API refuses: the status to answer, and the request field at fault
 * when there is one.
 */
final class HttpApiException extends RuntimeException {

	private final HttpStatus status;

	private final @Nullable String field;

	HttpApiException(HttpStatus status, @Nullable String field, @Nullable String message) {
		super(message);
		this.status = status;
		this.field = field;
	}

	static HttpApiException badRequest(@Nullable String field, String message) {
		return new HttpApiException(HttpStatus.BAD_REQUEST, field, message);
	}

	HttpStatus status() {
		return this.status;
	}

	@Nullable String field() {
		return this.field;
	}

}
