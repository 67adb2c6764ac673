package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogAccessor;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * One run of a {@link DefaultDelayedListenerContainer}, from a start to the stop that follows.
 * The consumer thread reserves at most as many jobs as handler slots are free and hands each to
 * a handler thread, which runs it, then the batches that finishing its jobs reserves. A batch
 * running longer than 50 ms (or half its shortest TTR) is settled
 * early by a settler thread. Jobs not started at a stop or pause, or whose TTR ran out while
 * they waited, are given back. The loop outlives any failure, backing off from 100 ms to 5 s.
 */
final class ListenerConsumer {

	private static final LogAccessor logger = new LogAccessor(DelayedListenerContainer.class);

	/** How long one wait for work, or for a resume, lasts before the loop looks again. */
	private static final Duration WAIT = Duration.ofSeconds(1);

	/** How long a batch may run before it is settled early. */
	private static final long SETTLE_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	/** The most jobs a handler thread takes at once. */
	private static final int MAX_BATCH = 32;

	/** How long, on average, the handlers of one batch may run together. */
	private static final long BATCH_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	private final ExponentialBackOff errorBackOff = new ExponentialBackOff(100, 2);

	private final DefaultDelayedListenerContainer container;

	private final ContainerProperties settings;

	private final DelayQueueOperations operations;

	private final JobInvoker invoker;

	private final Semaphore slots;

	private final ExecutorService handlers;

	private final ScheduledThreadPoolExecutor settlers;

	private final Thread thread;

	private final ThreadFactory threads;

	private volatile long averageHandlerNanos = BATCH_BUDGET_NANOS;

	// this run's own flag: a container started again while this run stops has another run
	private volatile boolean stopping;

	ListenerConsumer(DefaultDelayedListenerContainer container, DelayQueueOperations operations, JobInvoker invoker) {
		this.container = container;
		this.settings = container.getContainerProperties();
		this.operations = operations;
		this.invoker = invoker;
		this.errorBackOff.setMaxInterval(5_000);
		this.threads = this.settings.getThreadFactory();
		this.slots = new Semaphore(this.settings.getConcurrency());
		this.handlers = Executors.newFixedThreadPool(this.settings.getConcurrency(), this::newOwnThread);
		// two per handler slot: a settle that meets a slow Redis must not delay the next one
		this.settlers = new ScheduledThreadPoolExecutor(2 * this.settings.getConcurrency(), (task) -> {
			Thread settler = newOwnThread(task);
			settler.setName("delayqueue-" + this.settings.getId() + "-settler");
			return settler;
		});
		this.settlers.setRemoveOnCancelPolicy(true);
		this.thread = newOwnThread(this::consume);
		this.thread.setName("delayqueue-" + this.settings.getId());
	}

	void start() {
		this.thread.start();
	}

	/** A thread of this run that knows its container ({@link DelayedListenerContainer#isContainerThread()}). */
	private Thread newOwnThread(Runnable task) {
		DefaultDelayedListenerContainer container = this.container;
		return this.threads.newThread(() -> {
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

	private boolean isTaking() {
		return !this.stopping && this.container.isTaking();
	}

	/** Waits for the consumer thread, the handlers (up to the shutdown timeout), then the settlers. */
	void shutdown() {
		try {
			this.thread.join(WAIT.toMillis() * 5);
			if (this.thread.isAlive()) {
				this.thread.interrupt();
				this.thread.join(WAIT.toMillis());
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
			if (!this.settlers.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
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
				this.container.awaitResume(WAIT, () -> this.stopping);
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
				dispatch(jobs);
				this.container.progressed(now);
				this.container.checkIdle(now, !jobs.isEmpty() || this.invoker.inFlight() > 0);
				if (backOff != null) {
					logger.info("Listener '" + this.settings.getId() + "' reserves jobs of topic '"
							+ this.settings.getTopic() + "' again");
					backOff = null;
				}
			}
			catch (InterruptedException ex) {
				// the loop ends when this run stops
			}
			catch (Throwable ex) {
				// not even an Error may end the loop: nothing else would reserve this topic's jobs
				if (this.stopping) {
					return;
				}
				boolean first = (backOff == null);
				backOff = first ? this.errorBackOff.start() : backOff;
				long wait = backOff.nextBackOff();
				String message = "Listener '" + this.settings.getId() + "' could not reserve jobs of topic '"
						+ this.settings.getTopic() + "'; retrying in " + wait + " ms";
				if (first) {
					logger.warn(ex, message);
				}
				else {
					logger.warn(message + ": " + ex);
				}
				// an interrupt ends the wait, and the next acquire throws
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(wait));
			}
		}
	}

	/** Hands reserved jobs to handler threads; gives back those that cannot start. */
	private void dispatch(List<ReservedJob> jobs) {
		List<ReservedJob> unstarted = new ArrayList<>();
		for (ReservedJob job : jobs) {
			if (unstarted.isEmpty() && isTaking()) {
				try {
					this.handlers.execute(() -> runHandler(job));
					continue;
				}
				catch (Throwable ex) {
					logger.warn("Listener '" + this.settings.getId() + "' could not start a handler for job "
							+ job.id() + " of topic " + job.topic() + "; giving it back: " + ex);
				}
			}
			unstarted.add(job);
			this.slots.release();
		}
		giveBack(unstarted);
	}

	/** Runs a job, then the batches that finishing it reserved; the slot stays taken until then. */
	private void runHandler(ReservedJob first) {
		try {
			List<ReservedJob> jobs = List.of(first);
			for (boolean chained = false; !jobs.isEmpty(); chained = true) {
				jobs = runBatch(new JobBatch(jobs, System.nanoTime()), chained);
			}
		}
		finally {
			this.slots.release();
		}
	}

	/** Gives reserved jobs back unstarted (READY at once, attempt not counted); never throws. */
	private void giveBack(List<ReservedJob> jobs) {
		if (jobs.isEmpty()) {
			return;
		}
		try {
			int released = this.operations.release(jobs);
			logger.debug(() -> "Listener '" + this.settings.getId() + "' gave back " + released
					+ " unstarted job(s) of topic " + jobs.get(0).topic());
		}
		catch (Throwable ex) {
			logger.warn("Listener '" + this.settings.getId() + "' could not give back " + jobs.size()
					+ " job(s) of topic " + jobs.get(0).topic() + " (they are redelivered after their TTR): " + ex);
		}
	}

	/** Runs the jobs of a batch, then finishes those that succeeded; returns the next batch. */
	private List<ReservedJob> runBatch(JobBatch batch, boolean chained) {
		ScheduledFuture<?> settle = (batch.size() > 1) ? scheduleSettle(batch) : null;
		// jobs not run go back in one call, in their order: a release puts its jobs at the front
		List<ReservedJob> unstarted = new ArrayList<>();
		try {
			for (ReservedJob job = batch.claimNext(); job != null; job = batch.claimNext()) {
				if (this.stopping || (chained && !isTaking())) {
					unstarted.add(job);
					unstarted.addAll(batch.takeUnstarted());
				}
				else if (expired(job, batch.receivedNanos())) {
					// it may be delivered again already: give it back rather than run it twice
					logger.warn("Listener '" + this.settings.getId() + "' gives back job " + job.id() + " of topic "
							+ job.topic() + " unstarted: its TTR ran out while earlier jobs of its batch ran");
					unstarted.add(job);
				}
				else {
					giveBack(unstarted);
					unstarted = new ArrayList<>();
					if (runJob(job)) {
						batch.succeeded(job);
					}
				}
			}
			giveBack(unstarted);
		}
		finally {
			if (settle != null) {
				settle.cancel(false);
			}
		}
		return finish(batch.takeSucceeded(), isTaking() ? nextBatchSize() : 0);
	}

	private @Nullable ScheduledFuture<?> scheduleSettle(JobBatch batch) {
		long delay = batch.settleAfterNanos(SETTLE_AFTER_NANOS) - (System.nanoTime() - batch.receivedNanos());
		try {
			return this.settlers.schedule(() -> settleEarly(batch), Math.max(0, delay), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopped: the handler thread settles the batch itself when its job returns
			return null;
		}
	}

	/** On a settler thread: finishes what succeeded and gives back what has not started. */
	private void settleEarly(JobBatch batch) {
		List<ReservedJob> unstarted = batch.takeUnstarted();
		List<ReservedJob> succeeded = batch.takeSucceeded();
		logger.debug(() -> "Listener '" + this.settings.getId() + "' settles a batch running for "
				+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - batch.receivedNanos()) + " ms: finishing "
				+ succeeded.size() + " job(s), giving back " + unstarted.size());
		finish(succeeded, 0);
		giveBack(unstarted);
	}

	/** Runs one job and records progress and run time; whether it succeeded. */
	private boolean runJob(ReservedJob job) {
		long start = System.nanoTime();
		try {
			return this.invoker.invoke(job);
		}
		finally {
			long now = System.nanoTime();
			this.container.progressed(now);
			long average = this.averageHandlerNanos;
			this.averageHandlerNanos = average + (now - start - average) / 8;
		}
	}

	/** As many jobs as the handlers run, on a moving average, within the batch budget (1 to {@value #MAX_BATCH}). */
	private int nextBatchSize() {
		return (int) Math.max(1, Math.min(MAX_BATCH, BATCH_BUDGET_NANOS / Math.max(1, this.averageHandlerNanos)));
	}

	/** Whether a job's reservation ran out while it waited in its batch. */
	@SuppressWarnings("NullAway") // a reservation read from Redis has its times
	private static boolean expired(ReservedJob job, long receivedNanos) {
		long waitedMillis = (System.nanoTime() - receivedNanos) / 1_000_000;
		return !job.deliveredAt().plusMillis(waitedMillis).isBefore(job.reservedUntil());
	}

	/** Finishes jobs and reserves up to {@code next} of the same bucket in one call; never throws. */
	private List<ReservedJob> finish(List<ReservedJob> jobs, int next) {
		if (jobs.isEmpty()) {
			return List.of();
		}
		try {
			FinishResult result = this.operations.finishAndReserve(jobs, next, this.settings.getTtr(),
					this.settings.getMaxAttempts());
			for (ReservedJob stale : result.stale()) {
				logger.warn("Listener '" + this.settings.getId() + "' finished job " + stale.id() + " of topic "
						+ stale.topic() + " after its reservation was lost (TTR ran out, or it was cancelled or replaced)");
			}
			return result.next();
		}
		catch (Throwable ex) {
			logger.error(ex, "Listener '" + this.settings.getId() + "' could not finish " + jobs.size()
					+ " job(s) of topic " + this.settings.getTopic() + " (they are redelivered after their TTR)");
			return List.of();
		}
	}

}
