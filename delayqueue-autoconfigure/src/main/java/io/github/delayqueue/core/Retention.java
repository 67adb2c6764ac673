package io.github.delayqueue.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Which finished jobs a topic keeps, so that {@link DelayQueueProducer#find} can tell "it ran,
 * at this time, on this attempt, for this long" ({@link JobState#COMPLETED}) from "it never
 * existed". Off unless configured for a topic: a finished job is then removed at once.
 *
 * <p>
 * A topic keeps its last {@code completed} finished jobs, and drops those that finished more
 * than {@code completedAge} ago; with both set, a job is kept while both allow it. A job
 * finished again (scheduled again under the same id) replaces its earlier entry. Entries are
 * trimmed in the script that adds new ones (at most {@value #TRIM_SLACK} more than it adds,
 * so that a lowered limit is reached within a few finishes), never by a background scan: a
 * topic that no longer finishes jobs keeps what it has until the next finish.
 *
 * @param completed the most finished jobs kept, 0 for no count limit (then
 * {@code completedAge} must be set)
 * @param completedAge how long a finished job is kept, or {@code null} for no time limit
 * (then {@code completed} must be set)
 * @param payloads whether the payload and headers are kept too (they cost their size per job)
 */
public record Retention(int completed, @Nullable Duration completedAge, boolean payloads) {

	/** The most finished jobs a topic may keep. */
	public static final int MAX_COMPLETED = 1_000_000;

	/** The longest time a finished job may be kept: 365 days. */
	public static final Duration MAX_AGE = Duration.ofDays(365);

	/** How many more entries than it adds one finish removes at most. */
	public static final int TRIM_SLACK = 100;

	/**
	 * Checks the limits.
	 * @throws IllegalArgumentException when {@code completed} is out of range,
	 * {@code completedAge} is not positive or too long, or neither limits anything
	 */
	public Retention {
		JobConstraints.count("completed", completed, MAX_COMPLETED);
		if (completedAge != null) {
			JobConstraints.positive("completedAge", completedAge, MAX_AGE);
		}
		if (completed == 0 && completedAge == null) {
			throw new IllegalArgumentException(
					"retention must limit completed or completedAge (or both): it would keep every finished job");
		}
	}

	/**
	 * Keeps the last finished jobs, without payloads.
	 * @param completed how many
	 * @return the retention
	 */
	public static Retention lastCompleted(int completed) {
		return new Retention(completed, null, false);
	}

	/**
	 * Keeps the jobs finished within a time, without payloads.
	 * @param age how long a finished job is kept
	 * @return the retention
	 */
	public static Retention completedWithin(Duration age) {
		return new Retention(0, age, false);
	}

	/**
	 * This retention, keeping payloads and headers too.
	 * @return the retention
	 */
	public Retention withPayloads() {
		return new Retention(this.completed, this.completedAge, true);
	}

}
