package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * One run of a {@link DefaultDelayedListenerContainer}, from a start to the stop that follows:
 * the consumer thread waits for work, reserves at most as many jobs as handler slots are free
 * and hands each to a handler thread's {@link BatchRunner}. The loop outlives any failure,
 * backing off from {@value #ERROR_BACK_OFF_INITIAL_MILLIS} to {@value #ERROR_BACK_OFF_MAX_MILLIS} ms.
 */
final class ListenerConsumer {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	/** How long one wait for work, or for a resume, lasts before the loop looks again. */
	static final int WAIT_MILLIS = 1_000;

	/** The first back-off of the loop after a failure; it doubles with each one in a row. */
	static final int ERROR_BACK_OFF_INITIAL_MILLIS = 100;

	/** The longest back-off of the loop after a failure. */
	static final int ERROR_BACK_OFF_MAX_MILLIS = 5_000;

	private static final Duration WAIT = Duration.ofMillis(WAIT_MILLIS);

	private final BackOff errorBackOff = errorBackOff();

	private final DefaultDelayedListenerContainer container;

	private final ContainerProperties settings;

	private final DelayQueueOperations operations;

	private final Semaphore slots;

	private final ExecutorService handlers;

	private final ScheduledThreadPoolExecutor settlers;

	private final BatchRunner batches;

	private final Thread thread;

	private final JobInvoker invoker;

	// this run's own flag: a container started again while this run stops has another run
	private volatile boolean stopping;

	ListenerConsumer(DefaultDelayedListenerContainer container, DelayQueueOperations operations, JobInvoker invoker,
			BatchSize batchSize) {
		this.container = container;
		this.settings = container.getContainerProperties();
		this.operations = operations;
		this.invoker = invoker;
		this.slots = new Semaphore(this.settings.getConcurrency());
		this.handlers = Executors.newFixedThreadPool(this.settings.getConcurrency(), this::newOwnThread);
		// two per handler slot: a settle that meets a slow Redis must not delay the next one
		this.settlers = new ScheduledThreadPoolExecutor(2 * this.settings.getConcurrency(), (task) -> {
			Thread settler = newOwnThread(task);
			settler.setName("delayqueue-" + this.settings.getId() + "-settler");
			return settler;
		});
		this.settlers.setRemoveOnCancelPolicy(true);
		this.batches = new BatchRunner(container, this, operations, invoker, batchSize, this.settlers);
		this.thread = newOwnThread(this::consume);
		this.thread.setName("delayqueue-" + this.settings.getId());
	}

	void start() {
		this.thread.start();
	}

	/** A thread of this run that knows its container ({@link DelayedListenerContainer#isContainerThread()}). */
	private Thread newOwnThread(Runnable task) {
		DefaultDelayedListenerContainer container = this.container;
		return this.settings.getThreadFactory().newThread(() -> {
			DefaultDelayedListenerContainer.OWNER.set(container);
			try {
				task.run();
			}
			finally {
				DefaultDelayedListenerContainer.OWNER.remove();
			}
		});
	}

	/** Ends this run without interrupting a reserve in flight; {@link #shutdown()} then waits. */
	void beginStop() {
		this.stopping = true;
		this.slots.release(this.settings.getConcurrency());
	}

	/** Whether this run was stopped: jobs not started yet are given back. */
	boolean isStopping() {
		return this.stopping;
	}

	/** Whether new jobs may start: the run is not stopped and the container not paused. */
	boolean isTaking() {
		return !this.stopping && this.container.isTaking();
	}

	/** Waits for the consumer thread, the handlers (up to the shutdown timeout), then the settlers. */
	void shutdown() {
		try {
			this.thread.join(WAIT_MILLIS * 5);
			if (this.thread.isAlive()) {
				this.thread.interrupt();
				this.thread.join(WAIT_MILLIS);
			}
			this.handlers.shutdown();
			Duration timeout = this.settings.getShutdownTimeout();
			if (!this.handlers.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("Listener '" + this.settings.getId() + "': handlers still running after " + timeout
						+ "; interrupting them (their jobs are redelivered after TTR)");
				this.handlers.shutdownNow();
			}
			// a batch settled early may still be finishing its jobs
			this.settlers.shutdown();
			if (!this.settlers.awaitTermination(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
				this.settlers.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.handlers.shutdownNow();
			this.settlers.shutdownNow();
		}
	}

	@SuppressWarnings("NullAway") // the back-off is started when it is null (first)
	private void consume() {
		BackOffExecution backOff = null;
		while (!this.stopping) {
			try {
				this.container.awaitResume(WAIT, this::isStopping);
				this.slots.acquire();
				int free = 1 + this.slots.drainPermits();
				List<ReservedJob> jobs = List.of();
				try {
					// (the queue may reserve jobs for the reserve below while this waits)
					if (isTaking() && this.operations.awaitWork(this.settings.getTopic(), WAIT, free, this.settings.getTtr(),
							this.settings.getMaxAttempts()) && isTaking()) {
						jobs = this.operations.reserve(this.settings.getTopic(), free, this.settings.getTtr(),
								this.settings.getMaxAttempts());
					}
				}
				finally {
					this.slots.release(free - jobs.size());
				}
				long now = System.nanoTime();
				if (!jobs.isEmpty()) {
					this.container.jobStarted(now);
				}
				dispatch(jobs);
				this.container.progressed(now);
				this.container.checkIdle(now, this.invoker.inFlight() > 0);
				if (backOff != null) {
					logger.info("Listener '" + this.settings.getId() + "' reserves jobs of topic '"
							+ this.settings.getTopic() + "' again");
					backOff = null;
				}
			}
			catch (InterruptedException ex) {
				if (this.stopping) {
					return;
				}
			}
			catch (Throwable ex) {
				// not even an Error may end the loop: nothing else would reserve this topic's jobs
				if (this.stopping) {
					return;
				}
				boolean first = (backOff == null);
				if (first) {
					backOff = this.errorBackOff.start();
				}
				long wait = backOff.nextBackOff();
				String message = "Listener '" + this.settings.getId() + "' could not reserve jobs of topic '"
						+ this.settings.getTopic() + "'; retrying in " + wait + " ms";
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
					if (this.stopping) {
						return;
					}
				}
			}
		}
	}

	/** Hands reserved jobs to handler threads; gives back those that cannot start. */
	private void dispatch(List<ReservedJob> jobs) {
		List<ReservedJob> unstarted = new ArrayList<>();
		for (ReservedJob job : jobs) {
			if (!unstarted.isEmpty() || !isTaking() || !execute(job)) {
				unstarted.add(job);
				this.slots.release();
			}
		}
		this.batches.giveBack(unstarted);
	}

	private boolean execute(ReservedJob job) {
		try {
			this.handlers.execute(() -> runHandler(job));
			return true;
		}
		catch (Throwable ex) {
			logger.warn("Listener '" + this.settings.getId() + "' could not start a handler for job " + job.id()
					+ " of topic " + job.topic() + "; giving it back: " + ex);
			return false;
		}
	}

	/** Runs a job and those that finishing it reserved; the slot stays taken until then. */
	private void runHandler(ReservedJob first) {
		try {
			this.batches.run(first);
		}
		finally {
			this.slots.release();
		}
	}

	private static BackOff errorBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(ERROR_BACK_OFF_INITIAL_MILLIS, 2);
		backOff.setMaxInterval(ERROR_BACK_OFF_MAX_MILLIS);
		return backOff;
	}

}
