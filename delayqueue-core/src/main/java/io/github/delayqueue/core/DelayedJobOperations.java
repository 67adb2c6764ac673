package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The producer API: schedule, cancel, reschedule and find delayed jobs, with payloads as
 * objects. Implemented by {@link DelayedJobTemplate}; the operator's reads and replays are on
 * {@link DelayQueueAdmin}.
 *
 * <p>
 * A job is identified by its topic and id; scheduling one whose topic and id exist keeps the
 * existing job unless {@link JobBuilder#replaceExisting()} says otherwise. Arguments are
 * checked first ({@link JobConstraints}): a broken rule throws
 * {@link IllegalArgumentException} naming the field and the rule, and a payload that cannot
 * be written a {@link PayloadConversionException}, without touching Redis. A Redis outage is
 * a {@link DelayQueueConnectionException}. Implementations are thread-safe.
 */
public interface DelayedJobOperations {

	/**
	 * Schedules a job {@code delay} from now (Redis's now), with the default TTR and
	 * attempts.
	 * @param topic the topic, such as {@code "order-close"}
	 * @param id the business id, unique within the topic
	 * @param payload the payload (an object written as JSON, a String or a byte[])
	 * @param delay the delay; zero or negative makes the job READY at once
	 * @return {@code true} when created, {@code false} when a job with this topic and id
	 * exists and was kept
	 */
	boolean schedule(String topic, String id, Object payload, Duration delay);

	/**
	 * Schedules a job at an absolute time (compared with Redis's clock).
	 * @param topic the topic
	 * @param id the business id, unique within the topic
	 * @param payload the payload
	 * @param dueAt when the job is due; a past instant makes it READY at once
	 * @return {@code true} when created, {@code false} when a job with this topic and id
	 * exists and was kept
	 */
	boolean scheduleAt(String topic, String id, Object payload, Instant dueAt);

	/**
	 * Starts a job with every option: TTR, attempts, priority, headers, what to do with a
	 * duplicate.
	 * @param topic the topic
	 * @param id the business id
	 * @return a builder; nothing is sent until {@link JobBuilder#schedule()}
	 */
	JobBuilder job(String topic, String id);

	/**
	 * Schedules a job built with {@link #job}; what {@link JobBuilder#schedule()} calls.
	 * @param job the job
	 * @return whether it was created, and the state and due time of the job in the queue
	 */
	ScheduleResult schedule(JobBuilder job);

	/**
	 * Schedules a job built with {@link #job} without waiting for Redis; what
	 * {@link JobBuilder#scheduleAsync()} calls.
	 * @param job the job
	 * @return the result, once the job is written
	 */
	CompletableFuture<ScheduleResult> scheduleAsync(JobBuilder job);

	/**
	 * Schedules many jobs in one round trip. Every job is checked first: one bad job
	 * schedules none.
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
	 * Reads a job: state, due time, attempts, last error; for a finished job its topic keeps
	 * ({@link Retention}), {@link JobState#COMPLETED} with its finish time and run time.
	 * @param topic the topic
	 * @param id the job id
	 * @return the job, or empty when there is none
	 */
	Optional<JobInfo> find(String topic, String id);

}
