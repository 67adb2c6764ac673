package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The names of the message headers a {@code @DelayedListener} method can read with
 * {@code @Header} or from a {@code Message<T>}; a job's own headers keep their own names, and
 * names starting with {@value #PREFIX} are the queue's.
 *
 * <pre class="code">
 * &#64;DelayedListener(topic = "order-close")
 * void close(OrderClose close, &#64;Header(DelayQueueHeaders.ATTEMPT) int attempt) { ... }
 *
 * &#64;DelayedListener(topic = "order-close")
 * void close(Message&lt;OrderClose&gt; message) {
 *     Instant dueAt = message.getHeaders().get(DelayQueueHeaders.DUE_AT, Instant.class);
 * }
 * </pre>
 *
 */
public final class DelayQueueHeaders {

	/** The prefix of every header name. */
	public static final String PREFIX = "delayqueue_";

	/** The job's topic ({@link String}). */
	public static final String TOPIC = PREFIX + "topic";

	/** The job's id within its topic ({@link String}). */
	public static final String ID = PREFIX + "id";

	/** This delivery's attempt, 1 for the first ({@link Integer}). */
	public static final String ATTEMPT = PREFIX + "attempt";

	/** The attempts the job may use in all ({@link Integer}). */
	public static final String MAX_ATTEMPTS = PREFIX + "maxAttempts";

	/** When this attempt was due ({@link java.time.Instant}). */
	public static final String DUE_AT = PREFIX + "dueAt";

	/** When the job was created ({@link java.time.Instant}). */
	public static final String CREATED_AT = PREFIX + "createdAt";

	/** When this delivery reserved the job, by Redis's clock ({@link java.time.Instant}). */
	public static final String DELIVERED_AT = PREFIX + "deliveredAt";

	/** Until when this delivery held the job when the handler was called ({@link java.time.Instant}). */
	public static final String RESERVED_UNTIL = PREFIX + "reservedUntil";

	/** The reservation's TTR ({@link java.time.Duration}). */
	public static final String TTR = PREFIX + "ttr";

	/** The reservation's fencing token ({@link Long}); a later delivery has a higher one. */
	public static final String RESERVATION_TOKEN = PREFIX + "reservationToken";

	/** On a job a {@link DeadLetterTopicRecoverer} moved: the topic it failed in ({@link String}). */
	public static final String DLT_ORIGINAL_TOPIC = PREFIX + "dltOriginalTopic";

	/** On a job a {@link DeadLetterTopicRecoverer} moved: the error of its last attempt ({@link String}). */
	public static final String DLT_ERROR = PREFIX + "dltError";

	/** On a job a {@link DeadLetterTopicRecoverer} moved: the attempts it had made ({@link String}). */
	public static final String DLT_ATTEMPTS = PREFIX + "dltAttempts";

	private static final Map<String, Class<?>> TYPES = Map.ofEntries(Map.entry(TOPIC, String.class),
			Map.entry(ID, String.class), Map.entry(ATTEMPT, Integer.class), Map.entry(MAX_ATTEMPTS, Integer.class),
			Map.entry(DUE_AT, Instant.class), Map.entry(CREATED_AT, Instant.class),
			Map.entry(DELIVERED_AT, Instant.class), Map.entry(RESERVED_UNTIL, Instant.class),
			Map.entry(TTR, Duration.class), Map.entry(RESERVATION_TOKEN, Long.class),
			Map.entry(DLT_ORIGINAL_TOPIC, String.class), Map.entry(DLT_ERROR, String.class),
			Map.entry(DLT_ATTEMPTS, String.class));

	private DelayQueueHeaders() {
	}

	/**
	 * Return whether a header is stored with a job (its own or a {@code DLT_*} one), so not on every job.
	 * @param name a header name
	 * @return {@code true} for a stored header
	 */
	public static boolean isStored(String name) {
		return !name.startsWith(PREFIX) || name.startsWith(PREFIX + "dlt");
	}

	/**
	 * Return the type of a header's value.
	 * @param name a header name
	 * @return the type, or {@code null} when the name is not one of these headers
	 */
	public static @Nullable Class<?> typeOf(String name) {
		return TYPES.get(name);
	}

}
