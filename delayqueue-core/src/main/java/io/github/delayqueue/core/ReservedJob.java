package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A job handed to a consumer by {@link DelayQueueConsumer#reserve}, to be finished, failed,
 * touched or released before {@link #reservedUntil()}. Immutable; written by Jackson as a
 * JSON object of its components (the payload as Base64); equal by components, the payloads
 * by content.
 *
 * @param topic the job's topic
 * @param id the job's id, unique within its topic
 * @param payload the payload as stored (not to be changed)
 * @param attempt which delivery this is, starting at 1
 * @param maxAttempts the deliveries the job may have before it is DEAD
 * @param dueAt when the job was (last) due, by Redis's clock; {@code null} for {@link #of}
 * @param createdAt when the job was scheduled, by Redis's clock; {@code null} for {@link #of}
 * @param deliveredAt when this reservation was made, by Redis's clock; {@code null} for {@link #of}
 * @param reservedUntil when this reservation runs out, by Redis's clock; {@code null} for {@link #of}
 * @param ttr the time-to-run this reservation was made with, or {@code null}
 * @param token the fencing token of this reservation, unique among its bucket's last 8 * 10^11 reservations
 * @param headers the job's headers, unmodifiable; empty when it has none
 */
public record ReservedJob(String topic, String id, byte[] payload, int attempt, int maxAttempts,
		@Nullable Instant dueAt, @Nullable Instant createdAt, @Nullable Instant deliveredAt,
		@Nullable Instant reservedUntil, @Nullable Duration ttr, long token, Map<String, String> headers) {

	/** Creates a reservation; a {@code null} headers map is read as empty (not copied). */
	public ReservedJob {
		headers = (headers != null) ? headers : Map.of();
	}

	/**
	 * A reservation known only by its topic, id and token, as a client of the HTTP job API
	 * keeps it: enough to settle it. Its payload is empty, its attempts 0, its times {@code null}.
	 * @param topic the topic
	 * @param id the job id
	 * @param token the fencing token the reservation was made with
	 * @param ttr the time-to-run a {@code touch} without one extends by, or {@code null}
	 * @return the reservation
	 */
	public static ReservedJob of(String topic, String id, long token, @Nullable Duration ttr) {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		if (ttr != null) {
			JobConstraints.ttr(ttr);
		}
		return new ReservedJob(topic, id, new byte[0], 0, 0, null, null, null, null, ttr, token, Map.of());
	}

	/**
	 * The payload decoded as UTF-8.
	 * @return the payload text
	 */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

	/** Whether the other has equal components, the payloads compared by content. */
	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof ReservedJob job && this.token == job.token
				&& this.attempt == job.attempt && this.maxAttempts == job.maxAttempts && this.topic.equals(job.topic)
				&& this.id.equals(job.id) && Objects.equals(this.dueAt, job.dueAt)
				&& Objects.equals(this.createdAt, job.createdAt) && Objects.equals(this.deliveredAt, job.deliveredAt)
				&& Objects.equals(this.reservedUntil, job.reservedUntil) && Objects.equals(this.ttr, job.ttr)
				&& this.headers.equals(job.headers) && Arrays.equals(this.payload, job.payload));
	}

	@Override
	public int hashCode() {
		return 31 * Objects.hash(this.topic, this.id, this.attempt, this.maxAttempts, this.dueAt, this.createdAt,
				this.deliveredAt, this.reservedUntil, this.ttr, this.token, this.headers) + Arrays.hashCode(this.payload);
	}

	@Override
	public String toString() {
		return "ReservedJob[topic=" + this.topic + ", id=" + this.id + ", attempt=" + this.attempt + "/"
				+ this.maxAttempts + ", dueAt=" + this.dueAt + ", token=" + this.token + "]";
	}

}
