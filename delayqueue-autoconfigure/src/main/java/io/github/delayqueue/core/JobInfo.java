package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

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

	private final Instant reservedUntil;

	private final Instant diedAt;

	private final String lastError;

	private final byte[] payload;

	public JobInfo(String topic, String id, JobState state, int attempt, int maxAttempts, Duration ttr, Instant dueAt,
			Instant createdAt, Instant reservedUntil, Instant diedAt, String lastError, byte[] payload) {
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

	public String topic() {
		return this.topic;
	}

	public String id() {
		return this.id;
	}

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

	public int maxAttempts() {
		return this.maxAttempts;
	}

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

	public Instant createdAt() {
		return this.createdAt;
	}

	/**
	 * The TTR deadline of the current reservation.
	 * @return the deadline, or {@code null} unless the job is {@link JobState#RESERVED}
	 */
	public Instant reservedUntil() {
		return this.reservedUntil;
	}

	/**
	 * When the job died.
	 * @return the time of death, or {@code null} unless the job is {@link JobState#DEAD}
	 */
	public Instant diedAt() {
		return this.diedAt;
	}

	/**
	 * The error of the last failed attempt.
	 * @return the error text, or {@code null} when no attempt failed
	 */
	public String lastError() {
		return this.lastError;
	}

	public byte[] payload() {
		return this.payload;
	}

	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

	@Override
	public String toString() {
		return "JobInfo[topic=" + this.topic + ", id=" + this.id + ", state=" + this.state + ", attempt=" + this.attempt
				+ "/" + this.maxAttempts + ", dueAt=" + this.dueAt + ", lastError=" + this.lastError + "]";
	}

}
