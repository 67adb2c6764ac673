package io.github.delayqueue.recurring;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.JobState;

/**
 * A recurring job as stored in Redis, with what it did so far.
 *
 * @param job the definition
 * @param version how many times the definition was created or changed
 * @param paused whether it is paused
 * @param nextFireTime its next tick, or {@code null} while paused or without more ticks
 * @param fired occurrences created (ticks and triggers)
 * @param skipped ticks that created no occurrence
 * @param misfired ticks fired later than the misfire threshold
 * @param lastFireTime the latest tick the last occurrence stands for, or {@code null}
 * @param lastOccurrenceId the id of the last occurrence, or {@code null}
 * @param lastOccurrenceState that occurrence's state, or {@code null} when it left the queue
 */
public record RecurringJobInfo(RecurringJob job, long version, boolean paused, @Nullable Instant nextFireTime,
		long fired, long skipped, long misfired, @Nullable Instant lastFireTime, @Nullable String lastOccurrenceId,
		@Nullable JobState lastOccurrenceState) {

	/**
	 * The definition's name.
	 * @return the name
	 */
	public String name() {
		return this.job.getName();
	}

}
