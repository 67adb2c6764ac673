package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.redis.Offers.Offering;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The Redis side of the {@link BucketTimer}: a step or firing marks the topics that got READY
 * jobs in {@link ReadySignals}; a step reserves due jobs for the offers of
 * consumers waiting here ({@link Offers}) and gives back what they do not collect within
 * {@link #HANDOVER}; a ready list left to idle consumers is announced when none took it within
 * {@link #HANDOVER}, and a failed announcement asks for a re-check of every bucket. Thread-safe.
 */
final class RedisTimerBackend implements TimerBackend {

	/** The most topics whose waiting consumers a step may reserve jobs for. */
	static final int MAX_OFFERS = 16;

	/** How long jobs left to this instance's consumers may stay unclaimed. */
	static final Duration HANDOVER = Duration.ofMillis(50);

	/** How long a stop waits for the handovers still waiting. */
	static final Duration STOP_WAIT = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(RedisTimerBackend.class);

	private final QueueScripts scripts;

	private final ReadySignals signals;

	private final Duration leaseTtl;

	private final int batchSize;

	private final DelayQueueObserver observer;

	private final RedisRecurringJobs recurring;

	private final RetainedJobs failedJobs;

	private final Runnable recheck;

	private final Offers offers;

	private volatile @Nullable ScheduledThreadPoolExecutor handovers;

	/** {@code recheck} asks the timer for a guard re-check of every bucket. */
	RedisTimerBackend(QueueScripts scripts, ReadySignals signals, Duration leaseTtl, int batchSize,
			DelayQueueObserver observer, RedisRecurringJobs recurring, RetainedJobs failedJobs, Runnable recheck,
			Offers offers) {
		this.scripts = scripts;
		this.signals = signals;
		this.leaseTtl = leaseTtl;
		this.batchSize = batchSize;
		this.observer = observer;
		this.recurring = recurring;
		this.failedJobs = failedJobs;
		this.recheck = recheck;
		this.offers = offers;
	}

	/** Starts the thread that hands over unclaimed jobs; until then steps reserve nothing. */
	synchronized void start() {
		if (this.handovers == null) {
			CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-handover-");
			threads.setDaemon(true);
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
			executor.setKeepAliveTime(10, TimeUnit.SECONDS);
			executor.allowCoreThreadTimeOut(true);
			this.handovers = executor;
		}
	}

	/**
	 * Stops the thread, running the waiting handovers for up to {@code wait} and dropping the
	 * rest ({@link Duration#ZERO}: at once, as a crash would).
	 */
	synchronized void stop(Duration wait) {
		ScheduledThreadPoolExecutor executor = this.handovers;
		this.handovers = null;
		if (executor != null) {
			// delayed tasks still run after shutdown (the executor's default)
			executor.shutdown();
			try {
				if (!executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
					executor.shutdownNow();
				}
			}
			catch (InterruptedException ex) {
				executor.shutdownNow();
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public Coordination coordinate(boolean leaving) {
		return this.scripts.coordinate(this.leaseTtl, leaving);
	}

	@Override
	public long renew(long nowMillis, boolean readEarliest) {
		return this.scripts.renew(this.leaseTtl, nowMillis, readEarliest);
	}

	@Override
	public RecurringStep fireRecurring(int bucket) {
		RecurringStep step = this.recurring.fire(bucket);
		step.topics().forEach((topic) -> this.signals.markReady(topic, bucket));
		return step;
	}

	@Override
	public Promotion promote(int bucket, boolean guard) {
		List<Offering> offers = (guard || this.handovers == null) ? List.of() : this.offers.idleOffers(MAX_OFFERS);
		Promotion promotion = promote(bucket, guard, offers, (topic, jobs) -> reserved(bucket,
				offers.stream().filter((offer) -> offer.topic.equals(topic)).findFirst().orElse(null), jobs))
			.promotion();
		promotion.topics().forEach((topic) -> this.signals.markReady(topic, bucket));
		return promotion;
	}

	/** A step with offers (one per topic); {@code reserved} gets their jobs first. */
	ScriptReplies.Promoted promote(int bucket, boolean guard, List<Offering> offers,
			BiConsumer<String, List<ReservedJob>> reserved) {
		boolean quiet = this.handovers != null && this.signals.anyWaiting();
		ScriptReplies.Promoted promoted = this.scripts.promote(bucket, this.batchSize, guard, quiet, offers);
		promoted.reserved().forEach(reserved);
		for (ScriptReplies.Expired expired : promoted.expired()) {
			for (long i = 0; i < expired.requeued() + expired.dead(); i++) {
				this.observer.expired(expired.topic());
			}
			for (long i = 0; i < expired.dead(); i++) {
				this.observer.dead(expired.topic());
			}
			if (expired.dead() > 0) {
				this.failedJobs.diedInStep(expired.topic(), bucket, promoted.promotion().redisMillis());
			}
		}
		promoted.unannounced().forEach((topic, length) -> unannounced(topic, bucket, length));
		return promoted;
	}

	/** A step left announcing a ready list of {@code length} jobs; before consumers are woken. */
	void unannounced(String topic, int bucket, long length) {
		ReadySignals.TopicSignal signal = this.signals.existing(topic);
		if (this.handovers != null && signal != null && length <= this.offers.idleConsumers(topic)) {
			long before = signal.generation(bucket);
			if (afterHandover(() -> handOver(signal, topic, bucket, before))) {
				return;
			}
		}
		announce(topic, bucket);
	}

	/** A step reserved jobs for an offer ({@code null}: none, given back): they go to its consumer. */
	private void reserved(int bucket, @Nullable Offering offering, List<ReservedJob> jobs) {
		if (offering == null || this.handovers == null || !offering.deliver(jobs)) {
			giveBack(bucket, jobs);
		}
		else if (!afterHandover(() -> giveBack(bucket, this.offers.reclaim(offering, jobs)))) {
			giveBack(bucket, this.offers.reclaim(offering, jobs));
		}
	}

	/** Runs {@code task} after {@link #HANDOVER}; {@code false} when stopped. */
	private boolean afterHandover(Runnable task) {
		ScheduledThreadPoolExecutor executor = this.handovers;
		try {
			return executor != null && executor.schedule(task, HANDOVER.toMillis(), TimeUnit.MILLISECONDS) != null;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
	}

	/** Releases reservations of one bucket and marks their topics ready there when any was; how many. */
	int release(int bucket, List<ReservedJob> jobs) {
		int released = this.scripts.release(bucket, jobs);
		if (released > 0) {
			jobs.stream().map(ReservedJob::topic).distinct().forEach((topic) -> this.signals.markReady(topic, bucket));
		}
		return released;
	}

	private void giveBack(int bucket, List<ReservedJob> jobs) {
		if (jobs.isEmpty()) {
			return;
		}
		try {
			release(bucket, jobs);
		}
		catch (RuntimeException | Error ex) {
			logger.warn("Could not give back " + jobs.size() + " job(s) of topic '" + jobs.get(0).topic()
					+ "', reserved for a consumer that did not take them (they are delivered again after their TTR): "
					+ ex);
		}
	}

	private void handOver(ReadySignals.TopicSignal signal, String topic, int bucket, long before) {
		try {
			// still marked, or not marked yet: nobody took it
			if (signal.markedGeneration(bucket) >= 0 || signal.generation(bucket) == before) {
				announce(topic, bucket);
			}
		}
		catch (Error ex) {
			// the hand-over thread's executor would keep it unseen: logged, and a guard re-check announces
			logger.warn("Could not hand over the READY jobs of topic '" + topic + "' in bucket " + bucket
					+ " (a guard re-check announces them)", ex);
			this.recheck.run();
		}
	}

	/**
	 * Publishes a ready list to every instance; a failure asks for a guard re-check of every
	 * bucket. An Error is thrown: on the timer's thread it fails the timer's step.
	 */
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
