package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one job, as {@link DelayedJobOperations#find} reads it. Immutable; written by
 * Jackson as a JSON object of its components (the payload as Base64). Two snapshots are equal
 * when their components are, the payloads compared by content.
 *
 * @param topic the job's topic
 * @param id the job's id, unique within its topic
 * @param state the job's state when it was read
 * @param attempt how many deliveries were made so far (0 before the first; reset by a replay)
 * @param maxAttempts the deliveries the job may have before it is DEAD
 * @param ttr the job's time-to-run
 * @param dueAt when the job is (or was last) due, by Redis's clock
 * @param createdAt when the job was scheduled, by Redis's clock
 * @param reservedUntil the TTR deadline of the current reservation; {@code null} unless the
 * job is {@link JobState#RESERVED}
 * @param diedAt when the job died; {@code null} unless it is {@link JobState#DEAD}
 * @param lastError the error of the last failed attempt, or {@code null} when none failed
 * @param payload the payload as stored (JSON written by the producer's mapper, or the bytes of
 * a {@code String} / {@code byte[]} payload); {@code null} in a page read without payloads,
 * and for a {@link JobState#COMPLETED} job whose topic keeps no payloads
 * @param headers the headers the job was scheduled with, unmodifiable; empty when it has none
 * (and when read without its payload)
 * @param finishedAt when the job finished, by Redis's clock; {@code null} unless it is
 * {@link JobState#COMPLETED}
 * @param runTime how long the job's last delivery ran, from its delivery to its finish by
 * Redis's clock; {@code null} unless it is {@link JobState#COMPLETED} (and for one finished
 * through a reservation that knew only its token, as the HTTP job API's)
 * @param priority the job's priority, {@value JobConstraints#MIN_PRIORITY} (lowest) to
 * {@value JobConstraints#MAX_PRIORITY} (highest)
 */
public record JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr,
		Instant dueAt, Instant createdAt, @Nullable Instant reservedUntil, @Nullable Instant diedAt,
		@Nullable String lastError, byte @Nullable [] payload, Map<String, String> headers,
		@Nullable Instant finishedAt, @Nullable Duration runTime, int priority) {

	/**
	 * Creates a snapshot; a {@code null} headers map is read as empty.
	 */
	public JobInfo {
		headers = (headers != null) ? headers : Map.of();
	}

	/**
	 * Creates a snapshot of a job without headers, with the default priority.
	 * @param topic the topic
	 * @param id the job id
	 * @param state the state
	 * @param attempt the deliveries made so far
	 * @param maxAttempts the attempts limit
	 * @param ttr the time-to-run
	 * @param dueAt when the job is (or was last) due
	 * @param createdAt when it was scheduled
	 * @param reservedUntil the TTR deadline of its reservation, or {@code null}
	 * @param diedAt when it died, or {@code null}
	 * @param lastError the error of the last failed attempt, or {@code null}
	 * @param payload the payload as stored
	 */
	public JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr, Instant dueAt,
			Instant createdAt, @Nullable Instant reservedUntil, @Nullable Instant diedAt, @Nullable String lastError,
			byte @Nullable [] payload) {
		this(topic, id, state, attempt, maxAttempts, ttr, dueAt, createdAt, reservedUntil, diedAt, lastError, payload,
				Map.of());
	}

	/**
	 * Creates a snapshot of a live job, with the default priority.
	 * @param topic the topic
	 * @param id the job id
	 * @param state the state
	 * @param attempt the deliveries made so far
	 * @param maxAttempts the attempts limit
	 * @param ttr the time-to-run
	 * @param dueAt when the job is (or was last) due
	 * @param createdAt when it was scheduled
	 * @param reservedUntil the TTR deadline of its reservation, or {@code null}
	 * @param diedAt when it died, or {@code null}
	 * @param lastError the error of the last failed attempt, or {@code null}
	 * @param payload the payload as stored
	 * @param headers the job's own headers, or {@code null} for none
	 */
	public JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr, Instant dueAt,
			Instant createdAt, @Nullable Instant reservedUntil, @Nullable Instant diedAt, @Nullable String lastError,
			byte @Nullable [] payload, @Nullable Map<String, String> headers) {
		this(topic, id, state, attempt, maxAttempts, ttr, dueAt, createdAt, reservedUntil, diedAt, lastError, payload,
				headers, null, null);
	}

	/**
	 * Creates a snapshot with the default priority.
	 * @param topic the topic
	 * @param id the job id
	 * @param state the state
	 * @param attempt the deliveries made so far
	 * @param maxAttempts the attempts limit
	 * @param ttr the time-to-run
	 * @param dueAt when the job is (or was last) due
	 * @param createdAt when it was scheduled
	 * @param reservedUntil the TTR deadline of its reservation, or {@code null}
	 * @param diedAt when it died, or {@code null}
	 * @param lastError the error of the last failed attempt, or {@code null}
	 * @param payload the payload as stored, or {@code null}
	 * @param headers the job's own headers, or {@code null} for none
	 * @param finishedAt when a {@link JobState#COMPLETED} job finished, or {@code null}
	 * @param runTime how long a {@link JobState#COMPLETED} job's last delivery ran, or
	 * {@code null}
	 */
	public JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr, Instant dueAt,
			Instant createdAt, @Nullable Instant reservedUntil, @Nullable Instant diedAt, @Nullable String lastError,
			byte @Nullable [] payload, @Nullable Map<String, String> headers, @Nullable Instant finishedAt,
			@Nullable Duration runTime) {
		this(topic, id, state, attempt, maxAttempts, ttr, dueAt, createdAt, reservedUntil, diedAt, lastError, payload,
				headers, finishedAt, runTime, JobConstraints.DEFAULT_PRIORITY);
	}

	/**
	 * The payload decoded as UTF-8.
	 * @return the payload text, or {@code null} when {@link #payload()} is {@code null}
	 */
	public @Nullable String payloadAsString() {
		return (this.payload != null) ? new String(this.payload, StandardCharsets.UTF_8) : null;
	}

	/**
	 * Whether the other is a snapshot with equal components, the payload compared by its
	 * bytes (a record compares an array by identity).
	 */
	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof JobInfo job && this.attempt == job.attempt
				&& this.maxAttempts == job.maxAttempts && this.priority == job.priority
				&& this.topic.equals(job.topic) && this.id.equals(job.id) && this.state == job.state
				&& Objects.equals(this.ttr, job.ttr) && Objects.equals(this.dueAt, job.dueAt)
				&& Objects.equals(this.createdAt, job.createdAt) && Objects.equals(this.reservedUntil, job.reservedUntil)
				&& Objects.equals(this.diedAt, job.diedAt) && Objects.equals(this.lastError, job.lastError)
				&& Arrays.equals(this.payload, job.payload) && this.headers.equals(job.headers)
				&& Objects.equals(this.finishedAt, job.finishedAt) && Objects.equals(this.runTime, job.runTime));
	}

	@Override
	public int hashCode() {
		return 31 * Objects.hash(this.topic, this.id, this.state, this.attempt, this.maxAttempts, this.ttr, this.dueAt,
				this.createdAt, this.reservedUntil, this.diedAt, this.lastError, this.headers, this.finishedAt,
				this.runTime, this.priority) + Arrays.hashCode(this.payload);
	}

	@Override
	public String toString() {
		return "JobInfo[topic=" + this.topic + ", id=" + this.id + ", state=" + this.state + ", attempt=" + this.attempt
				+ "/" + this.maxAttempts + ", dueAt=" + this.dueAt + ", lastError=" + this.lastError
				+ ((this.priority != JobConstraints.DEFAULT_PRIORITY) ? ", priority=" + this.priority : "")
				+ ((this.finishedAt != null) ? ", finishedAt=" + this.finishedAt : "") + "]";
	}

}
