package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * One job with all its options. Not thread-safe; build and schedule on one thread.
 */
public final class JobBuilder {

	private final DelayedJobOperations operations;

	private final String topic;

	private final String id;

	private @Nullable Object payload;

	private @Nullable Duration delay;

	private @Nullable Instant dueAt;

	private @Nullable Duration ttr;

	private @Nullable Integer maxAttempts;

	private @Nullable Integer priority;

	private OnDuplicate onDuplicate = OnDuplicate.KEEP;

	/** The headers added so far, checked: unmodifiable, in the order added. */
	private Map<String, String> headers = Map.of();

	/**
	 * Starts a job that {@link #schedule()} schedules through the given operations.
	 * @param operations the operations that schedule the job
	 * @param topic the topic
	 * @param id the business id
	 */
	public JobBuilder(DelayedJobOperations operations, String topic, String id) {
		Assert.notNull(operations, "operations must not be null");
		this.operations = operations;
		this.topic = topic;
		this.id = id;
	}

	/** The payload, not null: an object written as JSON, a String or a byte[] stored as is. */
	public JobBuilder payload(Object payload) {
		this.payload = payload;
		return this;
	}

	/** Due {@code delay} after Redis's now (replaces a {@link #dueAt}). */
	public JobBuilder delay(Duration delay) {
		this.delay = JobConstraints.notNull("delay", delay);
		this.dueAt = null;
		return this;
	}

	/** Due at an absolute time (replaces a {@link #delay}). */
	public JobBuilder dueAt(Instant dueAt) {
		this.dueAt = JobConstraints.notNull("dueAt", dueAt);
		this.delay = null;
		return this;
	}

	/** The time-to-run: how long a consumer may hold the job before it is delivered again. */
	public JobBuilder ttr(Duration ttr) {
		this.ttr = JobConstraints.ttr(ttr);
		return this;
	}

	/** How many deliveries, at least 1, the job gets before it is DEAD. */
	public JobBuilder maxAttempts(int maxAttempts) {
		this.maxAttempts = JobConstraints.maxAttempts(maxAttempts);
		return this;
	}

	/**
	 * The job's priority, {@value JobConstraints#MIN_PRIORITY} (lowest) to {@value JobConstraints#MAX_PRIORITY}
	 * ({@value JobConstraints#DEFAULT_PRIORITY} when not set): a higher one is handed out first among the READY
	 * jobs of its topic.
	 */
	public JobBuilder priority(int priority) {
		this.priority = JobConstraints.priority(priority);
		return this;
	}

	/**
	 * Adds a header stored with the job and given to its listener, checked by
	 * {@link JobConstraints#headers}; it counts against {@code delayqueue.max-payload-size}.
	 */
	public JobBuilder header(String name, String value) {
		// a singleton map takes null, which the rules then refuse with the header's name
		return headers(Collections.singletonMap(name, value));
	}

	/** Adds headers, as {@link #header} does for each. */
	public JobBuilder headers(Map<String, String> headers) {
		Map<String, String> next = new LinkedHashMap<>(this.headers);
		next.putAll(JobConstraints.notNull("headers", headers));
		this.headers = JobConstraints.headers(next);
		return this;
	}

	/** Replaces an existing job with this topic and id. */
	public JobBuilder replaceExisting() {
		this.onDuplicate = OnDuplicate.REPLACE;
		return this;
	}

	/**
	 * Schedules the job.
	 * @return whether it was created, and the job's state and due time;
	 * {@link ScheduleResult#AFTER_COMMIT} in a transaction
	 */
	public ScheduleResult schedule() {
		return this.operations.schedule(this);
	}

	/**
	 * Schedules the job without waiting for Redis: it is checked now and written with the
	 * next batch, in this thread's order; blocks while 10,000 jobs wait. In a transaction it
	 * is written after the commit, and a rollback cancels the future.
	 * @return completed with the result once the job is stored, or exceptionally
	 * @throws IllegalStateException when the template is closed
	 */
	public CompletableFuture<ScheduleResult> scheduleAsync() {
		return this.operations.scheduleAsync(this);
	}

	/** The topic. */
	public String topic() {
		return this.topic;
	}

	/** The job id. */
	public String id() {
		return this.id;
	}

	/** The payload set so far, or {@code null}. */
	public @Nullable Object payload() {
		return this.payload;
	}

	/** The delay set so far, or {@code null} when none was set or a {@link #dueAt} replaced it. */
	public @Nullable Duration delay() {
		return this.delay;
	}

	/** The due time set so far, or {@code null} when none was set or a {@link #delay} replaced it. */
	public @Nullable Instant dueAt() {
		return this.dueAt;
	}

	/** The time-to-run set so far, or {@code null} for the queue's default. */
	public @Nullable Duration ttr() {
		return this.ttr;
	}

	/** The attempts limit set so far, or {@code null} for the queue's default. */
	public @Nullable Integer maxAttempts() {
		return this.maxAttempts;
	}

	/** The priority set so far, or {@code null} for the default. */
	public @Nullable Integer priority() {
		return this.priority;
	}

	/** The duplicate policy: {@link OnDuplicate#REPLACE} after {@link #replaceExisting()}, else KEEP. */
	public OnDuplicate onDuplicate() {
		return this.onDuplicate;
	}

	/** The headers added so far, unmodifiable. */
	public Map<String, String> headers() {
		return this.headers;
	}

	/** The job as a request, its payload written by the given converter. */
	ScheduleRequest toRequest(JobPayloadConverter converter) {
		JobConstraints.notNull("payload", this.payload);
		return new ScheduleRequest(this.topic, this.id, converter.write(this.payload),
				this.delay, this.dueAt, this.ttr, this.maxAttempts, this.onDuplicate, this.headers, this.priority);
	}

}
