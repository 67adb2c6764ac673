package io.github.delayqueue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs reserved jobs on a handler thread, batch after batch: the jobs that succeeded are
 * finished together with the reservation of the next batch; a batch that runs longer than
 * {@value #SETTLE_AFTER_MILLIS} ms (or half its shortest TTR) is settled early by a settler
 * thread. Jobs not started when the container stops or pauses, or whose TTR ran out while
 * they waited, are given back. Never throws from a Redis call.
 */
final class BatchRunner {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	/** How long a batch may run before it is settled early. */
	static final int SETTLE_AFTER_MILLIS = 50;

	private static final long SETTLE_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(SETTLE_AFTER_MILLIS);

	private final DefaultDelayedListenerContainer container;

	private final ListenerConsumer run;

	private final ContainerProperties settings;

	private final DelayQueueOperations operations;

	private final JobInvoker invoker;

	private final BatchSize batchSize;

	private final ScheduledExecutorService settlers;

	BatchRunner(DefaultDelayedListenerContainer container, ListenerConsumer run, DelayQueueOperations operations,
			JobInvoker invoker, BatchSize batchSize, ScheduledExecutorService settlers) {
		this.container = container;
		this.run = run;
		this.settings = container.getContainerProperties();
		this.operations = operations;
		this.invoker = invoker;
		this.batchSize = batchSize;
		this.settlers = settlers;
	}

	/** Runs a job, then the jobs that finishing it reserved, until none follows. */
	void run(ReservedJob first) {
		List<ReservedJob> jobs = List.of(first);
		boolean chained = false;
		while (!jobs.isEmpty()) {
			jobs = runBatch(new JobBatch(jobs, System.nanoTime()), chained);
			chained = true;
		}
	}

	/** Gives reserved jobs back unstarted (READY at once, attempt not counted); never throws. */
	void giveBack(List<ReservedJob> jobs) {
		if (jobs.isEmpty()) {
			return;
		}
		try {
			int released = this.operations.release(jobs);
			if (logger.isDebugEnabled()) {
				logger.debug("Listener '" + this.settings.getId() + "' gave back " + released + " unstarted job(s) of topic "
						+ jobs.get(0).topic());
			}
		}
		catch (Throwable ex) {
			logger.warn("Listener '" + this.settings.getId() + "' could not give back " + jobs.size() + " job(s) of topic "
					+ jobs.get(0).topic() + " (they are redelivered after their TTR): " + ex);
		}
	}

	/** Runs the jobs of a batch, then finishes those that succeeded; returns the next batch. */
	private List<ReservedJob> runBatch(JobBatch batch, boolean chained) {
		ScheduledFuture<?> settle = (batch.size() > 1) ? scheduleSettle(batch) : null;
		// jobs found expired in a row (or left at a stop) go back in one call, in their order:
		// release puts a call's jobs at the front of the ready list, so one call per job would
		// reverse them
		List<ReservedJob> expired = new ArrayList<>();
		try {
			for (ReservedJob job = batch.claimNext(); job != null; job = batch.claimNext()) {
				if (this.run.isStopping() || (chained && !this.run.isTaking())) {
					expired.add(job);
					expired.addAll(batch.takeUnstarted());
				}
				else if (expired(job, batch.receivedNanos())) {
					// it may be delivered again already: give it back rather than run it twice
					logger.warn("Listener '" + this.settings.getId() + "' gives back job " + job.id() + " of topic "
							+ job.topic() + " unstarted: its TTR ran out while earlier jobs of its batch ran");
					expired.add(job);
				}
				else {
					giveBack(expired);
					expired = new ArrayList<>();
					if (runJob(job)) {
						batch.succeeded(job);
					}
				}
			}
			giveBack(expired);
		}
		finally {
			if (settle != null) {
				settle.cancel(false);
			}
		}
		List<ReservedJob> succeeded = batch.takeSucceeded();
		return succeeded.isEmpty() ? List.of()
				: finish(succeeded, this.run.isTaking() ? this.batchSize.next() : 0);
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
		if (logger.isDebugEnabled()) {
			logger.debug("Listener '" + this.settings.getId() + "' settles a batch running for "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - batch.receivedNanos()) + " ms: finishing "
					+ succeeded.size() + " job(s), giving back " + unstarted.size());
		}
		if (!succeeded.isEmpty()) {
			finish(succeeded, 0);
		}
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
			this.batchSize.learn(now - start);
		}
	}

	/** Whether a job's reservation ran out while it waited in its batch. */
	@SuppressWarnings("NullAway") // a reservation read from Redis has its times
	private static boolean expired(ReservedJob job, long receivedNanos) {
		long waitedMillis = (System.nanoTime() - receivedNanos) / 1_000_000;
		return !job.deliveredAt().plusMillis(waitedMillis).isBefore(job.reservedUntil());
	}

	/** Finishes jobs and reserves up to {@code next} of the same bucket in one call; never throws. */
	private List<ReservedJob> finish(List<ReservedJob> jobs, int next) {
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
			logger.error("Listener '" + this.settings.getId() + "' could not finish " + jobs.size() + " job(s) of topic "
					+ this.settings.getTopic() + " (they are redelivered after their TTR)", ex);
			return List.of();
		}
	}

}
