package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one job, as {@link DelayedJobTemplate#find} reads it. Immutable.
 */
public final class JobInfo {

	private final String topic;

	private final String id;

	private final JobState state;

	private final int attempt;

	private final int maxAttempts;

	private final Duration ttr;

	private final Instant dueAt;

	private final Instant createdAt;

	private final @Nullable Instant reservedUntil;

	private final @Nullable Instant diedAt;

	private final @Nullable String lastError;

	private final byte @Nullable [] payload;

	private final Map<String, String> headers;

	private final @Nullable Instant finishedAt;

	private final @Nullable Duration runTime;

	private final int priority;

	/**
	 * Creates a snapshot; the queue makes them, applications and tests may too.
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
	 * Creates a snapshot; the queue makes them, applications and tests may too.
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
	 * @param headers the job's own headers (unmodifiable; empty when it has none, or when read
	 * without its payload)
	 */
	public JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr, Instant dueAt,
			Instant createdAt, @Nullable Instant reservedUntil, @Nullable Instant diedAt, @Nullable String lastError,
			byte @Nullable [] payload, @Nullable Map<String, String> headers) {
		this(topic, id, state, attempt, maxAttempts, ttr, dueAt, createdAt, reservedUntil, diedAt, lastError, payload,
				headers, null, null);
	}

	/**
	 * Creates a snapshot; the queue makes them, applications and tests may too.
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
	 * @param payload the payload as stored, or {@code null} when not read or not kept
	 * @param headers the job's own headers (unmodifiable; empty when it has none, or when read
	 * without its payload)
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
	 * Describes a job.
	 * @param topic the topic
	 * @param id the id
	 * @param state the state
	 * @param attempt deliveries so far
	 * @param maxAttempts the most deliveries
	 * @param ttr the time-to-run
	 * @param dueAt when the job is (or was last) due
	 * @param createdAt when it was scheduled
	 * @param reservedUntil the TTR deadline of its reservation, or {@code null}
	 * @param diedAt when it died, or {@code null}
	 * @param lastError the error of the last failed attempt, or {@code null}
	 * @param payload the payload as stored, or {@code null} when not read or not kept
	 * @param headers the job's own headers (unmodifiable; empty when it has none, or when read
	 * without its payload)
	 * @param finishedAt when a {@link JobState#COMPLETED} job finished, or {@code null}
	 * @param runTime how long a {@link JobState#COMPLETED} job's last delivery ran, or
	 * {@code null}
	 * @param priority the job's priority ({@link JobConstraints#priority})
	 */
	public JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr, Instant dueAt,
			Instant createdAt, @Nullable Instant reservedUntil, @Nullable Instant diedAt, @Nullable String lastError,
			byte @Nullable [] payload, @Nullable Map<String, String> headers, @Nullable Instant finishedAt,
			@Nullable Duration runTime, int priority) {
		this.priority = priority;
		this.finishedAt = finishedAt;
		this.runTime = runTime;
		this.headers = (headers != null) ? headers : Map.of();
		this.topic = topic;
		this.id = id;
		this.state = state;
		this.attempt = attempt;
		this.maxAttempts = maxAttempts;
		this.ttr = ttr;
		this.dueAt = dueAt;
		this.createdAt = createdAt;
		this.reservedUntil = reservedUntil;
		this.diedAt = diedAt;
		this.lastError = lastError;
		this.payload = payload;
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
	 * The job's state when it was read.
	 * @return the state
	 */
	public JobState state() {
		return this.state;
	}

	/**
	 * How many deliveries were made so far (0 before the first; reset by a replay).
	 * @return the attempt count
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
	 * The job's time-to-run.
	 * @return the TTR
	 */
	public Duration ttr() {
		return this.ttr;
	}

	/**
	 * When the job is (or was last) due, by Redis's clock.
	 * @return the due time
	 */
	public Instant dueAt() {
		return this.dueAt;
	}

	/**
	 * When the job was scheduled, by Redis's clock.
	 * @return the creation time
	 */
	public Instant createdAt() {
		return this.createdAt;
	}

	/**
	 * The TTR deadline of the current reservation.
	 * @return the deadline, or {@code null} unless the job is {@link JobState#RESERVED}
	 */
	public @Nullable Instant reservedUntil() {
		return this.reservedUntil;
	}

	/**
	 * When the job died.
	 * @return the time of death, or {@code null} unless the job is {@link JobState#DEAD}
	 */
	public @Nullable Instant diedAt() {
		return this.diedAt;
	}

	/**
	 * The error of the last failed attempt.
	 * @return the error text, or {@code null} when no attempt failed
	 */
	public @Nullable String lastError() {
		return this.lastError;
	}

	/**
	 * When the job finished, by Redis's clock.
	 * @return the finish time, or {@code null} unless the job is {@link JobState#COMPLETED}
	 */
	public @Nullable Instant finishedAt() {
		return this.finishedAt;
	}

	/**
	 * How long the job's last delivery ran: from its delivery to its finish, by Redis's clock
	 * (for a listener, the handler's run and one round trip to Redis).
	 * @return the run time, or {@code null} unless the job is {@link JobState#COMPLETED} (and
	 * for one finished through a reservation that knew only its token, as the HTTP job API's)
	 */
	public @Nullable Duration runTime() {
		return this.runTime;
	}

	/**
	 * The job's priority, {@value JobConstraints#MIN_PRIORITY} (lowest) to
	 * {@value JobConstraints#MAX_PRIORITY} (highest); {@value JobConstraints#DEFAULT_PRIORITY}
	 * unless the job was scheduled with another.
	 * @return the priority
	 */
	public int priority() {
		return this.priority;
	}

	/**
	 * The payload as stored: JSON written by the producer's mapper, or the bytes of a
	 * {@code String} / {@code byte[]} payload.
	 * @return the payload bytes; {@code null} in a page of dead or completed jobs read without
	 * payloads, and for a {@link JobState#COMPLETED} job whose topic keeps no payloads
	 */
	public byte @Nullable [] payload() {
		return this.payload;
	}

	/**
	 * The headers the job was scheduled with.
	 * @return the headers, unmodifiable; empty when it has none (and in a page of dead jobs
	 * read without payloads)
	 */
	public Map<String, String> headers() {
		return this.headers;
	}

	/**
	 * The payload decoded as UTF-8.
	 * @return the payload text, or {@code null} when {@link #payload()} is {@code null}
	 */
	public @Nullable String payloadAsString() {
		return (this.payload != null) ? new String(this.payload, StandardCharsets.UTF_8) : null;
	}

	@Override
	public String toString() {
		return "JobInfo[topic=" + this.topic + ", id=" + this.id + ", state=" + this.state + ", attempt=" + this.attempt
				+ "/" + this.maxAttempts + ", dueAt=" + this.dueAt + ", lastError=" + this.lastError
				+ ((this.priority != JobConstraints.DEFAULT_PRIORITY) ? ", priority=" + this.priority : "")
				+ ((this.finishedAt != null) ? ", finishedAt=" + this.finishedAt : "") + "]";
	}

}
