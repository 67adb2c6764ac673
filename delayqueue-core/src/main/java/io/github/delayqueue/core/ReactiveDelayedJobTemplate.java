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
 * {@link DelayedJobOperations} as {@link Mono}s that work when subscribed, off the subscribing
 * thread: schedules through {@link DelayedJobOperations#scheduleAsync}, the other calls on the
 * scheduler (by default {@link Schedulers#boundedElastic()}). Errors are the blocking calls'
 * errors, signalled. Writes are not deferred to a reactive transaction's commit.
 */
public class ReactiveDelayedJobTemplate {

	private final DelayedJobOperations operations;

	private final Scheduler scheduler;

	/**
	 * Creates a facade that runs blocking calls on {@link Schedulers#boundedElastic()}.
	 * @param operations the operations, such as the {@link DelayedJobTemplate}
	 */
	public ReactiveDelayedJobTemplate(DelayedJobOperations operations) {
		this(operations, Schedulers.boundedElastic());
	}

	/**
	 * Creates a facade that runs blocking calls on a scheduler.
	 * @param operations the operations, such as the {@link DelayedJobTemplate}
	 * @param scheduler where blocking calls run and results are signalled
	 */
	public ReactiveDelayedJobTemplate(DelayedJobOperations operations, Scheduler scheduler) {
		Assert.notNull(operations, "operations must not be null");
		Assert.notNull(scheduler, "scheduler must not be null");
		this.operations = operations;
		this.scheduler = scheduler;
	}

	/** Starts a job to pass to {@link #schedule(JobBuilder)}, as {@link DelayedJobOperations#job}. */
	public JobBuilder job(String topic, String id) {
		return this.operations.job(topic, id);
	}

	/** {@link DelayedJobOperations#schedule(String, String, Object, Duration)}, through {@code scheduleAsync}. */
	public Mono<Boolean> schedule(String topic, String id, Object payload, Duration delay) {
		return schedule(job(topic, id).payload(payload).delay(delay)).map(ScheduleResult::created);
	}

	/** {@link DelayedJobOperations#scheduleAt}, through {@code scheduleAsync}. */
	public Mono<Boolean> scheduleAt(String topic, String id, Object payload, Instant dueAt) {
		return schedule(job(topic, id).payload(payload).dueAt(dueAt)).map(ScheduleResult::created);
	}

	/** {@link DelayedJobOperations#scheduleAsync}; a subscriber that cancels does not stop the write. */
	public Mono<ScheduleResult> schedule(JobBuilder job) {
		Assert.notNull(job, "job must not be null");
		return Mono.fromFuture(() -> this.operations.scheduleAsync(job), true)
			.subscribeOn(this.scheduler)
			.publishOn(this.scheduler);
	}

	/** {@link DelayedJobOperations#scheduleAll} on the scheduler. */
	public Mono<List<ScheduleResult>> scheduleAll(Collection<JobBuilder> jobs) {
		return call(() -> this.operations.scheduleAll(jobs));
	}

	/** {@link DelayedJobOperations#cancel} on the scheduler. */
	public Mono<Boolean> cancel(String topic, String id) {
		return call(() -> this.operations.cancel(topic, id));
	}

	/** {@link DelayedJobOperations#reschedule} on the scheduler. */
	public Mono<RescheduleResult> reschedule(String topic, String id, Duration delay) {
		return call(() -> this.operations.reschedule(topic, id, delay));
	}

	/** {@link DelayedJobOperations#rescheduleAt} on the scheduler. */
	public Mono<RescheduleResult> rescheduleAt(String topic, String id, Instant dueAt) {
		return call(() -> this.operations.rescheduleAt(topic, id, dueAt));
	}

	/** {@link DelayedJobOperations#find} on the scheduler; empty when there is no job. */
	public Mono<JobInfo> find(String topic, String id) {
		return call(() -> this.operations.find(topic, id)).flatMap(Mono::justOrEmpty);
	}

	private <T> Mono<T> call(Callable<T> call) {
		return Mono.fromCallable(call).subscribeOn(this.scheduler);
	}

}
