package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.core.TemplateObservations.Written;
import io.github.delayqueue.micrometer.DefaultDelayedJobTemplateObservationConvention;
import io.github.delayqueue.micrometer.DelayQueueObservation;
import io.github.delayqueue.micrometer.DelayedJobTemplateObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * The {@link DelayedJobOperations} on a queue's {@link DelayQueueOperations}, with payloads
 * written by a {@link JobPayloadConverter} (plain JSON by default; a {@code String} or
 * {@code byte[]} is stored as is).
 *
 * <pre class="code">
 * // close the order in 30 minutes unless it is paid first
 * template.schedule("order-close", orderId, new OrderClose(orderId), Duration.ofMinutes(30));
 * // paid: the job is not needed any more
 * template.cancel("order-close", orderId);
 * </pre>
 *
 * <p>
 * Scheduling a job whose topic and id exist is checked atomically, so concurrent producers
 * create exactly one job. Due times are computed by Redis's clock, never the application's.
 *
 * <p>
 * <b>Transactions.</b> While a Spring-managed transaction is active on the calling thread,
 * {@code schedule}, {@code scheduleAll}, {@code scheduleAsync}, {@code cancel} and
 * {@code reschedule} are checked at once (the payload size limit included) and written to
 * Redis after the transaction commits, in the order they were called; a rollback discards
 * them, a rollback to a savepoint those made after it. Their answers are then not known yet:
 * {@link ScheduleResult#AFTER_COMMIT} ({@code created()} is {@code true}), {@code true} from
 * {@code cancel}, {@link RescheduleResult#AFTER_COMMIT}; {@link JobBuilder#scheduleAsync()}'s
 * future completes with the real result once written (and is cancelled by a rollback). A
 * write that fails after the commit throws to the code that committed, whose database work is
 * committed by then; a crash between the commit and the write loses it, unless a
 * {@link JobOutbox} stores the writes in the transaction ({@link #setOutbox}): they are then
 * written after the transaction completed, a failure is logged and left to the outbox's
 * recovery. A write made once the transaction has committed (in an {@code AFTER_COMMIT}
 * callback) is written at once. Outside a transaction, and with {@link #setAfterCommit
 * setAfterCommit(false)}, every call writes at once. Reads never wait.
 * <p>
 * <b>Observations.</b> With {@link #setObservationEnabled setObservationEnabled(true)} and an
 * {@link ObservationRegistry}, every write is a {@link DelayQueueObservation#TEMPLATE}
 * observation. When another observation is current as it starts (a traced HTTP request, say),
 * the trace context the tracer's propagator writes ({@code traceparent} and
 * {@code tracestate} with W3C propagation) is stored with each scheduled job as headers, and
 * the listener that handles the job continues that trace. A job scheduled outside a trace
 * stores nothing more; a job whose own headers leave no room for them (see
 * {@link JobBuilder#header}) or the payload size limit is stored without them; a header the
 * job sets itself wins.
 *
 * <p>
 * Arguments are checked as {@link DelayedJobOperations} says. Thread-safe.
 */
public class DelayedJobTemplate implements DelayedJobOperations, SmartLifecycle, AutoCloseable {

	/**
	 * The lifecycle phase: stopped after the listener containers and the queue (which may
	 * still schedule jobs while they stop) and before the Redis connection factory.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 4096;

	/** How long {@link #stop()} and {@link #close()} wait for asynchronous schedules to be written. */
	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	private final DelayQueueOperations operations;

	private final JobPayloadConverter converter;

	private final ScheduleBatcher batcher;

	private final TemplateObservations observations;

	private volatile boolean running;

	private volatile boolean afterCommit = true;

	private volatile @Nullable JobOutbox outbox;

	/**
	 * Creates a template that schedules through the given operations and writes payloads
	 * with the given converter.
	 * @param operations the queue's operations
	 * @param converter the payload converter
	 */
	public DelayedJobTemplate(DelayQueueOperations operations, JobPayloadConverter converter) {
		Assert.notNull(operations, "operations must not be null");
		Assert.notNull(converter, "converter must not be null");
		this.operations = operations;
		this.converter = converter;
		this.batcher = new ScheduleBatcher(operations, CLOSE_TIMEOUT);
		this.observations = new TemplateObservations(operations);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@code true} in a transaction, where the job is written after the commit.
	 */
	@Override
	public boolean schedule(String topic, String id, Object payload, Duration delay) {
		return job(topic, id).payload(payload).delay(delay).schedule().created();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@code true} in a transaction, where the job is written after the commit.
	 */
	@Override
	public boolean scheduleAt(String topic, String id, Object payload, Instant dueAt) {
		return job(topic, id).payload(payload).dueAt(dueAt).schedule().created();
	}

	@Override
	public JobBuilder job(String topic, String id) {
		return new JobBuilder(this, topic, id);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@link ScheduleResult#AFTER_COMMIT} in a transaction, where the job is written after
	 * the commit.
	 */
	@Override
	public ScheduleResult schedule(JobBuilder job) {
		ScheduleRequest request = job.toRequest(this.converter);
		return this.observations.observe("schedule", request.topic(), request.id(), 1,
				(trace) -> write(new JobWrite.Schedule(this.observations.traced(request, trace)),
						ScheduleResult.AFTER_COMMIT),
				TemplateObservations::outcomeOf);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * As {@link JobBuilder#scheduleAsync()} describes.
	 * @throws IllegalStateException when the template is closed
	 */
	@Override
	public CompletableFuture<ScheduleResult> scheduleAsync(JobBuilder job) {
		ScheduleRequest request = job.toRequest(this.converter);
		return this.observations.observeAsync(request, (trace) -> {
			ScheduleRequest traced = this.observations.traced(request, trace);
			AfterCommitWrites writes = transactionWrites();
			if (writes == null) {
				return this.batcher.submit(traced);
			}
			this.batcher.checkOpen();
			this.operations.check(traced);
			CompletableFuture<ScheduleResult> written = new CompletableFuture<>();
			writes.add(new JobWrite.Schedule(traced), written);
			return written;
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@link ScheduleResult#AFTER_COMMIT} each in a transaction.
	 */
	@Override
	public List<ScheduleResult> scheduleAll(Collection<JobBuilder> jobs) {
		Assert.notNull(jobs, "jobs must not be null");
		List<ScheduleRequest> requests = new ArrayList<>(jobs.size());
		for (JobBuilder job : jobs) {
			requests.add(job.toRequest(this.converter));
		}
		// the batch's topic names its observation only: not computed when none is made
		String topic = this.observations.isObserved() ? requests.stream()
			.map(ScheduleRequest::topic)
			.distinct()
			.reduce((one, other) -> "mixed")
			.orElse("none") : "";
		return this.observations.observe("schedule-all", topic, null, requests.size(), (trace) -> {
			List<ScheduleRequest> traced = trace.isEmpty() ? requests
					: requests.stream().map((request) -> this.observations.traced(request, trace)).toList();
			AfterCommitWrites writes = transactionWrites();
			if (writes == null) {
				return new Written<>(this.operations.scheduleAll(traced), false);
			}
			traced.forEach(this.operations::check);
			List<ScheduleResult> results = new ArrayList<>(traced.size());
			for (ScheduleRequest request : traced) {
				Object result = writes.add(new JobWrite.Schedule(request), null);
				results.add((result != null) ? (ScheduleResult) result : ScheduleResult.AFTER_COMMIT);
			}
			return new Written<>(results, results.stream().anyMatch(ScheduleResult::afterCommit));
		}, TemplateObservations::outcomeOf);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@code true} in a transaction, where the job is cancelled after the commit.
	 */
	@Override
	public boolean cancel(String topic, String id) {
		JobWrite.Cancel cancel = new JobWrite.Cancel(topic, id);
		return this.observations.observe("cancel", topic, id, 1, (trace) -> write(cancel, Boolean.TRUE),
				(cancelled) -> cancelled ? "cancelled" : "not-found");
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@link RescheduleResult#AFTER_COMMIT} in a transaction.
	 */
	@Override
	public RescheduleResult reschedule(String topic, String id, Duration delay) {
		return reschedule(new JobWrite.Reschedule(topic, id, delay, null));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@link RescheduleResult#AFTER_COMMIT} in a transaction.
	 */
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

	/**
	 * Whether writes made in a Spring-managed transaction wait for its commit.
	 * @return {@code true} (the default) when they wait
	 */
	public boolean isAfterCommit() {
		return this.afterCommit;
	}

	/**
	 * Sets whether writes made in a Spring-managed transaction wait for its commit (and are
	 * discarded by a rollback), as described in the class documentation; {@code false}
	 * writes at once, also in a transaction.
	 * @param afterCommit {@code true} (the default) to wait for the commit
	 */
	public void setAfterCommit(boolean afterCommit) {
		this.afterCommit = afterCommit;
	}

	/**
	 * Sets where the writes made in a transaction are stored in that transaction, so that a
	 * crash between the commit and the write to Redis does not lose them; {@code null} (the
	 * default) holds them in memory.
	 * @param outbox the outbox, or {@code null}
	 */
	public void setOutbox(@Nullable JobOutbox outbox) {
		this.outbox = outbox;
	}

	/**
	 * Sets whether writes are observed ({@link DelayQueueObservation#TEMPLATE}) through the
	 * {@link #setObservationRegistry registry}. Off by default.
	 * @param observationEnabled {@code true} to observe them
	 */
	public void setObservationEnabled(boolean observationEnabled) {
		this.observations.setEnabled(observationEnabled);
	}

	/**
	 * Sets the registry the observations go to.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observations.setRegistry(observationRegistry);
	}

	/**
	 * Sets a convention of its own for the observations; {@code null} (the default) uses
	 * {@link DefaultDelayedJobTemplateObservationConvention}.
	 * @param observationConvention the convention, or {@code null}
	 */
	public void setObservationConvention(@Nullable DelayedJobTemplateObservationConvention observationConvention) {
		this.observations.setConvention(observationConvention);
	}

	private @Nullable AfterCommitWrites transactionWrites() {
		return this.afterCommit ? AfterCommitWrites.current(this, this.operations, this.outbox) : null;
	}

	/**
	 * Applies a write now, or holds it back in the current transaction (checked first: a
	 * schedule over the size limit fails here, in the transaction).
	 * @return what the write returned, or {@code afterCommit} when it was held back
	 */
	private <T> Written<T> write(JobWrite write, T afterCommit) {
		AfterCommitWrites writes = transactionWrites();
		if (writes == null) {
			return new Written<>(cast(write.applyTo(this.operations)), false);
		}
		if (write instanceof JobWrite.Schedule schedule) {
			this.operations.check(schedule.request());
		}
		Object result = writes.add(write, null);
		return (result != null) ? new Written<>(cast(result), false) : new Written<>(afterCommit, true);
	}

	@SuppressWarnings("unchecked")
	private static <T> T cast(Object result) {
		return (T) result;
	}

	/**
	 * The operations underneath, with the consumer and admin APIs.
	 * @return the operations
	 */
	public DelayQueueOperations getOperations() {
		return this.operations;
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Waits up to 30 seconds until the jobs scheduled asynchronously so far are written: the
	 * application context calls it when it closes, before the Redis connection factory stops.
	 * Asynchronous schedules are still taken afterwards.
	 */
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
	 * are written; those still waiting then fail. The blocking methods keep working.
	 */
	@Override
	public void close() {
		this.batcher.close();
	}

}
