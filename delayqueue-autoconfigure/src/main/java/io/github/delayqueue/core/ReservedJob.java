package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A job handed to a consumer by {@link DelayQueueConsumer#reserve}. The consumer must
 * {@linkplain DelayQueueConsumer#finish finish}, {@linkplain DelayQueueConsumer#fail
 * fail}, {@linkplain DelayQueueConsumer#touch touch} or
 * {@linkplain DelayQueueConsumer#release release} it before {@link #reservedUntil()};
 * after that the job is delivered again and this reservation's token is refused.
 * Immutable and thread-safe (do not change the array {@link #payload()} returns).
 */
public final class ReservedJob {

	private final String topic;

	private final String id;

	private final byte[] payload;

	private final int attempt;

	private final int maxAttempts;

	private final @Nullable Instant dueAt;

	private final @Nullable Instant createdAt;

	private final @Nullable Instant deliveredAt;

	private final @Nullable Instant reservedUntil;

	private final @Nullable Duration ttr;

	private final long token;

	private final Map<String, String> headers;

	/**
	 * Creates a reservation; the queue makes them, tests may too.
	 * @param topic the topic
	 * @param id the job id
	 * @param payload the payload as stored
	 * @param attempt which delivery this is, starting at 1
	 * @param maxAttempts the attempts limit
	 * @param dueAt when the job was (last) due
	 * @param createdAt when it was scheduled
	 * @param deliveredAt when this reservation was made
	 * @param reservedUntil when this reservation runs out
	 * @param ttr the time-to-run the reservation was made with
	 * @param token the fencing token of this reservation
	 */
	public ReservedJob(String topic, String id, byte[] payload, int attempt, int maxAttempts, @Nullable Instant dueAt,
			@Nullable Instant createdAt, @Nullable Instant deliveredAt, @Nullable Instant reservedUntil,
			@Nullable Duration ttr, long token) {
		this(topic, id, payload, attempt, maxAttempts, dueAt, createdAt, deliveredAt, reservedUntil, ttr, token,
				Map.of());
	}

	/**
	 * Creates a reservation of a job with headers; the queue makes them, tests may too.
	 * @param topic the topic
	 * @param id the job id
	 * @param payload the payload as stored
	 * @param attempt which delivery this is, starting at 1
	 * @param maxAttempts the attempts limit
	 * @param dueAt when the job was (last) due
	 * @param createdAt when it was scheduled
	 * @param deliveredAt when this reservation was made
	 * @param reservedUntil when this reservation runs out
	 * @param ttr the time-to-run the reservation was made with
	 * @param token the fencing token of this reservation
	 * @param headers the job's own headers (not copied: an unmodifiable map)
	 */
	public ReservedJob(String topic, String id, byte[] payload, int attempt, int maxAttempts, @Nullable Instant dueAt,
			@Nullable Instant createdAt, @Nullable Instant deliveredAt, @Nullable Instant reservedUntil,
			@Nullable Duration ttr, long token, @Nullable Map<String, String> headers) {
		this.headers = (headers != null) ? headers : Map.of();
		this.topic = topic;
		this.id = id;
		this.payload = payload;
		this.attempt = attempt;
		this.maxAttempts = maxAttempts;
		this.dueAt = dueAt;
		this.createdAt = createdAt;
		this.deliveredAt = deliveredAt;
		this.reservedUntil = reservedUntil;
		this.ttr = ttr;
		this.token = token;
	}

	/**
	 * A reservation known only by what a consumer outside this JVM keeps of it (a client of
	 * the HTTP job API): enough to finish, fail, kill, touch or release it. Its payload is
	 * empty, its attempts 0 and its times {@code null}.
	 * @param topic the topic
	 * @param id the job id
	 * @param token the fencing token the reservation was made with
	 * @param ttr the time-to-run a {@code touch} without one extends by, or {@code null} when
	 * every {@code touch} names its own
	 * @return the reservation
	 */
	public static ReservedJob of(String topic, String id, long token, @Nullable Duration ttr) {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		if (ttr != null) {
			JobConstraints.ttr(ttr);
		}
		return new ReservedJob(topic, id, new byte[0], 0, 0, null, null, null, null, ttr, token);
	}

	/**
	 * The headers the job was scheduled with ({@code DelayedJobTemplate.job(...).header(...)}).
	 * @return the headers, unmodifiable; empty when it has none
	 */
	public Map<String, String> headers() {
		return this.headers;
	}

	/**
	 * The job's topic.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * The job's id, unique within its topic.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * The payload as stored: JSON written by the producer's mapper, or the bytes of a
	 * {@code String} / {@code byte[]} payload.
	 * @return the payload bytes
	 */
	public byte[] payload() {
		return this.payload;
	}

	/**
	 * The payload decoded as UTF-8.
	 * @return the payload text
	 */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

	/**
	 * Which delivery this is, starting at 1.
	 * @return the attempt number
	 */
	public int attempt() {
		return this.attempt;
	}

	/**
	 * The deliveries the job may have before it is DEAD.
	 * @return the attempts limit
	 */
	public int maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * When the job was (last) due, by Redis's clock.
	 * @return the due time, {@code null} for a reservation made with {@link #of}
	 */
	public @Nullable Instant dueAt() {
		return this.dueAt;
	}

	/**
	 * When the job was scheduled, by Redis's clock.
	 * @return the creation time, {@code null} for a reservation made with {@link #of}
	 */
	public @Nullable Instant createdAt() {
		return this.createdAt;
	}

	/**
	 * When this reservation was made, by Redis's clock.
	 * @return the delivery time, {@code null} for a reservation made with {@link #of}
	 */
	public @Nullable Instant deliveredAt() {
		return this.deliveredAt;
	}

	/**
	 * When this reservation runs out unless extended with {@code touch}.
	 * @return the TTR deadline, by Redis's clock; {@code null} for a reservation made with
	 * {@link #of}
	 */
	public @Nullable Instant reservedUntil() {
		return this.reservedUntil;
	}

	/**
	 * The time-to-run this reservation was made with; {@code touch} without a duration
	 * extends by this much.
	 * @return the TTR; {@code null} for a reservation made with {@link #of} without one
	 */
	public @Nullable Duration ttr() {

		return this.ttr;
	}

	/**
	 * The fencing token of this reservation, unique within the job's bucket.
	 * @return the token
	 */
	public long token() {
		return this.token;
	}

	@Override
	public String toString() {
		return "ReservedJob[topic=" + this.topic + ", id=" + this.id + ", attempt=" + this.attempt + "/"
				+ this.maxAttempts + ", dueAt=" + this.dueAt + ", token=" + this.token + "]";
	}

}
