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
 * Runs reserved jobs on a handler thread, batch after batch, and settles them in Redis. The
 * jobs of a {@link JobBatch} run one after the other through the {@link JobInvoker}; then
 * those that succeeded are finished and, while the container takes work, the next batch of
 * the same bucket is reserved in the same call ({@link DelayQueueOperations#finishAndReserve}),
 * sized by the {@link BatchSize}. A batch that runs longer than
 * {@value #SETTLE_AFTER_MILLIS} ms (or half the shortest TTR of its jobs) is settled early by
 * a settler thread while its current job goes on: what succeeded is finished, what has not
 * started is given back. Jobs are given back, READY at once with no attempt counted, when
 * the container stops, or pauses between batches, or when a job's TTR ran out while it
 * waited in its batch. Never throws from a Redis call: what cannot be settled is redelivered
 * after its TTR. Thread-safe.
 */
final class BatchRunner {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	/**
	 * How long a batch may run before what succeeded is finished and what has not started is
	 * given back (or half the shortest TTR of its jobs, when that is less).
	 */
	static final int SETTLE_AFTER_MILLIS = 50;

	private static final long SETTLE_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(SETTLE_AFTER_MILLIS);

	private final DefaultDelayedListenerContainer container;

	private final ListenerConsumer run;

	private final ContainerProperties settings;

	private final DelayQueueOperations operations;

	private final JobInvoker invoker;

	private final BatchSize batchSize;

	private final ScheduledExecutorService settlers;

	/**
	 * Creates a runner for one run of a container.
	 * @param container the container, whose pause decides whether jobs start
	 * @param run the run the batches belong to, whose stop decides whether jobs start
	 * @param operations the queue it settles with
	 * @param invoker calls the listener method
	 * @param batchSize sizes the next batch
	 * @param settlers runs the early settles
	 */
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

	/**
	 * Runs a job, then the jobs that finishing it reserved, until none follows.
	 * @param first the job the consumer thread reserved
	 */
	void run(ReservedJob first) {
		List<ReservedJob> jobs = List.of(first);
		boolean chained = false;
		while (!jobs.isEmpty()) {
			jobs = runBatch(new JobBatch(jobs, System.nanoTime()), chained);
			chained = true;
		}
	}

	/**
	 * Gives reserved jobs back unstarted, in their order: READY at once, their attempts not
	 * counted; never throws.
	 * @param jobs the jobs
	 */
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

	/**
	 * Runs the jobs of a batch one after the other, then finishes those that succeeded and,
	 * while the container takes work, reserves the next batch in the same call. A batch
	 * that runs long is settled early by a settler thread ({@link #settleEarly}).
	 * @return the next batch, possibly none
	 */
	private List<ReservedJob> runBatch(JobBatch batch, boolean chained) {
		ScheduledFuture<?> settle = (batch.size() > 1) ? scheduleSettle(batch) : null;
		// jobs found expired in a row, given back together (in their order) before the next runs
		List<ReservedJob> expired = new ArrayList<>();
		try {
			for (ReservedJob job = batch.claimNext(); job != null; job = batch.claimNext()) {
				if (this.run.isStopping() || (chained && !this.run.isTaking())) {
					expired.add(job);
					expired.addAll(batch.takeUnstarted());
				}
				else if (expired(job, batch.receivedNanos())) {
					// the settler was late: a handler before it in the batch ran past this job's TTR,
					// so it may be delivered again already, and running it here as well would run it
					// twice. Give it back: unless the timer re-queued it already (the token is stale
					// then and nothing changes), it is READY at once without its attempt counted, not
					// left to expire (and on its last attempt to die without running)
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

	/**
	 * Settles a batch that runs longer than planned while its current job still runs:
	 * finishes the jobs that succeeded, so that none outlives its TTR and runs a second time,
	 * and gives back the jobs not started, READY at once for any consumer, with no attempt
	 * used. Runs on a settler thread.
	 */
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
			this.container.progressed(now);
			this.batchSize.learn(now - start);
		}
	}

	/**
	 * Whether a job's reservation ran out while it waited in its batch: its delivery time
	 * plus the time since the batch arrived (both Redis's clock from the reservation on).
	 */
	@SuppressWarnings("NullAway") // a reservation read from Redis has its times
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
