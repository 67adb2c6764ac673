package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The producer API: schedule, cancel, reschedule and find delayed jobs, with payloads as
 * objects; implemented by {@link DelayedJobTemplate}. A job is identified by its topic and
 * id. Arguments are checked by {@link JobConstraints} before Redis is touched; a Redis
 * outage is a {@link DelayQueueConnectionException}. Implementations are thread-safe.
 */
public interface DelayedJobOperations {

	/**
	 * Schedules a job {@code delay} from Redis's now, with the default TTR and attempts.
	 * @param topic the topic, such as {@code "order-close"}
	 * @param id the business id, unique within the topic
	 * @param payload the payload (an object written as JSON, a String or a byte[])
	 * @param delay the delay; zero or negative makes the job READY at once
	 * @return {@code true} when created, {@code false} when the existing job was kept
	 */
	default boolean schedule(String topic, String id, Object payload, Duration delay) {
		return job(topic, id).payload(payload).delay(delay).schedule().created();
	}

	/**
	 * Schedules a job at an absolute time, compared with Redis's clock.
	 * @param topic the topic
	 * @param id the business id, unique within the topic
	 * @param payload the payload
	 * @param dueAt when the job is due; a past instant makes it READY at once
	 * @return {@code true} when created, {@code false} when the existing job was kept
	 */
	default boolean scheduleAt(String topic, String id, Object payload, Instant dueAt) {
		return job(topic, id).payload(payload).dueAt(dueAt).schedule().created();
	}

	/**
	 * Starts a job with every option.
	 * @param topic the topic
	 * @param id the business id
	 * @return a builder; nothing is sent until {@link JobBuilder#schedule()}
	 */
	JobBuilder job(String topic, String id);

	/**
	 * Schedules a job built with {@link #job}.
	 * @param job the job
	 * @return whether it was created, and the job's state and due time
	 */
	ScheduleResult schedule(JobBuilder job);

	/**
	 * Schedules a job built with {@link #job} without waiting for Redis.
	 * @param job the job
	 * @return the result, once the job is written
	 */
	CompletableFuture<ScheduleResult> scheduleAsync(JobBuilder job);

	/**
	 * Schedules many jobs in one round trip; one bad job schedules none.
	 * @param jobs the jobs, built with {@link #job}
	 * @return one result per job, in order
	 */
	List<ScheduleResult> scheduleAll(Collection<JobBuilder> jobs);

	/**
	 * Cancels a job in any state.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code true} when a job was removed, {@code false} when there was none
	 */
	boolean cancel(String topic, String id);

	/**
	 * Moves a waiting (DELAYED or READY) job to {@code delay} from now.
	 * @param topic the topic
	 * @param id the job id
	 * @param delay the new delay
	 * @return what happened
	 */
	RescheduleResult reschedule(String topic, String id, Duration delay);

	/**
	 * Moves a waiting (DELAYED or READY) job to an absolute due time.
	 * @param topic the topic
	 * @param id the job id
	 * @param dueAt the new due time
	 * @return what happened
	 */
	RescheduleResult rescheduleAt(String topic, String id, Instant dueAt);

	/**
	 * Reads a job, including a finished one its topic keeps.
	 * @param topic the topic
	 * @param id the job id
	 * @return the job, or empty when there is none
	 */
	Optional<JobInfo> find(String topic, String id);

}
