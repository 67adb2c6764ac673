package io.github.delayqueue.recurring;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.JobState;

/**
 * A recurring job as stored in Redis, with what it did so far.
 *
 * @param job the definition
 * @param version how many times the definition was created or changed (1 for a new one)
 * @param paused whether it is paused (no ticks fire)
 * @param nextFireTime its next tick by Redis's clock, or {@code null} while paused or when
 * the schedule has no more ticks
 * @param fired occurrences created so far (ticks and triggers)
 * @param skipped ticks that created no occurrence (the overlap policy, a misfire policy, an
 * occurrence that existed already)
 * @param misfired ticks that were fired later than the misfire threshold
 * @param lastFireTime the latest tick the last occurrence created stands for (a catch-up's
 * occurrence stands for every tick it covers; a trigger's for its time), or {@code null} for
 * none
 * @param lastOccurrenceId the id of the last occurrence created, or {@code null} for none
 * @param lastOccurrenceState the state of that occurrence now, or {@code null} when it is no
 * longer in the queue (finished, cancelled) or there is none
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
