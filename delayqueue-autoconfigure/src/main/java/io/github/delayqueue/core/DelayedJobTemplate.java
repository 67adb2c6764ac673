package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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
 * {@code String} or {@code byte[]} is stored as is). Every method checks its arguments
 * ({@link JobConstraints}) and throws {@link IllegalArgumentException} naming the field and
 * the rule without touching Redis; a Redis outage is a {@link DelayQueueConnectionException}.
 * Thread-safe.
 */
public class DelayedJobTemplate implements SmartLifecycle, AutoCloseable {

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

	private volatile boolean running;

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
	 * exists and was kept
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
	 * exists and was kept
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
	 * @return one result per job, in order
	 */
	public List<ScheduleResult> scheduleAll(Collection<JobBuilder> jobs) {
		Assert.notNull(jobs, "jobs must not be null");
		List<ScheduleRequest> requests = new ArrayList<>(jobs.size());
		for (JobBuilder job : jobs) {
			requests.add(job.toRequest());
		}
		return this.operations.scheduleAll(requests);
	}

	/**
	 * Cancels a job in any state.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code true} when a job was removed, {@code false} when there was none
	 */
	public boolean cancel(String topic, String id) {
		return this.operations.cancel(topic, id);
	}

	/**
	 * Moves a waiting (DELAYED or READY) job to {@code delay} from now.
	 * @param topic the topic
	 * @param id the job id
	 * @param delay the new delay
	 * @return what happened
	 */
	public RescheduleResult reschedule(String topic, String id, Duration delay) {
		return this.operations.reschedule(topic, id, delay);
	}

	/**
	 * Moves a waiting (DELAYED or READY) job to an absolute due time.
	 * @param topic the topic
	 * @param id the job id
	 * @param dueAt the new due time
	 * @return what happened
	 */
	public RescheduleResult rescheduleAt(String topic, String id, Instant dueAt) {
		return this.operations.rescheduleAt(topic, id, dueAt);
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
		 * @return whether it was created, and the state and due time of the job in the queue
		 */
		public ScheduleResult schedule() {
			return DelayedJobTemplate.this.operations.schedule(toRequest());
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
		 * stored.
		 * @return the result, once the job is written
		 * @throws IllegalStateException when the template is closed
		 */
		public CompletableFuture<ScheduleResult> scheduleAsync() {
			return DelayedJobTemplate.this.batcher.submit(toRequest());
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
