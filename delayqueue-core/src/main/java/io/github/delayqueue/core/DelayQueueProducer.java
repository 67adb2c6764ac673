package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The producer side of the delay queue, on serialized payloads: schedule jobs, move or cancel
 * them while they wait, and read one. {@link DelayedJobTemplate} is built on it.
 *
 * <p>
 * Every operation is one atomic step in Redis, timed by Redis's clock. Arguments are checked
 * first ({@link JobConstraints}): a broken rule throws {@link IllegalArgumentException} and
 * changes nothing. When Redis cannot be reached a {@link DelayQueueConnectionException} is
 * thrown. Implementations are thread-safe.
 *
 * @see DelayQueueOperations
 */
public interface DelayQueueProducer {

	/**
	 * Schedules one job.
	 * @param request the job
	 * @return whether it was created, and the state and due time of the job in the queue
	 */
	ScheduleResult schedule(ScheduleRequest request);

	/**
	 * Checks a job as {@link #schedule} checks it before it writes, without writing: what
	 * {@code schedule} would refuse with {@link IllegalArgumentException} (such as a payload
	 * with headers over the size limit) is refused here. {@link DelayedJobTemplate} checks the
	 * jobs it holds back in a transaction with it, so that they fail in the transaction.
	 * @param request the job
	 * @throws IllegalArgumentException when {@code schedule} would refuse the job
	 */
	default void check(ScheduleRequest request) {
	}

	/**
	 * Schedules many jobs in one pipelined round trip. All requests are checked first; one
	 * bad request schedules none.
	 * @param requests the jobs
	 * @return one result per request, in order
	 */
	List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests);

	/**
	 * Removes a job in any state. A consumer that holds it can no longer finish, fail or
	 * touch it.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code true} when a job was removed
	 */
	boolean cancel(String topic, String id);

	/**
	 * Moves a DELAYED or READY job to a new due time, {@code delay} after Redis's now.
	 * @param topic the topic
	 * @param id the job id
	 * @param delay the new delay (zero or negative: due now)
	 * @return what happened
	 */
	RescheduleResult reschedule(String topic, String id, Duration delay);

	/**
	 * Moves a DELAYED or READY job to a new absolute due time.
	 * @param topic the topic
	 * @param id the job id
	 * @param dueAt the new due time (past: due now)
	 * @return what happened
	 */
	RescheduleResult rescheduleAt(String topic, String id, Instant dueAt);

	/**
	 * Reads a job. A live job (in any of the first four {@link JobState}s) is read from its
	 * bucket; when there is none and this instance knows the topic's {@link Retention}, the
	 * last finished run the topic keeps, {@link JobState#COMPLETED}: one more round trip for a
	 * job that is not in its bucket. (A job scheduled again after a kept run, then cancelled,
	 * is found as that earlier run.)
	 * @param topic the topic
	 * @param id the job id
	 * @return the job, or empty when there is none (never scheduled, cancelled, or finished
	 * and not kept)
	 */
	Optional<JobInfo> find(String topic, String id);

}
