package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.lang.Contract;

/**
 * The rules every public entry point checks before it touches Redis. A broken rule is an
 * {@link IllegalArgumentException} whose message names the field and the rule (durations as
 * ISO-8601 with days, such as {@code P8DT12H}). Durations are used in whole milliseconds: a
 * part below one millisecond is dropped.
 *
 * <ul>
 * <li>{@code topic}: 1 to {@value #MAX_TOPIC_LENGTH} characters of {@code A-Z a-z 0-9 . _ -},
 * starting with a letter or digit.</li>
 * <li>{@code id}: 1 to {@value #MAX_ID_LENGTH} characters, not blank, no control characters.</li>
 * <li>{@code delay}: at most {@link #MAX_DELAY} either way; zero or negative means due now.</li>
 * <li>{@code dueAt}: from 1970-01-01T00:00:00Z up to {@link #MAX_DUE_AT}.</li>
 * <li>{@code ttr}: from 1 ms up to {@link #MAX_TTR}.</li>
 * <li>a back-off ({@code backOff}, {@code retryIn}): zero up to {@link #MAX_DELAY}.</li>
 * <li>{@code maxAttempts}: 1 to {@value #MAX_ATTEMPTS}.</li>
 * <li>{@code priority}: {@value #MIN_PRIORITY} (lowest) to {@value #MAX_PRIORITY} (highest).</li>
 * <li>{@code payload}: not null and at most the configured size in bytes.</li>
 * </ul>
 */
public final class JobConstraints {

	/** The longest topic, in characters. */
	public static final int MAX_TOPIC_LENGTH = 100;

	/** The longest id, in characters. */
	public static final int MAX_ID_LENGTH = 200;

	/** The longest delay: 100 years. */
	public static final Duration MAX_DELAY = Duration.ofDays(36_500);

	/** The latest due time: the end of year 9999. */
	public static final Instant MAX_DUE_AT = Instant.parse("9999-12-31T23:59:59.999Z");

	/** The longest time-to-run: 7 days. */
	public static final Duration MAX_TTR = Duration.ofDays(7);

	/** The most attempts a job may be given. */
	public static final int MAX_ATTEMPTS = 1_000_000;

	/** The most handlers a listener, or sends a forward, runs at once. */
	public static final int MAX_CONCURRENCY = 10_000;

	/** The lowest priority. */
	public static final int MIN_PRIORITY = 0;

	/** The highest priority. */
	public static final int MAX_PRIORITY = 9;

	/** The priority of a job that names none; a job of this priority stores nothing for it. */
	public static final int DEFAULT_PRIORITY = 5;

	/** The longest error text kept for a job, in characters; longer ones are cut. */
	public static final int MAX_ERROR_LENGTH = 8_192;

	/** Most headers of one job. */
	public static final int MAX_HEADERS = 32;

	/** Longest header name. */
	public static final int MAX_HEADER_NAME_LENGTH = 64;

	/** Longest header value, in characters. */
	public static final int MAX_HEADER_VALUE_LENGTH = 1_024;

	private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9_.-]+");

	/** The shortest positive duration a rule accepts. */
	private static final Duration ONE_MILLISECOND = Duration.ofMillis(1);

	private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

	private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]*");

	private JobConstraints() {
	}

	/** Checks a topic and returns it. */
	public static String topic(@Nullable String topic) {
		return topic("topic", topic);
	}

	/** Checks a topic that field {@code field} holds and returns it. */
	public static String topic(String field, @Nullable String topic) {
		return name(field, topic, TOPIC, "");
	}

	/** Checks a namespace (as a topic, with {@code :} allowed too) and returns it. */
	public static String namespace(@Nullable String namespace) {
		return name("namespace", namespace, NAMESPACE, " ':',");
	}

	private static String name(String field, @Nullable String name, Pattern alphabet, String colon) {
		if (name == null || name.isEmpty()) {
			throw new IllegalArgumentException(field + " must not be empty");
		}
		if (name.length() > MAX_TOPIC_LENGTH) {
			throw new IllegalArgumentException(field + " must be at most " + MAX_TOPIC_LENGTH
					+ " characters long, was " + name.length());
		}
		if (!alphabet.matcher(name).matches()) {
			throw new IllegalArgumentException(field + " '" + name + "' may only contain letters A-Z and a-z, digits, '.',"
					+ colon + " '_' and '-', and must start with a letter or digit");
		}
		return name;
	}

	/** Checks a job id and returns it. */
	public static String id(@Nullable String id) {
		if (id == null || id.isBlank()) {
			throw new IllegalArgumentException("id must not be blank");
		}
		if (id.length() > MAX_ID_LENGTH) {
			throw new IllegalArgumentException(
					"id must be at most " + MAX_ID_LENGTH + " characters long, was " + id.length());
		}
		for (int i = 0; i < id.length(); i++) {
			if (Character.isISOControl(id.charAt(i))) {
				throw new IllegalArgumentException(
						"id must not contain control characters (found U+" + String.format("%04X", (int) id.charAt(i))
								+ " at index " + i + ")");
			}
		}
		return id;
	}

	/** Checks a delay and returns it. */
	public static Duration delay(@Nullable Duration delay) {
		return between("delay", notNull("delay", delay), MAX_DELAY.negated(), MAX_DELAY);
	}

	/** Checks a back-off, from zero up to {@link #MAX_DELAY}, that field {@code field} holds, and returns it. */
	public static Duration backOff(String field, @Nullable Duration backOff) {
		return between(field, notNull(field, backOff), Duration.ZERO, MAX_DELAY);
	}

	/** Checks that exactly one of a delay and a due time is given, and that it is in range. */
	public static void delayOrDueAt(@Nullable Duration delay, @Nullable Instant dueAt) {
		if ((delay == null) == (dueAt == null)) {
			throw new IllegalArgumentException("exactly one of delay or dueAt must be given");
		}
		if (delay != null) {
			delay(delay);
		}
		else {
			dueAt(dueAt);
		}
	}

	/** Checks an absolute due time and returns it. */
	public static Instant dueAt(@Nullable Instant dueAt) {
		if (notNull("dueAt", dueAt).isBefore(Instant.EPOCH) || dueAt.isAfter(MAX_DUE_AT)) {
			throw new IllegalArgumentException(
					"dueAt must be between " + Instant.EPOCH + " and " + MAX_DUE_AT + ", was " + dueAt);
		}
		return dueAt;
	}

	/** Checks a time-to-run and returns it. */
	public static Duration ttr(@Nullable Duration ttr) {
		return positive("ttr", ttr, MAX_TTR);
	}

	/** Checks a duration from 1 ms up to {@code max} and returns it. */
	public static Duration positive(String field, @Nullable Duration value, Duration max) {
		return between(field, notNull(field, value), ONE_MILLISECOND, max);
	}

	private static Duration between(String field, Duration value, Duration min, Duration max) {
		if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
			throw new IllegalArgumentException(
					field + " must be between " + text(min) + " and " + text(max) + ", was " + text(value));
		}
		return value;
	}

	/** A duration as ISO-8601 with days, such as {@code P7DT12H} or {@code -PT1S}. */
	static String text(Duration duration) {
		long days = duration.toDays();
		Duration time = duration.minusDays(days).abs();
		String sign = duration.isNegative() ? "-" : "";
		if (days == 0) {
			return sign + time;
		}
		return sign + "P" + Math.abs(days) + "D" + (time.isZero() ? "" : time.toString().substring(1));
	}

	/** Checks a listener's or a forward's concurrency (1 to {@value #MAX_CONCURRENCY}) and returns it. */
	public static int concurrency(int concurrency) {
		return max("concurrency", concurrency, MAX_CONCURRENCY);
	}

	/** Checks an attempts limit and returns it. */
	public static int maxAttempts(int maxAttempts) {
		return max("maxAttempts", maxAttempts, MAX_ATTEMPTS);
	}

	/** Checks a priority and returns it. */
	public static int priority(int priority) {
		if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
			throw new IllegalArgumentException("priority must be between " + MIN_PRIORITY + " (lowest) and "
					+ MAX_PRIORITY + " (highest), was " + priority);
		}
		return priority;
	}

	/** Checks a serialized payload: not null and at most {@code maxSize} bytes; returns it. */
	public static byte[] payload(byte @Nullable [] payload, long maxSize) {
		if (notNull("payload", payload).length > maxSize) {
			throw new IllegalArgumentException("payload must be at most " + maxSize + " bytes (delayqueue.max-payload-size), was "
					+ payload.length + " bytes");
		}
		return payload;
	}

	/**
	 * Checks a job's headers: at most {@value #MAX_HEADERS}; names of 1 to
	 * {@value #MAX_HEADER_NAME_LENGTH} of {@code A-Z a-z 0-9 _ - .}, not {@code id},
	 * {@code timestamp} or the queue's own {@code delayqueue_*}; values of at most
	 * {@value #MAX_HEADER_VALUE_LENGTH} characters without control characters.
	 * @return an unmodifiable copy, in the given order
	 */
	public static Map<String, String> headers(@Nullable Map<String, String> headers) {
		if (notNull("headers", headers).size() > MAX_HEADERS) {
			throw new IllegalArgumentException("headers must be at most " + MAX_HEADERS + ", were " + headers.size());
		}
		Map<String, String> copy = new LinkedHashMap<>();
		headers.forEach((name, value) -> copy.put(headerName(name), headerValue(name, value)));
		return Collections.unmodifiableMap(copy);
	}

	private static String headerName(@Nullable String name) {
		if (name == null || name.isEmpty() || name.length() > MAX_HEADER_NAME_LENGTH
				|| !HEADER_NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("header name must be 1 to " + MAX_HEADER_NAME_LENGTH
					+ " letters, digits, '_', '-' or '.', was " + quoted(name));
		}
		if (name.equals("id") || name.equals("timestamp")
				|| (name.startsWith("delayqueue_") && !name.startsWith("delayqueue_dlt")
						&& !name.equals("delayqueue_forwardKey") && !name.equals("delayqueue_forwardContentType"))) {
			throw new IllegalArgumentException("header name " + quoted(name)
					+ " is reserved (id, timestamp and names starting with delayqueue_ are the queue's own)");
		}
		return name;
	}

	private static String headerValue(String name, @Nullable String value) {
		if (value == null) {
			throw new IllegalArgumentException("header '" + name + "' must not be null");
		}
		if (value.length() > MAX_HEADER_VALUE_LENGTH) {
			throw new IllegalArgumentException("header '" + name + "' must be at most " + MAX_HEADER_VALUE_LENGTH
					+ " characters, was " + value.length());
		}
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < 0x20 || c == 0x7f) {
				throw new IllegalArgumentException("header '" + name
						+ "' must not contain control characters (such as a line break), found one at index " + i);
			}
		}
		return value;
	}

	private static String quoted(@Nullable String text) {
		return (text != null) ? "'" + text + "'" : "null";
	}

	/** Checks a count from zero up to {@code limit} and returns it. */
	public static int count(String field, int value, int limit) {
		return between(field, value, 0, limit);
	}

	/** Checks the jobs of a {@link DelayQueueConsumer#finishAndReserve} call: not empty, one topic; returns it. */
	public static String topicOf(@Nullable List<ReservedJob> jobs) {
		if (jobs == null || jobs.isEmpty()) {
			throw new IllegalArgumentException("jobs must not be null or empty");
		}
		for (int i = 0; i < jobs.size(); i++) {
			ReservedJob job = jobs.get(i);
			if (job == null) {
				throw new IllegalArgumentException("jobs[" + i + "] must not be null");
			}
			if (!job.topic().equals(jobs.get(0).topic())) {
				throw new IllegalArgumentException("jobs must all be of one topic: jobs[0] is of '"
						+ jobs.get(0).topic() + "', jobs[" + i + "] of '" + job.topic() + "'");
			}
		}
		return jobs.get(0).topic();
	}

	/** The state of a page of waiting jobs: {@code DELAYED}, {@code READY} or {@code RESERVED}. */
	public static JobState waitingState(String state) {
		return switch (state) {
			case "DELAYED", "READY", "RESERVED" -> JobState.valueOf(state);
			default -> throw new IllegalArgumentException(
					"state must be one of DELAYED, READY, RESERVED, was '" + state + "'");
		};
	}

	/** Checks a count from one up to {@code limit} and returns it. */
	public static int max(String field, int value, int limit) {
		return between(field, value, 1, limit);
	}

	private static int between(String field, int value, int min, int max) {
		if (value < min || value > max) {
			throw new IllegalArgumentException(field + " must be between " + min + " and " + max + ", was " + value);
		}
		return value;
	}

	/** An error text to store: cut to {@link #MAX_ERROR_LENGTH} characters, empty for {@code null}. */
	public static String errorText(@Nullable String error) {
		if (error == null) {
			return "";
		}
		return (error.length() <= MAX_ERROR_LENGTH) ? error : error.substring(0, MAX_ERROR_LENGTH - 3) + "...";
	}

	@Contract("_, null -> fail")
	static <T> T notNull(String field, @Nullable T value) {
		if (value == null) {
			throw new IllegalArgumentException(field + " must not be null");
		}
		return value;
	}

}
