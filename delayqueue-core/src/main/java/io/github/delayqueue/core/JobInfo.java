package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one job, as {@link DelayedJobOperations#find} reads it. Written by Jackson
 * as a JSON object of its components (the payload as Base64); equal by components, the
 * payloads by content.
 *
 * @param topic the job's topic
 * @param id the job's id, unique within its topic
 * @param state the job's state when it was read
 * @param attempt how many deliveries were made so far
 * @param maxAttempts the deliveries the job may have before it is DEAD
 * @param ttr the job's time-to-run
 * @param dueAt when the job is (or was last) due, by Redis's clock
 * @param createdAt when the job was scheduled, by Redis's clock
 * @param reservedUntil the TTR deadline of the current reservation; {@code null} unless RESERVED
 * @param reservedBy the id of the instance that holds the current reservation, as a page of
 * {@link DelayQueueAdmin#waitingJobs} reads it; {@code null} elsewhere, and when not known
 * @param diedAt when the job died; {@code null} unless DEAD
 * @param lastError the error of the last failed attempt, or {@code null}
 * @param payload the payload as stored; {@code null} when read without payloads
 * @param headers the job's headers, unmodifiable; empty when it has none
 * @param finishedAt when the job finished; {@code null} unless COMPLETED
 * @param runTime how long the job's last delivery ran; {@code null} unless COMPLETED (and known)
 * @param priority the job's priority
 */
public record JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr,
		Instant dueAt, Instant createdAt, @Nullable Instant reservedUntil, @Nullable String reservedBy,
		@Nullable Instant diedAt,
		@Nullable String lastError, byte @Nullable [] payload, Map<String, String> headers,
		@Nullable Instant finishedAt, @Nullable Duration runTime, int priority) {

	/** Creates a snapshot; a {@code null} headers map is read as empty. */
	public JobInfo {
		headers = (headers != null) ? headers : Map.of();
	}

	/**
	 * The payload decoded as UTF-8.
	 * @return the payload text, or {@code null} when {@link #payload()} is {@code null}
	 */
	public @Nullable String payloadAsString() {
		return (this.payload != null) ? new String(this.payload, StandardCharsets.UTF_8) : null;
	}

	/** Whether the other has equal components, the payloads compared by content. */
	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof JobInfo job && this.attempt == job.attempt
				&& this.maxAttempts == job.maxAttempts && this.priority == job.priority
				&& this.topic.equals(job.topic) && this.id.equals(job.id) && this.state == job.state
				&& Objects.equals(this.ttr, job.ttr) && Objects.equals(this.dueAt, job.dueAt)
				&& Objects.equals(this.createdAt, job.createdAt) && Objects.equals(this.reservedUntil, job.reservedUntil)
				&& Objects.equals(this.reservedBy, job.reservedBy)
				&& Objects.equals(this.diedAt, job.diedAt) && Objects.equals(this.lastError, job.lastError)
				&& Arrays.equals(this.payload, job.payload) && this.headers.equals(job.headers)
				&& Objects.equals(this.finishedAt, job.finishedAt) && Objects.equals(this.runTime, job.runTime));
	}

	@Override
	public int hashCode() {
		return 31 * Objects.hash(this.topic, this.id, this.state, this.attempt, this.maxAttempts, this.ttr, this.dueAt,
				this.createdAt, this.reservedUntil, this.reservedBy, this.diedAt, this.lastError, this.headers, this.finishedAt,
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
