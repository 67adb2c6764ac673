package io.github.delayqueue.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.github.delayqueue.actuate.AuditLog;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.listener.DelayQueueHeaders;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;

/**
 * The checks of the HTTP job API's requests: query parameters, bodies, fields and who asks.
 * A refusal is a {@link HttpApiException} naming the field at fault.
 */
final class HttpChecks {

	private HttpChecks() {
	}

	/** The fields of the job requests, which a rule of the engine may name in a refusal. */
	static final Set<String> JOB_FIELDS = Set.of("topic", "id", "delay", "dueAt", "ttr", "maxAttempts", "body",
			"onDuplicate", "headers", "priority", "token", "retryIn", "dead", "error");

	/** The content types a cross-site HTML form sends without a CORS pre-flight. */
	static final List<MediaType> FORM_TYPES = List.of(MediaType.APPLICATION_FORM_URLENCODED,
			MediaType.MULTIPART_FORM_DATA, MediaType.TEXT_PLAIN);

	/**
	 * Runs a write; when it fails, its audit line is written as failed before the failure
	 * goes on (the caller writes the line of a write that succeeded, with what it did).
	 */
	static <T> T audited(AuditLog.Entry line, Supplier<T> write) {
		try {
			return write.get();
		}
		catch (RuntimeException | Error ex) {
			AuditLog.write(line.failed(ex));
			throw ex;
		}
	}

	/**
	 * Reads a route's query parameters, refusing one that the route does not take (so that a
	 * misspelt option is not silently ignored) and one given twice. Read from the query
	 * string alone: the options of a route are never taken from a form body.
	 * @return the decoded values by name ({@code ""} for a name without a value)
	 */
	static Map<String, String> checkQuery(HttpServletRequest request, Set<String> parameters) {
		String query = request.getQueryString();
		if (query == null || query.isEmpty()) {
			return Map.of();
		}
		Map<String, String> values = new LinkedHashMap<>();
		UriComponentsBuilder.newInstance().query(query).build().getQueryParams().forEach((raw, given) -> {
			String name = UriUtils.decode(raw, StandardCharsets.UTF_8);
			if (!parameters.contains(name)) {
				throw HttpApiException.badRequest(name, "unknown query parameter '" + name + "'; "
						+ (parameters.isEmpty() ? "this route takes none" : "the parameters are " + parameters));
			}
			if (given.size() != 1 || values.containsKey(name)) {
				throw HttpApiException.badRequest(name, name + " must be given once");
			}
			String value = given.get(0);
			values.put(name, (value != null) ? UriUtils.decode(value, StandardCharsets.UTF_8) : "");
		});
		return values;
	}

	/**
	 * Refuses a request body on a route that takes none, so that options sent in a body
	 * (a form, JSON) are not silently ignored.
	 */
	static void refuseBody(HttpServletRequest request, String message) throws IOException {
		String contentType = request.getContentType();
		if (contentType != null && isForm(contentType)) {
			throw new HttpApiException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, null, "Content-Type '" + contentType
					+ "' is refused: " + message + ", and a form's content type is what a cross-site page sends");
		}
		long length = request.getContentLengthLong();
		if (length > 0 || (length < 0 && request.getInputStream().read() != -1)) {
			throw new HttpApiException(HttpStatus.BAD_REQUEST, null, message);
		}
	}

	static boolean isForm(String contentType) {
		try {
			MediaType type = MediaType.parseMediaType(contentType);
			return FORM_TYPES.stream().anyMatch((form) -> form.equalsTypeAndSubtype(type));
		}
		catch (InvalidMediaTypeException ex) {
			return true;
		}
	}

	/**
	 * Who made a request, for the audit log: the principal that the application's security
	 * set on it, else the index of the bearer token it presented, else nobody known.
	 */
	static @Nullable String who(HttpServletRequest request) {
		Principal principal = request.getUserPrincipal();
		if (principal != null) {
			return principal.getName();
		}
		Object token = request.getAttribute(BearerTokenInterceptor.TOKEN_INDEX_ATTRIBUTE);
		return (token != null) ? "token[" + token + "]" : null;
	}

	/**
	 * Who waits, for the fair share of long-poll slots: the principal or the token, else the
	 * remote address.
	 */
	static String client(HttpServletRequest request) {
		String who = who(request);
		return (who != null) ? who : "address " + request.getRemoteAddr();
	}

	static ReservedJob reservation(HttpServletRequest request, String topic, String id, @Nullable Long token,
			@Nullable Duration ttr) {
		checkQuery(request, Set.of());
		checkJob(topic, id);
		return ReservedJob.of(topic, id, given("token", token), ttr);
	}

	/**
	 * A field's value, refused when the request has none.
	 */
	static <T> T given(String field, @Nullable T value) {
		if (value == null) {
			throw HttpApiException.badRequest(field, field + " must be given");
		}
		return value;
	}

	/**
	 * A duration given as a query parameter, as the bodies take them.
	 */
	static Duration queryDuration(String name, String text) {
		Duration duration = JobRequests.duration(text);
		if (duration == null) {
			throw HttpApiException.badRequest(name, name + JobRequests.DURATION_RULE + ", was '" + text + "'");
		}
		return duration;
	}

	static void checkJob(String topic, String id) {
		checked("topic", () -> JobConstraints.topic(topic));
		checked("id", () -> JobConstraints.id(id));
	}

	/**
	 * A job's headers from a client: the rules of {@link JobConstraints#headers}, and none of
	 * the queue's own names ({@code delayqueue_*}), which only the library sets.
	 */
	static Map<String, String> headers(@Nullable Map<String, String> headers) {
		if (headers == null) {
			return Map.of();
		}
		for (String name : headers.keySet()) {
			if (name.startsWith(DelayQueueHeaders.PREFIX)) {
				throw HttpApiException.badRequest("headers", "headers: header name '" + name + "' is reserved: names"
						+ " starting with " + DelayQueueHeaders.PREFIX + " are the queue's own, set by the library only");
			}
		}
		return checked("headers", () -> JobConstraints.headers(headers));
	}

	static @Nullable Duration delay(@Nullable Duration delay) {
		return (delay != null) ? JobConstraints.delay(delay) : null;
	}

	static @Nullable Instant dueAt(@Nullable Instant dueAt) {
		return (dueAt != null) ? JobConstraints.dueAt(dueAt) : null;
	}

	static @Nullable Duration ttr(@Nullable Duration ttr) {
		return (ttr != null) ? JobConstraints.ttr(ttr) : null;
	}

	static @Nullable Duration retryIn(@Nullable Duration retryIn) {
		return (retryIn != null) ? JobConstraints.backOff("retryIn", retryIn) : null;
	}

	static @Nullable Integer maxAttempts(@Nullable Integer maxAttempts) {
		return (maxAttempts != null) ? JobConstraints.maxAttempts(maxAttempts) : null;
	}

	static @Nullable Integer priority(@Nullable Integer priority) {
		return (priority != null) ? JobConstraints.priority(priority) : null;
	}

	/**
	 * Runs a check of one field; its {@link IllegalArgumentException} becomes a 400 naming the
	 * field. The message of a rule of {@link JobConstraints} names the field already.
	 */
	@SuppressWarnings("NullAway") // the rules and parsers it runs throw with a message
	static <T> T checked(String field, Supplier<T> check) {
		try {
			return check.get();
		}
		catch (IllegalArgumentException ex) {
			String message = ex.getMessage();
			throw HttpApiException.badRequest(field, message.startsWith(field) ? message : field + ": " + message);
		}
	}

	/**
	 * The field a rule of the engine names first in its message; {@code payload} is the
	 * request's {@code body}.
	 */
	static @Nullable String fieldOf(@Nullable String message) {
		if (message == null) {
			return null;
		}
		int space = message.indexOf(' ');
		String first = (space > 0) ? message.substring(0, space) : message;
		if (first.equals("payload")) {
			return "body";
		}
		return JOB_FIELDS.contains(first) ? first : null;
	}

}
