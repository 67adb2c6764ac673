package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.github.delayqueue.micrometer.DefaultDelayedJobTemplateObservationConvention;
import io.github.delayqueue.micrometer.DelayQueueObservation;
import io.github.delayqueue.micrometer.DelayedJobSenderContext;
import io.github.delayqueue.micrometer.DelayedJobTemplateObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * The producer API: schedule, cancel, reschedule, find and replay delayed jobs.
 *
 * <pre class="code">
 * // close the order in 30 minutes unless it is paid first
 * template.schedule("order-close", orderId, new OrderClose(orderId), Duration.ofMinutes(30));
 * // paid: the job is not needed any more
 * template.cancel("order-close", orderId);
 * </pre>
 *
 * <p>
 * A job is identified by its topic and id. Scheduling a job whose topic and id already exist
 * keeps the existing one and returns {@code false} (checked atomically, so concurrent
 * producers create exactly one job); {@link JobBuilder#replaceExisting()} replaces it.
 * Due times are computed by Redis's clock, never the application's.
 *
 * <p>
 * Payloads are written by the {@link JobPayloadConverter} (plain JSON by default; a
 * {@code String} or {@code byte[]} is stored as is).
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
 * setAfterCommit(false)}, every call writes at once. Reads and {@code replayDead} never wait.
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
 * Every method checks its arguments ({@link JobConstraints}) and throws
 * {@link IllegalArgumentException} naming the field and the rule without touching Redis; a
 * Redis outage is a {@link DelayQueueConnectionException}. Thread-safe.
 */
public class DelayedJobTemplate implements SmartLifecycle, AutoCloseable {

	/**
	 * The lifecycle phase: stopped after the listener containers and the queue (which may
	 * still schedule jobs while they stop) and before the Redis connection factory.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 4096;

	/** How long {@link #stop()} and {@link #close()} wait for asynchronous schedules to be written. */
	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(DelayedJobTemplate.class);

	private final DelayQueueOperations operations;

	private final JobPayloadConverter converter;

	private final ScheduleBatcher batcher;

	private volatile boolean running;

	private volatile boolean afterCommit = true;

	private volatile @Nullable JobOutbox outbox;

	private volatile boolean observationEnabled;

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable DelayedJobTemplateObservationConvention observationConvention;

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
	}

	/**
	 * Schedules a job {@code delay} from now (Redis's now), with the default TTR and
	 * attempts.
	 * @param topic the topic, such as {@code "order-close"}
	 * @param id the business id, unique within the topic
	 * @param payload the payload (an object written as JSON, a String or a byte[])
	 * @param delay the delay; zero or negative makes the job READY at once
	 * @return {@code true} when created, {@code false} when a job with this topic and id
	 * exists and was kept; {@code true} in a transaction, where the job is written after the
	 * commit
	 */
	public boolean schedule(String topic, String id, Object payload, Duration delay) {
		return job(topic, id).payload(payload).delay(delay).schedule().created();
	}

	/**
	 * Schedules a job at an absolute time (compared with Redis's clock).
	 * @param topic the topic
	 * @param id the business id, unique within the topic
	 * @param payload the payload
	 * @param dueAt when the job is due; a past instant makes it READY at once
	 * @return {@code true} when created, {@code false} when a job with this topic and id
	 * exists and was kept; {@code true} in a transaction, where the job is written after the
	 * commit
	 */
	public boolean scheduleAt(String topic, String id, Object payload, Instant dueAt) {
		return job(topic, id).payload(payload).dueAt(dueAt).schedule().created();
	}

	/**
	 * Starts a job with every option: TTR, attempts, what to do with a duplicate.
	 * @param topic the topic
	 * @param id the business id
	 * @return a builder; nothing is sent until {@link JobBuilder#schedule()}
	 */
	public JobBuilder job(String topic, String id) {
		return new JobBuilder(topic, id);
	}

	/**
	 * Schedules many jobs in one pipelined round trip. Every job is checked first: one bad
	 * job schedules none.
	 * @param jobs the jobs, built with {@link #job(String, String)}
	 * @return one result per job, in order ({@link ScheduleResult#AFTER_COMMIT} each in a
	 * transaction)
	 */
	public List<ScheduleResult> scheduleAll(Collection<JobBuilder> jobs) {
		Assert.notNull(jobs, "jobs must not be null");
		List<ScheduleRequest> requests = new ArrayList<>(jobs.size());
		for (JobBuilder job : jobs) {
			requests.add(job.toRequest());
		}
		// the batch's topic names its observation only: not computed when none is made
		String topic = isObserved() ? requests.stream()
			.map(ScheduleRequest::topic)
			.distinct()
			.reduce((one, other) -> "mixed")
			.orElse("none") : "";
		return observe("schedule-all", topic, null, requests.size(), (trace) -> {
			List<ScheduleRequest> traced = trace.isEmpty() ? requests
					: requests.stream().map((request) -> traced(request, trace)).toList();
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
		}, DelayedJobTemplate::outcomeOf);
	}

	/**
	 * Cancels a job in any state.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code true} when a job was removed, {@code false} when there was none;
	 * {@code true} in a transaction, where the job is cancelled after the commit
	 */
	public boolean cancel(String topic, String id) {
		JobWrite.Cancel cancel = new JobWrite.Cancel(topic, id);
		return observe("cancel", topic, id, 1, (trace) -> write(cancel, Boolean.TRUE),
				(cancelled) -> cancelled ? "cancelled" : "not-found");
	}

	/**
	 * Moves a waiting (DELAYED or READY) job to {@code delay} from now.
	 * @param topic the topic
	 * @param id the job id
	 * @param delay the new delay
	 * @return what happened; {@link RescheduleResult#AFTER_COMMIT} in a transaction
	 */
	public RescheduleResult reschedule(String topic, String id, Duration delay) {
		return reschedule(new JobWrite.Reschedule(topic, id, delay, null));
	}

	/**
	 * Moves a waiting (DELAYED or READY) job to an absolute due time.
	 * @param topic the topic
	 * @param id the job id
	 * @param dueAt the new due time
	 * @return what happened; {@link RescheduleResult#AFTER_COMMIT} in a transaction
	 */
	public RescheduleResult rescheduleAt(String topic, String id, Instant dueAt) {
		return reschedule(new JobWrite.Reschedule(topic, id, null, dueAt));
	}

	private RescheduleResult reschedule(JobWrite.Reschedule reschedule) {
		return observe("reschedule", reschedule.topic(), reschedule.id(), 1,
				(trace) -> write(reschedule, RescheduleResult.AFTER_COMMIT),
				(result) -> result.name().toLowerCase(Locale.ROOT).replace('_', '-'));
	}

	/**
	 * Reads a job: state, due time, attempts, last error; for a finished job its topic keeps
	 * ({@link Retention}), {@link JobState#COMPLETED} with its finish time and run time.
	 * @param topic the topic
	 * @param id the job id
	 * @return the job, or empty when there is none
	 */
	public Optional<JobInfo> find(String topic, String id) {
		return this.operations.find(topic, id);
	}

	/**
	 * Makes up to {@code max} DEAD jobs of a topic READY again, attempts reset.
	 * @param topic the topic
	 * @param max the most jobs to replay
	 * @return how many were replayed
	 */
	public int replayDead(String topic, int max) {
		return this.operations.replayDead(topic, max);
	}

	/**
	 * Makes one DEAD job READY again, attempts reset.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code true} when the job was DEAD and was replayed
	 */
	public boolean replayDead(String topic, String id) {
		return this.operations.replayDead(topic, id);
	}

	/**
	 * Reads a page of a topic's DEAD jobs with their payloads, the oldest deaths first.
	 * @param topic the topic
	 * @param cursor {@code null} for the first page, else the {@link DeadJobPage#next()} of
	 * the page before
	 * @param limit the most jobs to read (1 to {@value DelayQueueOperations#MAX_DEAD_PAGE})
	 * @return the page
	 */
	public DeadJobPage deadJobs(String topic, @Nullable String cursor, int limit) {
		return this.operations.deadJobs(topic, cursor, limit, true);
	}

	/**
	 * Reads a page of the finished jobs a topic keeps ({@link Retention}), with their
	 * payloads where the topic keeps them, the latest finish first.
	 * @param topic the topic
	 * @param cursor {@code null} for the first page, else the {@link CompletedJobPage#next()}
	 * of the page before
	 * @param limit the most jobs to read (1 to {@value DelayQueueOperations#MAX_DEAD_PAGE})
	 * @return the page
	 */
	public CompletedJobPage completedJobs(String topic, @Nullable String cursor, int limit) {
		return this.operations.completedJobs(topic, cursor, limit, true);
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
		this.observationEnabled = observationEnabled;
	}

	/**
	 * Sets the registry the observations go to.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "observationRegistry must not be null");
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Sets a convention of its own for the observations; {@code null} (the default) uses
	 * {@link DefaultDelayedJobTemplateObservationConvention}.
	 * @param observationConvention the convention, or {@code null}
	 */
	public void setObservationConvention(@Nullable DelayedJobTemplateObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Runs a write as an observation when observations are on. The write gets the trace
	 * headers to store with its jobs: empty unless another observation was current.
	 */
	private <T> T observe(String operation, String topic, @Nullable String id, int jobs,
			Function<Map<String, String>, Written<T>> write, Function<T, String> outcome) {
		if (!isObserved()) {
			return write.apply(Map.of()).result();
		}
		ObservationRegistry registry = this.observationRegistry;
		boolean traced = registry.getCurrentObservation() != null;
		DelayedJobSenderContext context = new DelayedJobSenderContext(operation, topic, id, jobs);
		Observation observation = start(registry, context);
		if (observation == null) {
			return write.apply(Map.of()).result();
		}
		Written<T> written;
		try (Observation.Scope scope = openScope(observation)) {
			written = write.apply(traced ? context.getTraceHeaders() : Map.of());
		}
		catch (RuntimeException | Error ex) {
			error(observation, ex);
			stop(observation);
			throw ex;
		}
		context.setOutcome(written.afterCommit() ? "after-commit" : outcome.apply(written.result()));
		stop(observation);
		return written.result();
	}

	/**
	 * Starts a template observation.
	 * @return the observation, or {@code null} when the tracer failed: a write never fails
	 * for its observation
	 */
	private @Nullable Observation start(ObservationRegistry registry, DelayedJobSenderContext context) {
		try {
			return DelayQueueObservation.TEMPLATE
				.observation(this.observationConvention, DefaultDelayedJobTemplateObservationConvention.INSTANCE,
						() -> context, registry)
				.start();
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not start; the write goes on without it", ex);
			return null;
		}
	}

	private static Observation.Scope openScope(Observation observation) {
		try {
			return observation.openScope();
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not open its scope", ex);
			return Observation.Scope.NOOP;
		}
	}

	private static void error(Observation observation, Throwable failure) {
		try {
			observation.error(failure);
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not take its error", ex);
		}
	}

	private static void stop(Observation observation) {
		try {
			observation.stop();
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not stop", ex);
		}
	}

	private boolean isObserved() {
		return this.observationEnabled && !this.observationRegistry.isNoop();
	}

	private static String outcomeOf(ScheduleResult result) {
		if (result.afterCommit()) {
			return "after-commit";
		}
		return result.created() ? "created" : "kept";
	}

	private static String outcomeOf(List<ScheduleResult> results) {
		return results.stream().map(DelayedJobTemplate::outcomeOf).distinct().reduce((one, other) -> "mixed").orElse("none");
	}

	/**
	 * The request with the trace headers it has room for; those the job sets itself win.
	 */
	private ScheduleRequest traced(ScheduleRequest request, Map<String, String> trace) {
		if (trace.isEmpty()) {
			return request;
		}
		Map<String, String> headers = new LinkedHashMap<>(request.headers());
		trace.forEach(headers::putIfAbsent);
		try {
			ScheduleRequest traced = new ScheduleRequest(request.topic(), request.id(), request.payload(),
					request.delay(), request.dueAt(), request.ttr(), request.maxAttempts(), request.onDuplicate(),
					headers, request.priority());
			// the trace headers count against the size limit: without room, none
			this.operations.check(traced);
			return traced;
		}
		catch (IllegalArgumentException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Job " + request.id() + " of topic " + request.topic()
						+ " is stored without its trace headers " + trace.keySet() + ": " + ex.getMessage());
			}
			return request;
		}
	}

	/**
	 * Runs an asynchronous schedule as an observation that ends when its future completes.
	 */
	private CompletableFuture<ScheduleResult> observeAsync(ScheduleRequest request,
			Function<Map<String, String>, CompletableFuture<ScheduleResult>> submit) {
		if (!isObserved()) {
			return submit.apply(Map.of());
		}
		ObservationRegistry registry = this.observationRegistry;
		boolean traced = registry.getCurrentObservation() != null;
		DelayedJobSenderContext context = new DelayedJobSenderContext("schedule-async", request.topic(), request.id(),
				1);
		Observation observation = start(registry, context);
		if (observation == null) {
			return submit.apply(Map.of());
		}
		CompletableFuture<ScheduleResult> result;
		try (Observation.Scope scope = openScope(observation)) {
			result = submit.apply(traced ? context.getTraceHeaders() : Map.of());
		}
		catch (RuntimeException | Error ex) {
			error(observation, ex);
			stop(observation);
			throw ex;
		}
		return result.whenComplete((written, failure) -> {
			if (failure instanceof CancellationException) {
				context.setOutcome("rolled-back");
			}
			else if (failure != null) {
				error(observation, failure);
			}
			else {
				context.setOutcome(outcomeOf(written));
			}
			stop(observation);
		});
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
	 * What a write returned, and whether it waits for its transaction's commit.
	 */
	private record Written<T>(T result, boolean afterCommit) {

	}

	/**
	 * The operations underneath, with the consumer API.
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

	/**
	 * One job with all its options. Not thread-safe; build and schedule on one thread.
	 */
	public final class JobBuilder {

		private final String topic;

		private final String id;

		private @Nullable Object payload;

		private @Nullable Duration delay;

		private @Nullable Instant dueAt;

		private @Nullable Duration ttr;

		private @Nullable Integer maxAttempts;

		private @Nullable Integer priority;


		private OnDuplicate onDuplicate = OnDuplicate.KEEP;

		private final Map<String, String> headers = new LinkedHashMap<>();

		private JobBuilder(String topic, String id) {
			this.topic = topic;
			this.id = id;
		}

		/**
		 * The payload: an object written as JSON, a String or a byte[] stored as is.
		 * @param payload the payload, not null
		 * @return this builder
		 */
		public JobBuilder payload(Object payload) {
			this.payload = payload;
			return this;
		}

		/**
		 * Due {@code delay} after Redis's now (replaces a {@link #dueAt}).
		 * @param delay the delay
		 * @return this builder
		 */
		public JobBuilder delay(Duration delay) {
			this.delay = JobConstraints.notNull("delay", delay);
			this.dueAt = null;
			return this;
		}

		/**
		 * Due at an absolute time (replaces a {@link #delay}).
		 * @param dueAt the due time
		 * @return this builder
		 */
		public JobBuilder dueAt(Instant dueAt) {
			this.dueAt = JobConstraints.notNull("dueAt", dueAt);
			this.delay = null;
			return this;
		}

		/**
		 * How long a consumer may hold the job before it is delivered again.
		 * @param ttr the time-to-run
		 * @return this builder
		 */
		public JobBuilder ttr(Duration ttr) {
			this.ttr = JobConstraints.ttr(ttr);
			return this;
		}

		/**
		 * How many deliveries the job gets before it is DEAD.
		 * @param maxAttempts at least 1
		 * @return this builder
		 */
		public JobBuilder maxAttempts(int maxAttempts) {
			this.maxAttempts = JobConstraints.maxAttempts(maxAttempts);
			return this;
		}

		/**
		 * The job's priority: among the READY jobs of its topic in its bucket, a higher one is
		 * handed out first, FIFO within one priority; retries and replays keep it.
		 * @param priority {@value JobConstraints#MIN_PRIORITY} (lowest) to
		 * {@value JobConstraints#MAX_PRIORITY} (highest); {@value JobConstraints#DEFAULT_PRIORITY}
		 * when not set
		 * @return this builder
		 */
		public JobBuilder priority(int priority) {
			this.priority = JobConstraints.priority(priority);
			return this;
		}

		/**
		 * What to do when a job with this topic and id exists.
		 * @param onDuplicate keep (the default) or replace
		 * @return this builder
		 */
		public JobBuilder onDuplicate(OnDuplicate onDuplicate) {
			this.onDuplicate = JobConstraints.notNull("onDuplicate", onDuplicate);
			return this;
		}

		/**
		 * Adds a header stored with the job, such as a tenant or a correlation id: a listener
		 * reads it with {@code @Header("tenant")}, a {@code Message<T>} parameter or
		 * {@code DelayedJob.headers()}. Checked here: at most {@value JobConstraints#MAX_HEADERS}
		 * headers; names of letters, digits, {@code _ - .} (not {@code id}, {@code timestamp}
		 * or starting with {@code delayqueue_}); values without control characters, at most
		 * {@value JobConstraints#MAX_HEADER_VALUE_LENGTH} characters. A job without headers
		 * stores nothing for them; each header costs its name and value plus two bytes (and a
		 * job with any, five bytes more), counted with the payload against
		 * {@code delayqueue.max-payload-size}.
		 * @param name the name
		 * @param value the value
		 * @return this builder
		 */
		public JobBuilder header(String name, String value) {
			// a singleton map takes null, which the rules then refuse with the header's name
			return headers(Collections.singletonMap(name, value));
		}

		/**
		 * Adds headers, as {@link #header} does for each.
		 * @param headers the headers
		 * @return this builder
		 */
		public JobBuilder headers(Map<String, String> headers) {
			Map<String, String> next = new LinkedHashMap<>(this.headers);
			next.putAll(JobConstraints.notNull("headers", headers));
			JobConstraints.headers(next);
			this.headers.putAll(headers);
			return this;
		}

		/**
		 * Replaces an existing job with this topic and id.
		 * @return this builder
		 */
		public JobBuilder replaceExisting() {
			return onDuplicate(OnDuplicate.REPLACE);
		}

		/**
		 * Schedules the job.
		 * @return whether it was created, and the state and due time of the job in the queue;
		 * {@link ScheduleResult#AFTER_COMMIT} in a transaction, where the job is written after
		 * the commit
		 */
		public ScheduleResult schedule() {
			ScheduleRequest request = toRequest();
			return observe("schedule", request.topic(), request.id(), 1,
					(trace) -> write(new JobWrite.Schedule(traced(request, trace)), ScheduleResult.AFTER_COMMIT),
					DelayedJobTemplate::outcomeOf);
		}

		/**
		 * Schedules the job without waiting for Redis: the job is checked and its payload
		 * written now (a broken rule throws {@link IllegalArgumentException} here), then it
		 * joins the next batch that the template writes with
		 * {@link DelayQueueOperations#scheduleAll}. Jobs scheduled asynchronously from one
		 * thread are written in that order. At most 10,000 jobs wait to be written; beyond
		 * that this method blocks until there is room. The future completes with the same
		 * result as {@link #schedule()} once Redis acknowledged the job, or exceptionally
		 * with what {@code schedule()} would have thrown (such as
		 * {@link DelayQueueConnectionException}); only a completed future means the job is
		 * stored. In a transaction the job is written after the commit, by the committing
		 * thread, and the future completes then; a rollback cancels it.
		 * @return the result, once the job is written
		 * @throws IllegalStateException when the template is closed
		 */
		public CompletableFuture<ScheduleResult> scheduleAsync() {
			ScheduleRequest request = toRequest();
			return observeAsync(request, (trace) -> {
				ScheduleRequest traced = traced(request, trace);
				AfterCommitWrites writes = transactionWrites();
				if (writes == null) {
					return DelayedJobTemplate.this.batcher.submit(traced);
				}
				DelayedJobTemplate.this.batcher.checkOpen();
				DelayedJobTemplate.this.operations.check(traced);
				CompletableFuture<ScheduleResult> written = new CompletableFuture<>();
				writes.add(new JobWrite.Schedule(traced), written);
				return written;
			});
		}

		ScheduleRequest toRequest() {
			JobConstraints.topic(this.topic);
			JobConstraints.id(this.id);
			JobConstraints.notNull("payload", this.payload);
			if (this.delay == null && this.dueAt == null) {
				throw new IllegalArgumentException("delay or dueAt must be given");
			}
			return new ScheduleRequest(this.topic, this.id, DelayedJobTemplate.this.converter.write(this.payload),
					this.delay, this.dueAt, this.ttr, this.maxAttempts, this.onDuplicate, this.headers, this.priority);
		}

	}

}
