package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.util.Assert;

/**
 * {@link DelayedJobOperations} for reactive applications: every call returns a {@link Mono}
 * that does its work when subscribed, off the subscribing thread, so that a WebFlux handler
 * never blocks its event loop. Schedules go through {@link DelayedJobOperations#scheduleAsync}
 * (batched with other schedules); the other calls run on the given scheduler, by default
 * {@link Schedulers#boundedElastic()}. Errors are the blocking calls' errors, signalled.
 * Writes are not deferred to a reactive transaction's commit.
 */
public class ReactiveDelayedJobTemplate {

	private final DelayedJobOperations operations;

	private final Scheduler scheduler;

	/**
	 * Create a facade of the operations that runs their blocking calls on
	 * {@link Schedulers#boundedElastic()}.
	 * @param operations the operations, such as the {@link DelayedJobTemplate}
	 */
	public ReactiveDelayedJobTemplate(DelayedJobOperations operations) {
		this(operations, Schedulers.boundedElastic());
	}

	/**
	 * Create a facade of the operations that runs their blocking calls on a scheduler.
	 * @param operations the operations, such as the {@link DelayedJobTemplate}
	 * @param scheduler where blocking calls run and results are signalled
	 */
	public ReactiveDelayedJobTemplate(DelayedJobOperations operations, Scheduler scheduler) {
		Assert.notNull(operations, "operations must not be null");
		Assert.notNull(scheduler, "scheduler must not be null");
		this.operations = operations;
		this.scheduler = scheduler;
	}

	/**
	 * Starts a job with every option, to pass to {@link #schedule(JobBuilder)}.
	 * @param topic the topic
	 * @param id the business id
	 * @return a builder
	 */
	public JobBuilder job(String topic, String id) {
		return this.operations.job(topic, id);
	}

	/**
	 * Schedules a job {@code delay} from Redis's now.
	 * @param topic the topic
	 * @param id the business id, unique within the topic
	 * @param payload the payload
	 * @param delay the delay; zero or negative makes the job READY at once
	 * @return {@code true} when created, {@code false} when the existing job was kept
	 */
	public Mono<Boolean> schedule(String topic, String id, Object payload, Duration delay) {
		return schedule(job(topic, id).payload(payload).delay(delay)).map(ScheduleResult::created);
	}

	/**
	 * Schedules a job at an absolute time, compared with Redis's clock.
	 * @param topic the topic
	 * @param id the business id, unique within the topic
	 * @param payload the payload
	 * @param dueAt when the job is due
	 * @return {@code true} when created, {@code false} when the existing job was kept
	 */
	public Mono<Boolean> scheduleAt(String topic, String id, Object payload, Instant dueAt) {
		return schedule(job(topic, id).payload(payload).dueAt(dueAt)).map(ScheduleResult::created);
	}

	/**
	 * Schedules a job built with {@link #job}.
	 * @param job the job
	 * @return whether it was created, and the job's state and due time; a subscriber that
	 * cancels does not stop the write
	 */
	public Mono<ScheduleResult> schedule(JobBuilder job) {
		Assert.notNull(job, "job must not be null");
		return Mono.fromFuture(() -> this.operations.scheduleAsync(job), true)
			.subscribeOn(this.scheduler)
			.publishOn(this.scheduler);
	}

	/**
	 * Schedules many jobs in one round trip; one bad job schedules none.
	 * @param jobs the jobs, built with {@link #job}
	 * @return one result per job, in order
	 */
	public Mono<List<ScheduleResult>> scheduleAll(Collection<JobBuilder> jobs) {
		return call(() -> this.operations.scheduleAll(jobs));
	}

	/**
	 * Cancels a job in any state.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code true} when a job was removed
	 */
	public Mono<Boolean> cancel(String topic, String id) {
		return call(() -> this.operations.cancel(topic, id));
	}

	/**
	 * Moves a waiting job to {@code delay} from now.
	 * @param topic the topic
	 * @param id the job id
	 * @param delay the new delay
	 * @return what happened
	 */
	public Mono<RescheduleResult> reschedule(String topic, String id, Duration delay) {
		return call(() -> this.operations.reschedule(topic, id, delay));
	}

	/**
	 * Moves a waiting job to an absolute due time.
	 * @param topic the topic
	 * @param id the job id
	 * @param dueAt the new due time
	 * @return what happened
	 */
	public Mono<RescheduleResult> rescheduleAt(String topic, String id, Instant dueAt) {
		return call(() -> this.operations.rescheduleAt(topic, id, dueAt));
	}

	/**
	 * Reads a job, including a finished one its topic keeps.
	 * @param topic the topic
	 * @param id the job id
	 * @return the job, or empty when there is none
	 */
	public Mono<JobInfo> find(String topic, String id) {
		return call(() -> this.operations.find(topic, id)).flatMap(Mono::justOrEmpty);
	}

	private <T> Mono<T> call(Callable<T> call) {
		return Mono.fromCallable(call).subscribeOn(this.scheduler);
	}

}
