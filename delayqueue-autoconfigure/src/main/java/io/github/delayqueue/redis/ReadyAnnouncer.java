package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Announces a ready list that a timer step of this instance made non-empty and left
 * unannounced ({@code promote.lua}, asked to while consumers wait here) on the channel, for
 * every instance, unless this instance's own idle consumers can take every job of the list at
 * once: those are woken from the step's reply in any case, and telling the others too would
 * make each of their consumers run a take that finds nothing (two Redis commands each, per job
 * of a trickle), and this instance's consumers a second one on the echo.
 *
 * <p>
 * A list left to this instance's consumers is announced after all when its bucket is still
 * marked {@link #HANDOVER} later (no take found the bucket empty since: the consumer was
 * paused or stopped in between, an HTTP reserve went away, more jobs came than it took), or
 * was not marked at all by then. A crash or a stop in between is healed by the instance that
 * takes the bucket over: it re-checks the bucket at once as the guard does, which re-announces
 * every topic whose ready list has entries. A failed announcement asks this instance's timer
 * for such a re-check of every bucket at once. Thread-safe.
 */
final class ReadyAnnouncer {

	/**
	 * How long a job left to this instance's idle consumers may stay unclaimed before every
	 * instance is told of it.
	 */
	static final Duration HANDOVER = Duration.ofMillis(50);

	private static final Log logger = LogFactory.getLog(ReadyAnnouncer.class);

	private final ReadySignals signals;

	private final QueueScripts scripts;

	private final Runnable recheck;

	private volatile @Nullable ScheduledThreadPoolExecutor handovers;

	/**
	 * Creates an announcer; {@link #start()} lets it leave jobs to this instance's consumers.
	 * @param signals this instance's consumers' signals
	 * @param scripts where announcements are published
	 * @param recheck asks the timer to re-check its buckets as the guard does, at once: after an
	 * announcement failed
	 */
	ReadyAnnouncer(ReadySignals signals, QueueScripts scripts, Runnable recheck) {
		this.signals = signals;
		this.scripts = scripts;
		this.recheck = recheck;
	}

	/**
	 * Starts the thread that hands over unclaimed jobs.
	 */
	synchronized void start() {
		if (this.handovers == null) {
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "delayqueue-handover");
				thread.setDaemon(true);
				return thread;
			});
			// the thread ends while no handover waits
			executor.setKeepAliveTime(10, TimeUnit.SECONDS);
			executor.allowCoreThreadTimeOut(true);
			this.handovers = executor;
		}
	}

	/**
	 * Stops the thread; handovers still waiting are dropped (the instance that takes the
	 * buckets over re-announces their jobs). Every step announces in full until the next
	 * {@link #start()}.
	 */
	synchronized void stop() {
		ScheduledThreadPoolExecutor executor = this.handovers;
		this.handovers = null;
		if (executor != null) {
			executor.shutdownNow();
		}
	}

	/**
	 * Whether a step may leave announcing its ready lists to this instance: some consumer waits
	 * here, and handovers run.
	 * @return {@code true} when it may
	 */
	boolean mayLeaveToConsumersHere() {
		return this.handovers != null && this.signals.anyWaiting();
	}

	/**
	 * A timer step made a topic's ready list non-empty and left announcing it to this
	 * instance; called before this instance's consumers are woken from the step's reply.
	 * @param topic the topic
	 * @param bucket the bucket
	 * @param length the length of the ready list after the push: the jobs the step made READY
	 */
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

	private void handOver(String topic, int bucket, long before) {
		try {
			// still marked, or not marked yet (a step slower than the handover): nobody took it
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
			// the jobs are READY in Redis, and this instance's consumers know: a guard re-check
			// of every bucket, at once, announces them to the others
			logger.warn("Could not announce the READY jobs of topic '" + topic + "' in bucket " + bucket
					+ " to the other instances (a guard re-check does): " + ex.getMessage());
			this.recheck.run();
		}
	}

}
