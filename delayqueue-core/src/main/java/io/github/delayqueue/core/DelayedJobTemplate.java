package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.core.TemplateObservations.Written;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * The {@link DelayedJobOperations} on a queue's {@link DelayQueueOperations}, with payloads
 * written by a {@link JobPayloadConverter}. Thread-safe.
 *
 * <pre class="code">
 * template.schedule("order-close", orderId, new OrderClose(orderId), Duration.ofMinutes(30));
 * template.cancel("order-close", orderId);
 * </pre>
 *
 * <p>
 * In a Spring-managed transaction, writes are checked at once and written to Redis after the
 * commit, in call order, and a rollback discards them; they then answer
 * {@link ScheduleResult#AFTER_COMMIT}, {@code true} or {@link RescheduleResult#AFTER_COMMIT}.
 * With a {@link JobOutbox} ({@link #setOutbox}) they are also stored in the transaction.
 *
 * <p>
 * With an observation registry, each write is a {@code delayqueue.template} observation, and a
 * current trace context is stored with each scheduled job as headers.
 */
public class DelayedJobTemplate implements DelayedJobOperations, SmartLifecycle, AutoCloseable {

	/** The lifecycle phase: stopped after the listener containers and the queue, before Redis. */
	public static final int PHASE = Integer.MAX_VALUE - 4096;

	private final DelayQueueOperations operations;

	private final JobPayloadConverter converter;

	private final ScheduleBatcher batcher;

	private final TemplateObservations observations;

	private volatile boolean running;

	private volatile boolean afterCommit = true;

	private volatile @Nullable JobOutbox outbox;

	/**
	 * Creates a template.
	 * @param operations the queue's operations
	 * @param converter the payload converter
	 */
	public DelayedJobTemplate(DelayQueueOperations operations, JobPayloadConverter converter) {
		Assert.notNull(operations, "operations must not be null");
		Assert.notNull(converter, "converter must not be null");
		this.operations = operations;
		this.converter = converter;
		this.batcher = new ScheduleBatcher(operations);
		this.observations = new TemplateObservations(operations);
	}

	@Override
	public JobBuilder job(String topic, String id) {
		return new JobBuilder(this, topic, id);
	}

	@Override
	public ScheduleResult schedule(JobBuilder job) {
		ScheduleRequest request = job.toRequest(this.converter);
		return this.observations.observe("schedule", request.topic(), request.id(), 1,
				(trace) -> write(new JobWrite.Schedule(this.observations.checked(request, trace,
						transactionWrites() != null)), ScheduleResult.AFTER_COMMIT),
				TemplateObservations::outcomeOf);
	}

	/**
	 * {@inheritDoc}
	 * @throws IllegalStateException when the template is closed
	 */
	@Override
	public CompletableFuture<ScheduleResult> scheduleAsync(JobBuilder job) {
		ScheduleRequest request = job.toRequest(this.converter);
		return this.observations.observeAsync("schedule-async", request.topic(), request.id(), 1, (trace) -> {
			this.batcher.checkOpen();
			AfterCommitWrites writes = transactionWrites();
			if (writes != null) {
				return cast(writes.add(new JobWrite.Schedule(this.observations.checked(request, trace, true))));
			}
			try {
				return this.batcher.submit(this.observations.checked(request, trace, true));
			}
			catch (IllegalArgumentException ex) {
				// outside a transaction, a rule only the queue checks fails the job's future
				return CompletableFuture.failedFuture(ex);
			}
		}, TemplateObservations::outcomeOf);
	}

	@Override
	public List<ScheduleResult> scheduleAll(Collection<JobBuilder> jobs) {
		Assert.notNull(jobs, "jobs must not be null");
		List<ScheduleRequest> requests = jobs.stream().map((job) -> job.toRequest(this.converter)).toList();
		String topic = TemplateObservations.mixed(requests.stream().map(ScheduleRequest::topic));
		return this.observations.observe("schedule-all", topic, null, requests.size(), (trace) -> {
			AfterCommitWrites writes = transactionWrites();
			// every job is checked before the first is written or held back: one bad job schedules none
			List<ScheduleRequest> checked = requests.stream()
				.map((request) -> this.observations.checked(request, trace, writes != null))
				.toList();
			if (writes == null) {
				return new Written<>(this.operations.scheduleAll(checked), false);
			}
			checked.forEach((request) -> writes.add(new JobWrite.Schedule(request)));
			return new Written<>(Collections.nCopies(checked.size(), ScheduleResult.AFTER_COMMIT), true);
		}, TemplateObservations::outcomeOf);
	}

	@Override
	public boolean cancel(String topic, String id) {
		JobWrite.Cancel cancel = new JobWrite.Cancel(topic, id);
		return this.observations.observe("cancel", topic, id, 1, (trace) -> write(cancel, Boolean.TRUE),
				(cancelled) -> cancelled ? "cancelled" : "not-found");
	}

	@Override
	public RescheduleResult reschedule(String topic, String id, Duration delay) {
		return reschedule(new JobWrite.Reschedule(topic, id, delay, null));
	}

	@Override
	public RescheduleResult rescheduleAt(String topic, String id, Instant dueAt) {
		return reschedule(new JobWrite.Reschedule(topic, id, null, dueAt));
	}

	private RescheduleResult reschedule(JobWrite.Reschedule reschedule) {
		return this.observations.observe("reschedule", reschedule.topic(), reschedule.id(), 1,
				(trace) -> write(reschedule, RescheduleResult.AFTER_COMMIT),
				(result) -> result.name().toLowerCase(Locale.ROOT).replace('_', '-'));
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		return this.operations.find(topic, id);
	}

	/** Whether writes made in a Spring-managed transaction wait for its commit (the default). */
	public boolean isAfterCommit() {
		return this.afterCommit;
	}

	/** Sets whether writes made in a Spring-managed transaction wait for its commit; default {@code true}. */
	public void setAfterCommit(boolean afterCommit) {
		this.afterCommit = afterCommit;
	}

	/** Sets where a transaction's writes are stored in it; {@code null} (the default) holds them in memory. */
	public void setOutbox(@Nullable JobOutbox outbox) {
		this.outbox = outbox;
	}

	/** Sets the registry the observations go to; {@code null} (the default) observes nothing. */
	public void setObservationRegistry(@Nullable ObservationRegistry observationRegistry) {
		this.observations.setRegistry(observationRegistry);
	}

	/**
	 * Sets a convention of its own for the observations; {@code null} (the default) uses
	 * {@link DefaultDelayedJobTemplateObservationConvention}.
	 */
	public void setObservationConvention(@Nullable DelayedJobTemplateObservationConvention observationConvention) {
		this.observations.setConvention(observationConvention);
	}

	private @Nullable AfterCommitWrites transactionWrites() {
		return this.afterCommit ? AfterCommitWrites.current(this, this.operations, this.outbox) : null;
	}

	/** Applies a write now, or holds it back in the current transaction. */
	private <T> Written<T> write(JobWrite write, T afterCommit) {
		AfterCommitWrites writes = transactionWrites();
		if (writes == null) {
			return new Written<>(cast(write.applyTo(this.operations)), false);
		}
		writes.add(write);
		return new Written<>(afterCommit, true);
	}

	@SuppressWarnings("unchecked")
	private static <T> T cast(Object result) {
		return (T) result;
	}

	/** The operations underneath, with the consumer and admin APIs. */
	public DelayQueueOperations getOperations() {
		return this.operations;
	}

	@Override
	public void start() {
		this.running = true;
	}

	/** Waits up to 30 seconds until the jobs scheduled asynchronously so far are written. */
	@Override
	public void stop() {
		this.running = false;
		this.batcher.flush();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Stops taking asynchronous schedules and waits up to 30 seconds until those submitted
	 * are written; those still waiting then fail.
	 */
	@Override
	public void close() {
		this.batcher.close();
	}

}
