package io.github.delayqueue.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Which finished jobs a topic keeps ({@link JobState#COMPLETED}, readable by
 * {@link DelayQueueProducer#find}) and how many of its DEAD jobs it keeps at most; with a
 * count and an age both set, a job is kept while both allow it.
 *
 * @param completed the most finished jobs kept, 0 for no count limit
 * @param completedAge how long a finished job is kept, or {@code null} for no time limit
 * @param payloads whether the payload and headers of finished jobs are kept too
 * @param failed the most DEAD jobs kept, 0 for no count limit
 * @param failedAge how long a DEAD job is kept, or {@code null} for no time limit
 */
public record Retention(int completed, @Nullable Duration completedAge, boolean payloads, int failed,
		@Nullable Duration failedAge) {

	/** The most finished jobs a topic may keep. */
	public static final int MAX_COMPLETED = 1_000_000;

	/** The most DEAD jobs a topic may be limited to. */
	public static final int MAX_FAILED = 1_000_000;

	/** The longest time a finished or DEAD job may be kept: 365 days. */
	public static final Duration MAX_AGE = Duration.ofDays(365);

	/** How many more entries than it adds one finish removes at most. */
	public static final int TRIM_SLACK = 100;

	/**
	 * Checks the limits.
	 * @throws IllegalArgumentException when a limit is out of range, none is set, or payloads
	 * are kept without finished jobs
	 */
	public Retention {
		JobConstraints.count("completed", completed, MAX_COMPLETED);
		if (completedAge != null) {
			JobConstraints.positive("completedAge", completedAge, MAX_AGE);
		}
		JobConstraints.count("failed", failed, MAX_FAILED);
		if (failedAge != null) {
			JobConstraints.positive("failedAge", failedAge, MAX_AGE);
		}
		boolean keepsCompleted = completed > 0 || completedAge != null;
		if (!keepsCompleted && failed == 0 && failedAge == null) {
			throw new IllegalArgumentException("retention must set completed or completedAge (finished jobs to keep),"
					+ " or failed or failedAge (DEAD jobs to keep at most), or both");
		}
		if (payloads && !keepsCompleted) {
			throw new IllegalArgumentException(
					"payloads are kept only with finished jobs: set completed or completedAge too");
		}
	}

	/** Whether finished jobs are kept: {@code completed} or {@code completedAge} is set. */
	public boolean keepsCompleted() {
		return this.completed > 0 || this.completedAge != null;
	}

	/** Whether DEAD jobs are limited: {@code failed} or {@code failedAge} is set. */
	public boolean limitsFailed() {
		return this.failed > 0 || this.failedAge != null;
	}

	/** Keeps the last {@code completed} finished jobs, without payloads. */
	public static Retention lastCompleted(int completed) {
		return new Retention(completed, null, false, 0, null);
	}

	/** Keeps the jobs finished within {@code age}, without payloads. */
	public static Retention completedWithin(Duration age) {
		return new Retention(0, age, false, 0, null);
	}

	/** Keeps the DEAD jobs among the last {@code failed} deaths only (finished jobs are not kept). */
	public static Retention lastFailed(int failed) {
		return new Retention(0, null, false, failed, null);
	}

	/** Keeps the DEAD jobs that died within {@code age} only (finished jobs are not kept). */
	public static Retention failedWithin(Duration age) {
		return new Retention(0, null, false, 0, age);
	}

	/** This retention, keeping payloads and headers of finished jobs too. */
	public Retention withPayloads() {
		return new Retention(this.completed, this.completedAge, true, this.failed, this.failedAge);
	}

	/**
	 * This retention, with DEAD jobs limited too.
	 * @param failed the most DEAD jobs kept, the latest deaths, 0 for no count limit
	 * @param failedAge how long a DEAD job is kept, or {@code null} for no time limit
	 * @return the retention
	 */
	public Retention withFailed(int failed, @Nullable Duration failedAge) {
		return new Retention(this.completed, this.completedAge, this.payloads, failed, failedAge);
	}

}
