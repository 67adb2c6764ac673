package io.github.delayqueue.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.redis.RedisDelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Puts the recurring jobs declared in {@code delayqueue.recurring.*} once the queue has started,
 * and again when the queue's timer finds that Redis lost them; reports (or deletes, when asked)
 * those declared before and no longer.
 */
final class RecurringJobsReconciler implements SmartLifecycle, DelayQueueObserver {

	private static final Log logger = LogFactory.getLog(RecurringJobsReconciler.class);

	private static final long RETRY_MILLIS = 5_000;

	/** The queue's recurring jobs, looked up at start: the queue, which this observes, comes first. */
	private final ObjectProvider<RecurringJobs> recurringJobs;

	private final Map<String, RecurringJob> declared;

	private final boolean removeUndeclared;

	/** Whether a put is waiting to run on the executor. */
	private final AtomicBoolean pending = new AtomicBoolean();

	/** The executor of background puts, set while running; written under this. */
	private volatile @Nullable ScheduledExecutorService executor;

	RecurringJobsReconciler(ObjectProvider<RecurringJobs> recurringJobs, Map<String, RecurringJob> declared,
			boolean removeUndeclared) {
		this.recurringJobs = recurringJobs;
		this.declared = declared;
		this.removeUndeclared = removeUndeclared;
	}

	/**
	 * Reconciles; when Redis is unreachable, retries every {@value #RETRY_MILLIS} ms in the
	 * background (a queue that fails fast has failed its own start by then).
	 */
	@Override
	public synchronized void start() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-recurring-reconcile-");
		threads.setDaemon(true);
		this.executor = Executors.newSingleThreadScheduledExecutor(threads);
		this.pending.set(false);
		try {
			reconcile();
		}
		catch (DelayQueueConnectionException ex) {
			logger.warn("Could not put the declared recurring jobs (Redis unreachable); trying again in the background: "
					+ ex.getMessage());
			putLater(RETRY_MILLIS);
		}
	}

	/** Puts the declared recurring jobs again in the background, when the timer finds that Redis lost them. */
	@Override
	public void dataLost(String namespace) {
		putLater(0);
	}

	/** Puts on the executor after the delay, unless a put waits already; a request while one runs puts once more. */
	private synchronized void putLater(long delayMillis) {
		if (this.executor != null && this.pending.compareAndSet(false, true)) {
			this.executor.schedule(this::put, delayMillis, TimeUnit.MILLISECONDS);
		}
	}

	private void put() {
		this.pending.set(false);
		try {
			reconcile();
			logger.info("Put the declared recurring jobs");
		}
		catch (IllegalArgumentException ex) {
			logger.error(ex.getMessage());
		}
		catch (RuntimeException ex) {
			logger.debug("Could not put the declared recurring jobs yet: " + ex.getMessage());
			putLater(RETRY_MILLIS);
		}
		catch (Error ex) {
			logger.error("Could not put the declared recurring jobs", ex);
			throw ex;
		}
	}

	/** Puts the declared definitions, then reports (or deletes) those declared before and no longer. */
	private void reconcile() {
		RecurringJobs jobs = this.recurringJobs.getObject();
		List<String> refused = new ArrayList<>();
		for (RecurringJob job : this.declared.values()) {
			try {
				PutResult result = jobs.put(job);
				if (result != PutResult.UNCHANGED && logger.isInfoEnabled()) {
					logger.info("Recurring job " + job.getName() + " " + result.name().toLowerCase() + ": "
							+ job.getSchedule() + ", topic " + job.getTopic());
				}
			}
			catch (IllegalArgumentException ex) {
				refused.add("delayqueue.recurring." + job.getName() + ": " + ex.getMessage());
			}
		}
		if (!refused.isEmpty()) {
			throw new IllegalArgumentException("Declared recurring job(s) refused: " + String.join("; ", refused));
		}
		if (this.declared.isEmpty() && !this.removeUndeclared) {
			return;
		}
		List<String> undeclared = jobs.list()
			.stream()
			.filter((info) -> info.job().isDeclared() && !this.declared.containsKey(info.name()))
			.map(RecurringJobInfo::name)
			.toList();
		if (!undeclared.isEmpty() && this.removeUndeclared) {
			undeclared.forEach(jobs::delete);
			logger.warn("Deleted recurring job(s) " + undeclared + ": declared in delayqueue.recurring before, and "
					+ "no longer (delayqueue.remove-undeclared-recurring-jobs=true)");
		}
		else if (!undeclared.isEmpty()) {
			logger.warn("Recurring job(s) " + undeclared + " were declared in delayqueue.recurring and are no longer; "
					+ "they keep firing. Delete them (RecurringJobs.delete, the endpoint) or set "
					+ "delayqueue.remove-undeclared-recurring-jobs=true");
		}
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

	@Override
	public int getPhase() {
		return RedisDelayQueue.PHASE + 1;
	}

}
