package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Runs one listener method for one topic: a consumer thread waits for work without
 * polling, reserves at most as many jobs as it has free slots, and hands each to the
 * handler executor. Outcomes: return → finish; any {@link Throwable} (an exception or an
 * {@link Error} such as {@link AssertionError}) → retry after the back-off; attempts used up
 * or not retryable → the {@link DelayedJobRecoverer}. Retry or recover is decided with the
 * job's {@link ReservedJob#maxAttempts()}: the listener's {@code maxAttempts}, when set, is
 * passed to the reservation and so stored with the job, and Redis makes a job DEAD by the
 * same limit when a failure or a TTR expiry uses up its last attempt.
 *
 * <p>
 * A handler thread finishes its jobs and reserves the next ones of the same bucket in one
 * call ({@link DelayQueueOperations#finishAndReserve}) and runs them: as many as its handlers
 * run in about {@link #BATCH_BUDGET_NANOS} on average (one for slow handlers), so that under
 * load a round trip to Redis serves many jobs, while a slow handler holds no job another
 * thread could run. A successful job is finished when the jobs taken with it have run; when
 * a batch runs longer than {@link #SETTLE_AFTER_NANOS} (or half the shortest TTR of its jobs),
 * a settler thread finishes what succeeded so far and gives back the jobs not started yet,
 * while the job that runs goes on: a handler that stalls neither lets finished jobs outlive
 * their TTR (and run twice) nor holds jobs that another consumer could run.
 *
 * <p>
 * The consumer loop outlives any failure of a Redis call (errors included): it logs, backs
 * off exponentially from 100 ms to 5 s, and retries; {@link #getLastProgressNanos()} stands
 * still meanwhile, so that health checks see it. {@link #stop(Runnable)} stops reserving,
 * lets running handlers finish within the shutdown timeout and gives jobs that were reserved
 * but not started back at once (READY again, attempt not counted). Not a bean: the
 * {@link io.github.delayqueue.config.DelayedListenerEndpointRegistry} manages containers.
 * Thread-safe.
 */
public class DelayedListenerContainer {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	private static final Duration WAIT = Duration.ofSeconds(1);

	/** The most jobs a handler thread takes at once. */
	static final int MAX_BATCH = 32;

	/** How long, on average, the handlers of one batch may run together. */
	static final long BATCH_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	/**
	 * How long a batch may run before what succeeded is finished and what has not started is
	 * given back (or half the shortest TTR of its jobs, when that is less).
	 */
	static final long SETTLE_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private final Settings settings;

	private final DelayQueueOperations operations;

	private final JobInvoker invoker;

	private final BackOff errorBackOff = errorBackOff();

	private Semaphore slots;

	private final Object pauseMonitor = new Object();

	private volatile boolean running;

	private volatile boolean stopping;

	private volatile boolean paused;

	private volatile long lastProgressNanos = System.nanoTime();

	/** Moving average of handler run times; starts high, so the first batches are single jobs. */
	private volatile long averageHandlerNanos = BATCH_BUDGET_NANOS;

	private Thread consumer;

	private ExecutorService executor;

	private ScheduledThreadPoolExecutor settler;

	/**
	 * What a container needs to know.
	 *
	 * @param id the container id
	 * @param topic the topic
	 * @param concurrency how many handlers run at once
	 * @param ttr the reservation TTR, or {@code null} for each job's own
	 * @param maxAttempts the attempts, or {@code null} for each job's own; stored with each job
	 * this container reserves, so that it is the job's limit everywhere
	 * @param backOff the retry back-off
	 * @param noRetryFor exceptions that are never retried (conversion failures always are not)
	 * @param recoverer what to do with exhausted jobs, or {@code null} to dead-letter them in
	 * Redis
	 * @param shutdownTimeout how long stop waits for running handlers
	 * @param threadFactory makes the consumer thread and handler threads
	 * @param autoStartup whether the registry starts it with the context
	 * @param observer hears how each handler call went
	 */
	public record Settings(String id, String topic, int concurrency, Duration ttr, Integer maxAttempts,
			BackOff backOff, List<Class<? extends Throwable>> noRetryFor, DelayedJobRecoverer recoverer,
			Duration shutdownTimeout, ThreadFactory threadFactory, boolean autoStartup, DelayQueueObserver observer) {

	}

	/**
	 * Creates a container; a
	 * {@link io.github.delayqueue.config.DelayedListenerContainerFactory} makes them.
	 * @param settings what the container needs to know
	 * @param operations the queue it reserves from and settles with
	 * @param handler the listener method, with its arguments resolved from each job
	 */
	public DelayedListenerContainer(Settings settings, DelayQueueOperations operations, InvocableHandlerMethod handler) {
		this.settings = settings;
		this.operations = operations;
		this.invoker = new JobInvoker(settings, handler, new FailedJobHandler(settings, operations));
	}

	/**
	 * The container's id, unique in the registry.
	 * @return the id
	 */
	public String getId() {
		return this.settings.id();
	}

	/**
	 * The topic it consumes.
	 * @return the topic
	 */
	public String getTopic() {
		return this.settings.topic();
	}

	/**
	 * How many handlers may run at once.
	 * @return the concurrency
	 */
	public int getConcurrency() {
		return this.settings.concurrency();
	}

	/**
	 * How many handlers run now.
	 * @return the count
	 */
	public int getInFlight() {
		return this.invoker.inFlight();
	}

	/**
	 * Whether the container is started (paused or not).
	 * @return {@code true} from {@link #start()} until a stop begins
	 */
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Whether the registry starts the container with the context.
	 * @return the listener's {@code autoStartup}
	 */
	public boolean isAutoStartup() {
		return this.settings.autoStartup();
	}

	/**
	 * Whether the container is paused.
	 * @return {@code true} between {@link #pause()} and {@link #resume()}
	 */
	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * The state as the Actuator support shows it.
	 * @return {@code running}, {@code paused} (running, taking no new jobs) or {@code stopped}
	 */
	public String getState() {
		return !this.running ? "stopped" : this.paused ? "paused" : "running";
	}

	/**
	 * When the container last made progress, by {@link System#nanoTime()}: the consumer
	 * loop completed a round (a reserve, or a wait for work that timed out; about every
	 * second when idle or paused), or a handler returned. It stands still only while
	 * every handler slot is taken by a handler that does not return, or the loop is stuck or
	 * failing (every reserve throws: the loop backs off and retries, at most 5 s apart).
	 * @return the nano time
	 */
	public long getLastProgressNanos() {
		return this.lastProgressNanos;
	}

	/**
	 * Starts the consumer thread and the handler threads; does nothing when started
	 * already.
	 */
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.stopping = false;
		this.slots = new Semaphore(this.settings.concurrency());
		this.running = true;
		this.executor = Executors.newFixedThreadPool(this.settings.concurrency(),
				this.settings.threadFactory());
		// two threads per handler slot: a batch's settle that meets a slow Redis must not delay
		// the settle of another, such as the next batch of the same handler thread
		this.settler = new ScheduledThreadPoolExecutor(2 * this.settings.concurrency(), (task) -> {
			Thread thread = this.settings.threadFactory().newThread(task);
			thread.setName("delayqueue-" + this.settings.id() + "-settler");
			return thread;
		});
		this.settler.setRemoveOnCancelPolicy(true);
		this.consumer = this.settings.threadFactory().newThread(this::consume);
		this.consumer.setName("delayqueue-" + this.settings.id());
		this.consumer.start();
		logger.info("Started listener '" + this.settings.id() + "' on topic '" + this.settings.topic()
				+ "' with concurrency " + this.settings.concurrency());
	}

	/**
	 * Stops taking new jobs until {@link #resume()}; running handlers go on. Jobs that a
	 * reserve under way at that moment returns are given back unstarted.
	 */
	public void pause() {
		this.paused = true;
	}

	/**
	 * Takes jobs again after {@link #pause()}.
	 */
	public void resume() {
		this.paused = false;
		synchronized (this.pauseMonitor) {
			this.pauseMonitor.notifyAll();
		}
	}

	/**
	 * Stops as {@link #stop(Runnable)} does, without a callback.
	 */
	public void stop() {
		stop(() -> {
		});
	}

	/**
	 * Stops reserving, waits for running handlers up to the shutdown timeout, gives back
	 * jobs that were reserved but not started, then runs the callback.
	 * @param callback run when stopped
	 */
	public void stop(Runnable callback) {
		Thread consumerThread;
		ExecutorService handlers;
		ScheduledThreadPoolExecutor settlers;
		synchronized (this) {
			if (!this.running) {
				callback.run();
				return;
			}
			this.running = false;
			this.stopping = true;
			consumerThread = this.consumer;
			handlers = this.executor;
			settlers = this.settler;
		}
		// wake the consumer without interrupting a reserve call in flight
		this.slots.release(this.settings.concurrency());
		resume();
		try {
			consumerThread.join(WAIT.toMillis() * 5);
			if (consumerThread.isAlive()) {
				consumerThread.interrupt();
				consumerThread.join(WAIT.toMillis());
			}
			handlers.shutdown();
			if (!handlers.awaitTermination(this.settings.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("Listener '" + this.settings.id() + "': handlers still running after "
						+ this.settings.shutdownTimeout() + "; interrupting them (their jobs are redelivered after TTR)");
				handlers.shutdownNow();
			}
			// a batch settled early may still be finishing its jobs
			settlers.shutdown();
			if (!settlers.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				settlers.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			handlers.shutdownNow();
			settlers.shutdownNow();
		}
		finally {
			callback.run();
		}
	}

	private void consume() {
		BackOffExecution backOff = null;
		while (this.running) {
			try {
				awaitResume();
				this.slots.acquire();
				int free = 1 + this.slots.drainPermits();
				List<ReservedJob> jobs = List.of();
				try {
					if (isTaking() && this.operations.awaitWork(this.settings.topic(), WAIT) && isTaking()) {
						jobs = this.operations.reserve(this.settings.topic(), free, this.settings.ttr(),
								this.settings.maxAttempts());
					}
				}
				finally {
					this.slots.release(free - jobs.size());
				}
				dispatch(jobs);
				this.lastProgressNanos = System.nanoTime();
				if (backOff != null) {
					logger.info("Listener '" + this.settings.id() + "' reserves jobs of topic '"
							+ this.settings.topic() + "' again");
					backOff = null;
				}
			}
			catch (InterruptedException ex) {
				if (!this.running) {
					return;
				}
			}
			catch (Throwable ex) {
				// an Error from a Redis client (a class missing at run time, a stack overflow)
				// must not end the loop either: nothing else would reserve this topic's jobs
				if (!this.running) {
					return;
				}
				boolean first = (backOff == null);
				if (first) {
					backOff = this.errorBackOff.start();
				}
				long wait = backOff.nextBackOff();
				String message = "Listener '" + this.settings.id() + "' could not reserve jobs of topic '"
						+ this.settings.topic() + "'; retrying in " + wait + " ms";
				if (first) {
					logger.warn(message, ex);
				}
				else {
					logger.warn(message + ": " + ex);
				}
				try {
					Thread.sleep(wait);
				}
				catch (InterruptedException interrupted) {
					if (!this.running) {
						return;
					}
				}
			}
		}
	}

	/**
	 * Hands reserved jobs to handler threads (a free slot for each was taken); gives back
	 * those that cannot start: the container was paused or stopped while the reserve was
	 * under way, or the executor takes no more work.
	 */
	private void dispatch(List<ReservedJob> jobs) {
		for (ReservedJob job : jobs) {
			if (!isTaking() || !execute(job)) {
				giveBack(job);
				this.slots.release();
			}
		}
	}

	private boolean execute(ReservedJob job) {
		try {
			this.executor.execute(() -> run(job));
			return true;
		}
		catch (Throwable ex) {
			logger.warn("Listener '" + this.settings.id() + "' could not start a handler for job " + job.id()
					+ " of topic " + job.topic() + "; giving it back: " + ex);
			return false;
		}
	}

	/**
	 * The back-off of the consumer loop after a failure: 100 ms, doubling, at most 5 s.
	 */
	private static BackOff errorBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(100, 2);
		backOff.setMaxInterval(5_000);
		return backOff;
	}

	private boolean isTaking() {
		return this.running && !this.paused;
	}

	private void awaitResume() throws InterruptedException {
		synchronized (this.pauseMonitor) {
			while (this.paused && this.running) {
				this.pauseMonitor.wait(WAIT.toMillis());
				this.lastProgressNanos = System.nanoTime();
			}
		}
	}

	/**
	 * Runs a job on a handler thread, then the jobs that finishing it reserved, while this
	 * container is taking work: the slot stays taken until no job follows.
	 */
	private void run(ReservedJob first) {
		try {
			List<ReservedJob> jobs = List.of(first);
			boolean chained = false;
			while (!jobs.isEmpty()) {
				jobs = runBatch(new JobBatch(jobs, System.nanoTime()), chained);
				chained = true;
			}
		}
		finally {
			this.slots.release();
		}
	}

	/**
	 * Runs the jobs of a batch one after the other, then finishes those that succeeded and,
	 * while this container takes work, reserves the next batch in the same call. A batch
	 * that runs long is settled early by the settler thread ({@link #settleEarly}).
	 * @return the next batch, possibly none
	 */
	private List<ReservedJob> runBatch(JobBatch batch, boolean chained) {
		ScheduledFuture<?> settle = (batch.size() > 1) ? scheduleSettle(batch) : null;
		try {
			for (ReservedJob job = batch.claimNext(); job != null; job = batch.claimNext()) {
				if (this.stopping || (chained && !isTaking())) {
					giveBack(job);
				}
				else if (expired(job, batch.receivedNanos())) {
					// the settler was late: a handler before it in the batch ran past this job's TTR,
					// so it may be delivered again already, and running it here as well would run it
					// twice. Give it back: unless the timer re-queued it already (the token is stale
					// then and nothing changes), it is READY at once without its attempt counted, not
					// left to expire (and on its last attempt to die without running)
					logger.warn("Listener '" + this.settings.id() + "' gives back job " + job.id() + " of topic "
							+ job.topic() + " unstarted: its TTR ran out while earlier jobs of its batch ran");
					giveBack(job);
				}
				else if (runJob(job)) {
					batch.succeeded(job);
				}
			}
		}
		finally {
			if (settle != null) {
				settle.cancel(false);
			}
		}
		List<ReservedJob> succeeded = batch.takeSucceeded();
		return succeeded.isEmpty() ? List.of() : finish(succeeded, isTaking() ? nextBatch() : 0);
	}

	private ScheduledFuture<?> scheduleSettle(JobBatch batch) {
		long delay = batch.settleAfterNanos(SETTLE_AFTER_NANOS) - (System.nanoTime() - batch.receivedNanos());
		try {
			return this.settler.schedule(() -> settleEarly(batch), Math.max(0, delay), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopped: the handler thread settles the batch itself when its job returns
			return null;
		}
	}

	/**
	 * Settles a batch that runs longer than planned while its current job still runs:
	 * finishes the jobs that succeeded, so that none outlives its TTR and runs a second time,
	 * and gives back the jobs not started, READY at once for any consumer, with no attempt
	 * used. Runs on the settler thread.
	 */
	private void settleEarly(JobBatch batch) {
		List<ReservedJob> unstarted = batch.takeUnstarted();
		List<ReservedJob> succeeded = batch.takeSucceeded();
		if (logger.isDebugEnabled()) {
			logger.debug("Listener '" + this.settings.id() + "' settles a batch running for "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - batch.receivedNanos()) + " ms: finishing "
					+ succeeded.size() + " job(s), giving back " + unstarted.size());
		}
		if (!succeeded.isEmpty()) {
			finish(succeeded, 0);
		}
		unstarted.forEach(this::giveBack);
	}

	/**
	 * Runs one job, and records the progress and the run time; never throws.
	 * @return {@code true} when it succeeded and is yet to be finished
	 */
	private boolean runJob(ReservedJob job) {
		long start = System.nanoTime();
		try {
			return this.invoker.invoke(job);
		}
		finally {
			long now = System.nanoTime();
			this.lastProgressNanos = now;
			learn(now - start);
		}
	}

	/**
	 * Whether a job's reservation ran out while it waited in its batch: its delivery time
	 * plus the time since the batch arrived (both Redis's clock from the reservation on).
	 */
	private static boolean expired(ReservedJob job, long receivedNanos) {
		long waitedMillis = (System.nanoTime() - receivedNanos) / 1_000_000;
		return !job.deliveredAt().plusMillis(waitedMillis).isBefore(job.reservedUntil());
	}

	/**
	 * Finishes successful jobs and reserves up to {@code next} jobs of the same bucket in the
	 * same call, for this handler thread to run; never throws.
	 */
	private List<ReservedJob> finish(List<ReservedJob> jobs, int next) {
		try {
			FinishResult result = this.operations.finishAndReserve(jobs, next, this.settings.ttr(),
					this.settings.maxAttempts());
			for (ReservedJob stale : result.stale()) {
				logger.warn("Listener '" + this.settings.id() + "' finished job " + stale.id() + " of topic "
						+ stale.topic() + " after its reservation was lost (TTR ran out, or it was cancelled or replaced)");
			}
			return result.next();
		}
		catch (Throwable ex) {
			logger.error("Listener '" + this.settings.id() + "' could not finish " + jobs.size() + " job(s) of topic "
					+ this.settings.topic() + " (they are redelivered after their TTR)", ex);
			return List.of();
		}
	}

	/**
	 * How many jobs a handler thread takes next: as many as its handlers run, on average,
	 * within {@link #BATCH_BUDGET_NANOS} (at least one, at most {@link #MAX_BATCH}). Fast
	 * handlers get batches, so that a round trip to Redis serves many jobs; a slow handler
	 * never holds jobs that another thread could be running.
	 */
	int nextBatch() {
		long average = Math.max(1, this.averageHandlerNanos);
		return (int) Math.max(1, Math.min(MAX_BATCH, BATCH_BUDGET_NANOS / average));
	}

	private void learn(long handlerNanos) {
		long average = this.averageHandlerNanos;
		this.averageHandlerNanos = average + (handlerNanos - average) / 8;
	}

	private void giveBack(ReservedJob job) {
		try {
			if (this.operations.release(job) && logger.isDebugEnabled()) {
				logger.debug("Gave back unstarted job " + job.id() + " of topic " + job.topic());
			}
		}
		catch (Throwable ex) {
			logger.warn("Listener '" + this.settings.id() + "' could not give back job " + job.id() + " of topic "
					+ job.topic() + " (it is redelivered after its TTR): " + ex);
		}
	}

	@Override
	public String toString() {
		return "DelayedListenerContainer[id=" + this.settings.id() + ", topic=" + this.settings.topic() + "]";
	}

}
