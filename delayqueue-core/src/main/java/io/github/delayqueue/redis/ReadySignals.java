package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.redis.RedisTimerBackend.Offer;
import io.github.delayqueue.redis.RedisTimerBackend.Offering;
import org.jspecify.annotations.Nullable;

/**
 * Per consumed topic, the buckets whose ready list may hold jobs, which this instance's
 * consumers wait on, and the offers they wait with. Thread-safe.
 */
final class ReadySignals {

	/** How long jobs delivered for an offer are handed out to its consumer. */
	static final Duration STALE_DELIVERY = Duration.ofSeconds(1);

	/** How many topics may be known before idle ones are forgotten. */
	static final int MAX_IDLE_TOPICS = 256;

	/** How long a topic nobody uses is remembered once there are many. */
	static final Duration IDLE = Duration.ofMinutes(1);

	private final int buckets;

	private final Function<String, boolean[]> probe;

	private final ConcurrentMap<String, TopicSignal> topics = new ConcurrentHashMap<>();

	/** The consumers waiting in {@link TopicSignal#await}, of every topic. */
	private final AtomicInteger waiters = new AtomicInteger();

	private final int maxIdleTopics;

	private final long idleNanos;

	/** {@code probe} finds the buckets of a new topic whose ready list is not empty. */
	ReadySignals(int buckets, Function<String, boolean[]> probe) {
		this(buckets, probe, MAX_IDLE_TOPICS, IDLE);
	}

	ReadySignals(int buckets, Function<String, boolean[]> probe, int maxIdleTopics, Duration idle) {
		this.buckets = buckets;
		this.probe = probe;
		this.maxIdleTopics = maxIdleTopics;
		this.idleNanos = idle.toNanos();
	}

	/** The signal of a topic, created on first use with the buckets the probe finds empty cleared. */
	TopicSignal topic(String topic) {
		TopicSignal signal = this.topics.get(topic);
		if (signal != null && signal.used()) {
			return signal;
		}
		TopicSignal created = new TopicSignal(this.buckets, this.waiters);
		signal = this.topics.merge(topic, created, (known, absent) -> known.used() ? known : absent);
		if (signal != created) {
			return signal;
		}
		forgetIdle(created);
		boolean[] nonEmpty;
		try {
			nonEmpty = this.probe.apply(topic);
		}
		catch (RuntimeException ex) {
			return created;
		}
		for (int bucket = 0; bucket < this.buckets; bucket++) {
			if (!nonEmpty[bucket]) {
				// unless marked since its creation
				created.clear(bucket, 1);
			}
		}
		return created;
	}

	/** The signal of a known topic. */
	@Nullable TopicSignal existing(String topic) {
		return this.topics.get(topic);
	}

	int size() {
		return this.topics.size();
	}

	/** Forgets the idle signals but {@code kept} once there are many. */
	private void forgetIdle(TopicSignal kept) {
		if (this.topics.size() <= this.maxIdleTopics) {
			return;
		}
		long now = System.nanoTime();
		this.topics.forEach((topic, signal) -> {
			if (signal != kept && signal.forgetIfIdle(now, this.idleNanos)) {
				this.topics.remove(topic, signal);
			}
		});
	}

	/** Marks a bucket of a known topic; other topics are ignored. */
	void markReady(String topic, int bucket) {
		TopicSignal signal = this.topics.get(topic);
		if (signal != null && bucket >= 0 && bucket < this.buckets) {
			signal.mark(bucket);
		}
	}

	/** Whether a bucket of a known topic is marked. */
	boolean isMarked(String topic, int bucket) {
		TopicSignal signal = this.topics.get(topic);
		return signal != null && signal.markedGeneration(bucket) >= 0;
	}

	/** How often a bucket of a topic was marked so far, -1 for a topic that is not known. */
	long generation(String topic, int bucket) {
		TopicSignal signal = this.topics.get(topic);
		return (signal != null) ? signal.generation(bucket) : -1;
	}

	/** Whether any consumer of any topic waits. */
	boolean anyWaiting() {
		return this.waiters.get() > 0;
	}

	/** Per allowed topic with no marked bucket, its longest waiting consumer's offer, up to {@code limit}. */
	List<Offering> idleOffers(int limit, Predicate<String> allowed) {
		List<Offering> offers = new ArrayList<>();
		if (anyWaiting()) {
			this.topics.forEach((topic, signal) -> {
				Offering offer = (offers.size() < limit && allowed.test(topic)) ? signal.idleOffer(topic) : null;
				if (offer != null) {
					offers.add(offer);
				}
			});
		}
		return offers;
	}

	/** Marks one bucket of every topic. */
	void markBucket(int bucket) {
		if (bucket >= 0 && bucket < this.buckets) {
			this.topics.values().forEach((signal) -> signal.mark(bucket));
		}
	}

	/** Marks every bucket of every topic. */
	void markAll() {
		this.topics.values().forEach(TopicSignal::markAll);
	}

	/** Wakes every waiting consumer without marking anything (shutdown). */
	void wakeAll() {
		this.topics.values().forEach(TopicSignal::wake);
	}

	/** The buckets of one topic that may hold READY jobs. Guarded by its monitor. */
	static final class TopicSignal {

		private final boolean[] pending;

		private final long[] generations;

		private int pendingCount;

		private int rotation;

		private int waiting;

		private long lastUsedNanos = System.nanoTime();

		/** Whether the signal left its topic's map: a wait on it returns at once, to look the topic up again. */
		private boolean forgotten;

		/** Until when (nano time) the topic's rate limit holds no permit; 0: none known. */
		private long throttledUntilNanos;

		private final AtomicInteger allWaiting;

		/** Per waiting thread in arrival order, its offer and the jobs a step reserved for it. */
		private final Map<Thread, Held> offers = new LinkedHashMap<>();

		TopicSignal(int buckets, AtomicInteger allWaiting) {
			this.allWaiting = allWaiting;
			this.pending = new boolean[buckets];
			this.generations = new long[buckets];
			markAll();
		}

		/** Notes a use; {@code false} when the signal is forgotten (its topic gets a new one). */
		synchronized boolean used() {
			this.lastUsedNanos = System.nanoTime();
			return !this.forgotten;
		}

		/** Forgets the signal when nobody waits on it or holds jobs of it and it was not used for {@code idleNanos}. */
		synchronized boolean forgetIfIdle(long nowNanos, long idleNanos) {
			if (this.waiting == 0 && this.offers.isEmpty() && nowNanos - this.lastUsedNanos > idleNanos) {
				this.forgotten = true;
			}
			return this.forgotten;
		}

		synchronized void mark(int bucket) {
			this.generations[bucket]++;
			if (!this.pending[bucket]) {
				this.pending[bucket] = true;
				this.pendingCount++;
			}
			notifyAll();
		}

		/** How many consumers wait with no jobs delivered, 0 while a bucket is marked. */
		synchronized int idleWaiting() {
			long fresh = this.offers.values().stream().filter((held) -> held.waiting && held.isFresh()).count();
			return (this.pendingCount > 0) ? 0 : (int) Math.max(this.waiting - fresh, 0);
		}

		/** The offer of the longest waiting consumer with no jobs delivered; none while a bucket is marked. */
		synchronized @Nullable Offering idleOffer(String topic) {
			for (Map.Entry<Thread, Held> entry : this.offers.entrySet()) {
				Held held = entry.getValue();
				if (this.pendingCount == 0 && held.waiting && held.jobs.isEmpty()) {
					return new Offering(topic, entry.getKey(), held.offer);
				}
			}
			return null;
		}

		/** Hands jobs reserved for an offer to its thread; {@code false} when it no longer waits with it. */
		synchronized boolean deliver(Thread thread, Offer offer, List<ReservedJob> jobs) {
			Held held = this.offers.get(thread);
			if (held == null || !held.waiting || !held.offer.equals(offer)) {
				return false;
			}
			held.jobs.addAll(jobs);
			held.deliveredNanos = System.nanoTime();
			held.refused = false;
			notifyAll();
			return true;
		}

		/** Takes back those of {@code jobs} the thread did not collect, matched by identity. */
		synchronized List<ReservedJob> reclaim(Thread thread, List<ReservedJob> jobs) {
			Held held = this.offers.get(thread);
			if (held == null) {
				return List.of();
			}
			List<ReservedJob> left = new ArrayList<>();
			for (ReservedJob job : jobs) {
				if (held.jobs.removeIf((kept) -> kept == job)) {
					left.add(job);
				}
			}
			forgetIfDone(thread, held);
			return left;
		}

		/** Up to {@code max} jobs delivered for the calling thread's offer, if its TTR and limit match. */
		synchronized List<ReservedJob> collect(int max, long ttrMillis, int attemptsLimit) {
			Held mine = this.offers.get(Thread.currentThread());
			if (mine == null || !mine.isFresh() || mine.offer.ttrMillis() != ttrMillis
					|| mine.offer.attemptsLimit() != attemptsLimit) {
				return List.of();
			}
			List<ReservedJob> head = mine.jobs.subList(0, Math.min(max, mine.jobs.size()));
			List<ReservedJob> taken = new ArrayList<>(head);
			head.clear();
			forgetIfDone(Thread.currentThread(), mine);
			return taken;
		}

		/** Leaves the jobs delivered for the calling thread's offer to be reclaimed. */
		synchronized void refuseDelivered() {
			Held mine = this.offers.get(Thread.currentThread());
			if (mine != null) {
				mine.refused = true;
			}
		}

		private void forgetIfDone(Thread thread, Held held) {
			if (held.jobs.isEmpty() && !held.waiting) {
				this.offers.remove(thread, held);
			}
		}

		synchronized void markAll() {
			for (int b = 0; b < this.pending.length; b++) {
				mark(b);
			}
		}

		synchronized void wake() {
			notifyAll();
		}

		/** The marked buckets as pairs of bucket and generation, from a rotating start. */
		synchronized long[][] candidates() {
			long[][] result = new long[this.pendingCount][];
			int n = this.pending.length;
			int start = this.rotation;
			this.rotation = (this.rotation + 1) % n;
			int i = 0;
			for (int k = 0; k < n && i < result.length; k++) {
				int b = (start + k) % n;
				if (this.pending[b]) {
					result[i++] = new long[] { b, this.generations[b] };
				}
			}
			return result;
		}

		synchronized long generation(int bucket) {
			return this.generations[bucket];
		}

		/** The generation of a marked bucket (to {@link #clear} it with), -1 when not marked. */
		synchronized long markedGeneration(int bucket) {
			return this.pending[bucket] ? this.generations[bucket] : -1;
		}

		/** Clears a bucket found empty, unless it was marked since {@code generation}. */
		synchronized void clear(int bucket, long generation) {
			if (this.pending[bucket] && this.generations[bucket] == generation) {
				this.pending[bucket] = false;
				this.pendingCount--;
			}
		}

		/** The topic's rate limit has no permit for {@code millis}: {@link #await} waits it out. */
		synchronized void throttle(long millis) {
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, millis));
			if (this.throttledUntilNanos == 0 || until - this.throttledUntilNanos > 0) {
				this.throttledUntilNanos = until;
			}
		}

		/** Whether the topic's rate limit has no permit now. */
		synchronized boolean isThrottled() {
			return throttledNanos() > 0;
		}

		/** How long the throttle still holds, 0: none. */
		private long throttledNanos() {
			long left = (this.throttledUntilNanos != 0) ? this.throttledUntilNanos - System.nanoTime() : 0;
			if (left <= 0) {
				this.throttledUntilNanos = 0;
			}
			return Math.max(left, 0);
		}

		/** Waits until a bucket is marked and no throttle holds; {@code false} on timeout. */
		boolean await(Duration timeout) throws InterruptedException {
			return await(timeout, null);
		}

		/**
		 * Waits as {@link #await(Duration)}, or until a step delivers jobs for the calling
		 * thread's {@code offer}.
		 */
		synchronized boolean await(Duration timeout, @Nullable Offer offer) throws InterruptedException {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			if (this.forgotten) {
				return true;
			}
			Thread thread = Thread.currentThread();
			Held held = (offer != null) ? this.offers.get(thread) : null;
			if (offer != null && (held == null || (!held.offer.equals(offer) && held.jobs.isEmpty()))) {
				held = new Held(offer);
				this.offers.put(thread, held);
			}
			// jobs held for another offer stay to be reclaimed: this wait makes none
			Held mine = (held != null && held.offer.equals(offer)) ? held : null;
			if (mine != null) {
				mine.waiting = true;
			}
			long nanos = timeout.toNanos();
			this.waiting++;
			this.allWaiting.incrementAndGet();
			try {
				while (mine == null || !mine.isFresh()) {
					long throttled = (this.pendingCount == 0) ? 0 : throttledNanos();
					if (this.pendingCount > 0 && throttled == 0) {
						return true;
					}
					if (nanos <= 0) {
						return false;
					}
					long wait = (this.pendingCount == 0) ? nanos : Math.min(nanos, throttled);
					long start = System.nanoTime();
					TimeUnit.NANOSECONDS.timedWait(this, wait);
					nanos -= System.nanoTime() - start;
				}
				return true;
			}
			finally {
				this.waiting--;
				this.allWaiting.decrementAndGet();
				this.lastUsedNanos = System.nanoTime();
				if (mine != null) {
					mine.waiting = false;
					forgetIfDone(thread, mine);
				}
			}
		}

	}

	/** A consumer's offer and the jobs reserved for it; guarded by its topic's signal. */
	private static final class Held {

		final Offer offer;

		final List<ReservedJob> jobs = new ArrayList<>();

		boolean waiting;

		boolean refused;

		long deliveredNanos;

		Held(Offer offer) {
			this.offer = offer;
		}

		/** Whether delivered jobs still wait for their consumer. */
		boolean isFresh() {
			return !this.jobs.isEmpty() && !this.refused
					&& System.nanoTime() - this.deliveredNanos <= STALE_DELIVERY.toNanos();
		}

	}

}
