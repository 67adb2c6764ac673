package io.github.delayqueue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What scheduling did.
 *
 * @param created {@code true} when the job was created (or replaced), {@code false} when an
 * existing job with the same topic and id was kept; {@code true} for a job that waits for its
 * transaction to commit ({@link #afterCommit()})
 * @param state the state of the job now in the queue (the kept one when not created);
 * {@code null} for a job that waits for its transaction to commit
 * @param dueAt the due time of the job now in the queue, by Redis's clock; {@code null} for
 * a job that waits for its transaction to commit
 */
public record ScheduleResult(boolean created, @Nullable JobState state, @Nullable Instant dueAt) {

	/**
	 * The result of a schedule made in a Spring-managed transaction: the job is written to
	 * Redis after the commit, so whether it is created or kept, and its state and due time,
	 * are not known yet.
	 */
	public static final ScheduleResult AFTER_COMMIT = new ScheduleResult(true, null, null);

	/**
	 * Whether the job waits for its transaction to commit, so that {@link #state()} and
	 * {@link #dueAt()} are not known yet. {@link JobBuilder#scheduleAsync()}
	 * gives the result once the job is written.
	 * @return {@code true} for a schedule made in a transaction and not written yet
	 */
	public boolean afterCommit() {
		return this.state == null;
	}

}
