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
 * Announces a ready list that a timer step of this instance made non-empty and left
 * unannounced ({@code promote.lua}, asked to while consumers wait here) on the channel, for
 * every instance, unless this instance's own idle consumers, woken from the step's reply, can
 * take every job of the list at once.
 *
 * <p>
 * A list left to this instance's consumers is announced after all when its bucket is still
 * marked {@link #HANDOVER} later (no take found the bucket empty since: the consumer was
 * paused or stopped in between, an HTTP reserve went away, more jobs came than it took), or
 * was not marked at all by then. A crash or a stop in between is healed by the instance that
 * takes the bucket over: it re-checks the bucket at once as the guard does, which re-announces
 * every topic whose ready list has entries. A failed announcement asks this instance's timer
 * for such a re-check of every bucket at once.
 *
 * <p>
 * It also passes the offers of this instance's waiting consumers to the timer steps
 * ({@link #offers()}): the jobs a step reserves for an offer are handed to its consumer, and
 * those it has not collected after {@link #HANDOVER} are given back (READY again at the front
 * of their list, the attempt not counted, announced). A crash in between leaves them RESERVED
 * until their TTR, as any reservation. Thread-safe.
 */
final class ReadyAnnouncer {

	/** The most topics whose waiting consumers a step may reserve jobs for. */
	static final int MAX_OFFERS = 16;

	/**
	 * How long a job left to this instance's idle consumers may stay unclaimed before every
	 * instance is told of it.
	 */
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
	 * Creates an announcer; {@link #start()} lets it leave jobs to this instance's consumers.
	 * @param signals this instance's consumers' signals
	 * @param scripts where announcements are published
	 * @param recheck asks the timer to re-check its buckets as the guard does, at once: after an
	 * announcement failed
	 * @param reservableAtOnce which topics a step may reserve jobs of for a waiting consumer
	 * (not those with a rate limit, whose reserves take permits first)
	 */
	ReadyAnnouncer(ReadySignals signals, QueueScripts scripts, Runnable recheck, Predicate<String> reservableAtOnce) {
		this.signals = signals;
		this.scripts = scripts;
		this.recheck = recheck;
		this.reservableAtOnce = reservableAtOnce;
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
	 * Stops the thread once the handovers still waiting have run (at most {@link #HANDOVER}
	 * and the time to give jobs back, up to {@link #STOP_WAIT}): jobs reserved for consumers
	 * that have not collected them are given back, and lists left to this instance's consumers
	 * are announced. Every step announces in full, and reserves nothing for offers, from now
	 * until the next {@link #start()}.
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

	/**
	 * Stops the thread at once, dropping the handovers still waiting, as a crash would: jobs
	 * reserved for consumers stay RESERVED until their TTR, and lists left to this instance's
	 * consumers wait for the instance that takes the buckets over. For tests of fail-over.
	 */
	synchronized void halt() {
		ScheduledThreadPoolExecutor executor = this.handovers;
		this.handovers = null;
		if (executor != null) {
			executor.shutdownNow();
		}
	}

	/**
	 * The offers of this instance's idle waiting consumers that a step may reserve jobs for;
	 * none while handovers do not run.
	 * @return the offers, at most {@link #MAX_OFFERS}
	 */
	List<ReadySignals.Offering> offers() {
		if (this.handovers == null) {
			return List.of();
		}
		return this.signals.idleOffers(MAX_OFFERS, this.reservableAtOnce);
	}

	/**
	 * A step reserved jobs for an offer: they go to its consumer, and what it has not
	 * collected after {@link #HANDOVER} is given back.
	 * @param bucket the step's bucket
	 * @param offering the offer, or {@code null} when the step named a topic no offer named
	 * (the jobs are given back)
	 * @param jobs the jobs reserved
	 */
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
