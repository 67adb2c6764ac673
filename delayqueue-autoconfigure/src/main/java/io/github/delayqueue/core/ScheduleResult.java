package io.github.delayqueue.core;

import java.time.Instant;

/**
 * What scheduling did.
 *
 * @param created {@code true} when the job was created (or replaced), {@code false} when an
 * existing job with the same topic and id was kept
 * @param state the state of the job now in the queue (the kept one when not created)
 * @param dueAt the due time of the job now in the queue, by Redis's clock
 */
public record ScheduleResult(boolean created, JobState state, Instant dueAt) {

}
