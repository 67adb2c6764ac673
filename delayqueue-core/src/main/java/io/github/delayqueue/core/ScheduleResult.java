package io.github.delayqueue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What scheduling did.
 *
 * @param created {@code true} when the job was created or replaced (or waits for its
 * transaction's commit), {@code false} when the existing job was kept
 * @param state the state of the job now in the queue; {@code null} after-commit
 * @param dueAt the due time of the job now in the queue, by Redis's clock; {@code null} after-commit
 */
public record ScheduleResult(boolean created, @Nullable JobState state, @Nullable Instant dueAt) {

	/** The result of a schedule made in a Spring-managed transaction, written after the commit. */
	public static final ScheduleResult AFTER_COMMIT = new ScheduleResult(true, null, null);

	/** Whether the job waits for its transaction to commit: made in one and not written yet. */
	public boolean afterCommit() {
		return this.state == null;
	}

}
