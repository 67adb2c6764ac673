package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The Redis side of the {@link BucketTimer}, and the owner of offers: a step reserves due jobs
 * for a consumer waiting here with one, and gives back what it does not collect within
 * {@link #HANDOVER}; a ready list left to idle consumers is announced when none took it within
 * {@link #HANDOVER}. Thread-safe.
 */
final class RedisTimerBackend implements TimerBackend {

	/** The most topics whose waiting consumers a step may reserve jobs for. */
	static final int MAX_OFFERS = 16;

	/** How long jobs left to this instance's consumers may stay unclaimed. */
	static final Duration HANDOVER = Duration.ofMillis(50);

	/** How long a stop waits for the handovers still waiting. */
	static final Duration STOP_WAIT = Duration.ofSeconds(2);

	/** How long delivered jobs are handed out to their consumer. */
	static final Duration STALE_DELIVERY = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(RedisTimerBackend.class);

	private final QueueScripts scripts;

	private final ReadySignals signals;

	private final String instanceId;

	private final Duration leaseTtl;

	private final int batchSize;

	private final DelayQueueObserver observer;

	private final RedisRecurringJobs recurring;

	private final RetainedJobs failedJobs;

	private final Runnable recheck;

	private final Predicate<String> reservableAtOnce;

	/** Per topic, the consumers waiting with an offer in arrival order, or holding jobs for one. */
	private final Map<String, Map<Thread, Held>> offered = new HashMap<>();

	private volatile @Nullable ScheduledThreadPoolExecutor handovers;

	/**
	 * {@code recheck} asks the timer for a guard re-check of every bucket; {@code reservableAtOnce}
	 * names the topics a step may reserve jobs of for a waiting consumer.
	 */
	RedisTimerBackend(QueueScripts scripts, ReadySignals signals, String instanceId, Duration leaseTtl, int batchSize,
			DelayQueueObserver observer, RedisRecurringJobs recurring, RetainedJobs failedJobs, Runnable recheck,
			Predicate<String> reservableAtOnce) {
		this.scripts = scripts;
		this.signals = signals;
		this.instanceId = instanceId;
		this.leaseTtl = leaseTtl;
		this.batchSize = batchSize;
		this.observer = observer;
		this.recurring = recurring;
		this.failedJobs = failedJobs;
		this.recheck = recheck;
		this.reservableAtOnce = reservableAtOnce;
	}

	/** Starts the thread that hands over unclaimed jobs; until then steps reserve nothing. */
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
		return this.scripts.coordinate(this.instanceId, this.leaseTtl, leaving);
	}

	@Override
	public long renew(long nowMillis, boolean readEarliest) {
		return this.scripts.renew(this.instanceId, this.leaseTtl, nowMillis, readEarliest);
	}

	@Override
	public RecurringStep fireRecurring(int bucket) {
		return this.recurring.fire(bucket);
	}

	@Override
	public Promotion promote(int bucket, boolean guard) {
		List<Offering> offers = (guard || this.handovers == null) ? List.of()
				: idleOffers(MAX_OFFERS, this.reservableAtOnce);
		return promote(bucket, guard, offers, (topic, jobs) -> reserved(bucket,
				offers.stream().filter((offer) -> offer.topic().equals(topic)).findFirst().orElse(null), jobs))
			.promotion();
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
		if (this.handovers != null && length <= idleConsumers(topic)) {
			long before = this.signals.generation(topic, bucket);
			if (afterHandover(() -> handOver(topic, bucket, before))) {
				return;
			}
		}
		announce(topic, bucket);
	}

	/** A step reserved jobs for an offer ({@code null}: none, given back): they go to its consumer. */
	private void reserved(int bucket, @Nullable Offering offering, List<ReservedJob> jobs) {
		if (offering == null || this.handovers == null || !deliver(offering, jobs)) {
			giveBack(bucket, jobs);
		}
		else if (!afterHandover(() -> giveBack(bucket, reclaim(offering, jobs)))) {
			giveBack(bucket, reclaim(offering, jobs));
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

	/**
	 * Waits on a topic's signal as {@link ReadySignals.TopicSignal#await(Duration)} does, and
	 * also until jobs are delivered for the calling thread's offer.
	 */
	boolean await(ReadySignals.TopicSignal signal, String topic, Duration timeout, Offer offer)
			throws InterruptedException {
		Thread thread = Thread.currentThread();
		Held mine;
		synchronized (this.offered) {
			Map<Thread, Held> waiting = this.offered.computeIfAbsent(topic, (key) -> new LinkedHashMap<>());
			mine = waiting.get(thread);
			if (mine == null || !mine.offer.equals(offer)) {
				// jobs held for another offer stay to be reclaimed: this wait makes none
				mine = (mine != null && !mine.jobs.isEmpty()) ? null : new Held(offer, signal);
				if (mine != null) {
					waiting.put(thread, mine);
				}
			}
			if (mine != null) {
				mine.signal = signal;
				mine.waiting = true;
			}
		}
		if (mine == null) {
			return signal.await(timeout);
		}
		Held held = mine;
		try {
			return signal.await(timeout, () -> isFresh(held));
		}
		finally {
			synchronized (this.offered) {
				held.waiting = false;
				forgetIfDone(topic, thread, held);
			}
		}
	}

	/** Per allowed topic with no marked bucket, its longest waiting consumer's offer, up to {@code limit}. */
	List<Offering> idleOffers(int limit, Predicate<String> allowed) {
		List<Offering> offers = new ArrayList<>();
		synchronized (this.offered) {
			this.offered.forEach((topic, waiting) -> waiting.entrySet()
				.stream()
				.filter((entry) -> entry.getValue().waiting && entry.getValue().jobs.isEmpty())
				.findFirst()
				.ifPresent((entry) -> offers.add(new Offering(topic, entry.getKey(), entry.getValue().offer))));
		}
		// outside the offers' monitor, as in deliver
		offers.removeIf((offer) -> !allowed.test(offer.topic()) || this.signals.isAnyMarked(offer.topic()));
		return (offers.size() > limit) ? new ArrayList<>(offers.subList(0, limit)) : offers;
	}

	/** How many consumers of a topic wait with no marked bucket and no delivered jobs. */
	int idleConsumers(String topic) {
		ReadySignals.TopicSignal signal = this.signals.existing(topic);
		int idle = (signal != null) ? signal.idleWaiting() : 0;
		synchronized (this.offered) {
			for (Held held : this.offered.getOrDefault(topic, Map.of()).values()) {
				if (held.waiting && held.isFresh()) {
					idle--;
				}
			}
		}
		return Math.max(idle, 0);
	}

	/** Hands jobs reserved for an offer to its consumer; {@code false} when it no longer waits with it. */
	boolean deliver(Offering offering, List<ReservedJob> jobs) {
		ReadySignals.TopicSignal signal;
		synchronized (this.offered) {
			Held target = held(offering.topic(), offering.thread());
			if (target == null || !target.waiting || !target.offer.equals(offering.offer())) {
				return false;
			}
			target.jobs.addAll(jobs);
			target.deliveredNanos = System.nanoTime();
			target.refused = false;
			signal = target.signal;
		}
		// woken outside the offers' monitor: a waiting consumer holds its signal's, then takes the offers'
		signal.wake();
		return true;
	}

	/** Takes back those of {@code jobs} its consumer did not collect, matched by identity. */
	List<ReservedJob> reclaim(Offering offering, List<ReservedJob> jobs) {
		synchronized (this.offered) {
			Held target = held(offering.topic(), offering.thread());
			if (target == null) {
				return List.of();
			}
			List<ReservedJob> left = new ArrayList<>();
			for (ReservedJob job : jobs) {
				if (target.jobs.removeIf((held) -> held == job)) {
					left.add(job);
				}
			}
			forgetIfDone(offering.topic(), offering.thread(), target);
			return left;
		}
	}

	/** Up to {@code max} jobs delivered for the calling thread's offer, if its TTR and limit match. */
	List<ReservedJob> collect(String topic, int max, long ttrMillis, int attemptsLimit) {
		Thread thread = Thread.currentThread();
		synchronized (this.offered) {
			Held mine = held(topic, thread);
			if (mine == null || !mine.isFresh() || mine.offer.ttrMillis() != ttrMillis
					|| mine.offer.attemptsLimit() != attemptsLimit) {
				return List.of();
			}
			List<ReservedJob> head = mine.jobs.subList(0, Math.min(max, mine.jobs.size()));
			List<ReservedJob> taken = new ArrayList<>(head);
			head.clear();
			forgetIfDone(topic, thread, mine);
			return taken;
		}
	}

	/** Leaves the jobs delivered for the calling thread's offer to be reclaimed. */
	void refuseDelivered(String topic) {
		synchronized (this.offered) {
			Held mine = held(topic, Thread.currentThread());
			if (mine != null) {
				mine.refused = true;
			}
		}
	}

	private boolean isFresh(Held held) {
		synchronized (this.offered) {
			return held.isFresh();
		}
	}

	private @Nullable Held held(String topic, Thread thread) {
		Map<Thread, Held> waiting = this.offered.get(topic);
		return (waiting != null) ? waiting.get(thread) : null;
	}

	private void forgetIfDone(String topic, Thread thread, Held held) {
		Map<Thread, Held> waiting = this.offered.get(topic);
		if (waiting != null && held.jobs.isEmpty() && !held.waiting) {
			waiting.remove(thread, held);
			if (waiting.isEmpty()) {
				this.offered.remove(topic);
			}
		}
	}

	/** What a waiting consumer's next reserve takes; 0 TTR or attempts limit: each job's own. */
	record Offer(int max, long ttrMillis, int attemptsLimit) {

	}

	/** The offer of a consumer of a topic waiting on a thread. */
	record Offering(String topic, Thread thread, Offer offer) {

	}

	/** A consumer's offer and the jobs reserved for it; guarded by the offers' monitor. */
	private static final class Held {

		final Offer offer;

		/** The signal its consumer waits on. */
		ReadySignals.TopicSignal signal;

		final List<ReservedJob> jobs = new ArrayList<>();

		boolean waiting;

		boolean refused;

		long deliveredNanos;

		Held(Offer offer, ReadySignals.TopicSignal signal) {
			this.offer = offer;
			this.signal = signal;
		}

		/** Whether delivered jobs still wait for their consumer. */
		boolean isFresh() {
			return !this.jobs.isEmpty() && !this.refused
					&& System.nanoTime() - this.deliveredNanos <= STALE_DELIVERY.toNanos();
		}

	}

}
