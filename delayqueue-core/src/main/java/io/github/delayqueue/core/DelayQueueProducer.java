package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The producer side of the delay queue, on serialized payloads. Each operation is one atomic
 * step in Redis, timed by Redis's clock. Arguments are checked by {@link JobConstraints}
 * first; an unreachable Redis throws {@link DelayQueueConnectionException}. Implementations
 * are thread-safe.
 */
public interface DelayQueueProducer {

	/**
	 * Schedules one job.
	 * @param request the job
	 * @return whether it was created, and the job's state and due time
	 */
	ScheduleResult schedule(ScheduleRequest request);

	/**
	 * Checks a job as {@link #schedule} would, without writing it.
	 * @param request the job
	 * @throws IllegalArgumentException when {@code schedule} would refuse the job
	 */
	void check(ScheduleRequest request);

	/**
	 * Schedules many jobs in one pipelined round trip; one bad request schedules none.
	 * @param requests the jobs
	 * @return one result per request, in order
	 */
	List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests);

	/**
	 * Removes a job in any state; its reservation, if any, becomes stale.
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
	 * Runs a waiting job now: a DELAYED job is rescheduled with no delay; a READY job is due
	 * already and keeps its place (a reschedule would put it behind the jobs due since).
	 * @param topic the topic
	 * @param id the job id
	 * @return what the reschedule did, or empty for a READY job, left as it is
	 */
	default Optional<RescheduleResult> runNow(String topic, String id) {
		Optional<JobState> state = find(topic, id).map(JobInfo::state);
		if (state.isEmpty()) {
			return Optional.of(RescheduleResult.NOT_FOUND);
		}
		return (state.get() == JobState.READY) ? Optional.empty() : Optional.of(reschedule(topic, id, Duration.ZERO));
	}

	/**
	 * Reads a job: a live one, or else the last finished run its topic keeps
	 * ({@link Retention}).
	 * @param topic the topic
	 * @param id the job id
	 * @return the job, or empty when there is none
	 */
	Optional<JobInfo> find(String topic, String id);

}
