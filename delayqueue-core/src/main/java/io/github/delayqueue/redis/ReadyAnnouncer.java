package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Announces the ready lists a timer step left unannounced, unless this instance's idle
 * consumers take them within {@link #HANDOVER}; passes the offers of waiting consumers to the
 * steps and gives back the jobs reserved for them that they did not collect within
 * {@link #HANDOVER}. A failed announcement asks the timer to re-check every bucket. Thread-safe.
 */
final class ReadyAnnouncer {

	/** The most topics whose waiting consumers a step may reserve jobs for. */
	static final int MAX_OFFERS = 16;

	/** How long jobs left to this instance's consumers may stay unclaimed. */
	static final Duration HANDOVER = Duration.ofMillis(50);

	/** How long {@link #stop()} waits for the handovers still waiting. */
	static final Duration STOP_WAIT = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(ReadyAnnouncer.class);

	private final ReadySignals signals;

	private final QueueScripts scripts;

	private final Runnable recheck;

	private final Predicate<String> reservableAtOnce;

	private volatile @Nullable ScheduledThreadPoolExecutor handovers;

	/**
	 * {@code recheck} asks the timer for a guard re-check of every bucket; {@code reservableAtOnce}
	 * names the topics a step may reserve jobs of for a waiting consumer.
	 */
	ReadyAnnouncer(ReadySignals signals, QueueScripts scripts, Runnable recheck, Predicate<String> reservableAtOnce) {
		this.signals = signals;
		this.scripts = scripts;
		this.recheck = recheck;
		this.reservableAtOnce = reservableAtOnce;
	}

	/** Starts the thread that hands over unclaimed jobs. */
	synchronized void start() {
		if (this.handovers == null) {
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "delayqueue-handover");
				thread.setDaemon(true);
				return thread;
			});
			executor.setKeepAliveTime(10, TimeUnit.SECONDS);
			executor.allowCoreThreadTimeOut(true);
			this.handovers = executor;
		}
	}

	/**
	 * Runs the waiting handovers (up to {@link #STOP_WAIT}) and stops the thread; until the next
	 * {@link #start()}, steps announce everything and reserve nothing.
	 */
	synchronized void stop() {
		ScheduledThreadPoolExecutor executor = this.handovers;
		this.handovers = null;
		if (executor != null) {
			// delayed tasks still run after shutdown (the executor's default)
			executor.shutdown();
			try {
				if (!executor.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
					executor.shutdownNow();
				}
			}
			catch (InterruptedException ex) {
				executor.shutdownNow();
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Whether a step may leave announcing to this instance: a consumer waits, handovers run. */
	boolean mayLeaveToConsumersHere() {
		return this.handovers != null && this.signals.anyWaiting();
	}

	/** A step left announcing a ready list of {@code length} jobs; before consumers are woken. */
	void unannounced(String topic, int bucket, long length) {
		ScheduledThreadPoolExecutor executor = this.handovers;
		if (executor != null && length <= this.signals.idleConsumers(topic)) {
			long before = this.signals.generation(topic, bucket);
			try {
				executor.schedule(() -> handOver(topic, bucket, before), HANDOVER.toMillis(), TimeUnit.MILLISECONDS);
				return;
			}
			catch (RejectedExecutionException ex) {
				// stopped meanwhile: announced now
			}
		}
		announce(topic, bucket);
	}

	/** Stops the thread at once, dropping the waiting handovers, as a crash would (tests). */
	synchronized void halt() {
		ScheduledThreadPoolExecutor executor = this.handovers;
		this.handovers = null;
		if (executor != null) {
			executor.shutdownNow();
		}
	}

	/** The offers a step may reserve jobs for, at most {@link #MAX_OFFERS}; none while stopped. */
	List<ReadySignals.Offering> offers() {
		if (this.handovers == null) {
			return List.of();
		}
		return this.signals.idleOffers(MAX_OFFERS, this.reservableAtOnce);
	}

	/** A step reserved jobs for an offer ({@code null}: none, given back): they go to its consumer. */
	void reserved(int bucket, ReadySignals.@Nullable Offering offering, List<ReservedJob> jobs) {
		ScheduledThreadPoolExecutor executor = this.handovers;
		if (offering != null && executor != null && this.signals.deliver(offering, jobs)) {
			try {
				executor.schedule(() -> giveBack(bucket, this.signals.reclaim(offering, jobs)), HANDOVER.toMillis(),
						TimeUnit.MILLISECONDS);
				return;
			}
			catch (RejectedExecutionException ex) {
				// stopped meanwhile: what was not collected goes back now
				giveBack(bucket, this.signals.reclaim(offering, jobs));
				return;
			}
		}
		giveBack(bucket, jobs);
	}

	private void giveBack(int bucket, List<ReservedJob> jobs) {
		if (jobs.isEmpty()) {
			return;
		}
		try {
			if (this.scripts.release(bucket, jobs) > 0) {
				jobs.stream().map(ReservedJob::topic).distinct().forEach((topic) -> this.signals.markReady(topic, bucket));
			}
		}
		catch (RuntimeException | Error ex) {
			logger.warn("Could not give back " + jobs.size() + " job(s) of topic '" + jobs.get(0).topic()
					+ "', reserved for a consumer that did not take them (they are delivered again after their TTR): "
					+ ex);
		}
	}

	private void handOver(String topic, int bucket, long before) {
		try {
			// still marked, or not marked yet: nobody took it
			if (this.signals.isMarked(topic, bucket) || this.signals.generation(topic, bucket) == before) {
				announce(topic, bucket);
			}
		}
		catch (RuntimeException | Error ex) {
			logger.warn("Could not hand over the READY jobs of topic '" + topic + "' in bucket " + bucket
					+ " (a guard re-check announces them)", ex);
			this.recheck.run();
		}
	}

	private void announce(String topic, int bucket) {
		try {
			this.scripts.announceReady(bucket, topic);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not announce the READY jobs of topic '" + topic + "' in bucket " + bucket
					+ " to the other instances (a guard re-check does): " + ex.getMessage());
			this.recheck.run();
		}
	}

}
