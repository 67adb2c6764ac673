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
import org.jspecify.annotations.Nullable;

/**
 * Per consumed topic, the buckets whose ready list may hold jobs, which this instance's
 * consumers wait on; a consumer may wait with an {@link Offer} for jobs the timer reserves for
 * it. Thread-safe.
 */
final class ReadySignals {

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
		if (signal != null) {
			signal.used();
			if (this.topics.get(topic) == signal) {
				return signal;
			}
		}
		TopicSignal created = new TopicSignal(this.buckets, this.waiters);
		signal = this.topics.putIfAbsent(topic, created);
		if (signal != null) {
			signal.used();
			return signal;
		}
		forgetIdle();
		long[] generations = created.generations();
		boolean[] nonEmpty;
		try {
			nonEmpty = this.probe.apply(topic);
		}
		catch (RuntimeException ex) {
			return created;
		}
		for (int bucket = 0; bucket < this.buckets; bucket++) {
			if (!nonEmpty[bucket]) {
				created.clear(bucket, generations[bucket]);
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

	private void forgetIdle() {
		if (this.topics.size() <= this.maxIdleTopics) {
			return;
		}
		long now = System.nanoTime();
		this.topics.entrySet().removeIf((entry) -> entry.getValue().isIdle(now, this.idleNanos));
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

	/** How many consumers of a topic wait with no marked bucket and no delivered jobs. */
	int idleConsumers(String topic) {
		TopicSignal signal = this.topics.get(topic);
		return (signal != null) ? signal.idle() : 0;
	}

	/** Whether any consumer of any topic waits. */
	boolean anyWaiting() {
		return this.waiters.get() > 0;
	}

	/** Per allowed topic with no marked bucket, its longest waiting consumer's offer, up to {@code limit}. */
	List<Offering> idleOffers(int limit, Predicate<String> allowed) {
		List<Offering> offers = new ArrayList<>();
		if (this.waiters.get() == 0) {
			return offers;
		}
		for (Map.Entry<String, TopicSignal> entry : this.topics.entrySet()) {
			if (offers.size() >= limit) {
				break;
			}
			Offering offering = entry.getValue().idleOffer(entry.getKey());
			if (offering != null && allowed.test(entry.getKey())) {
				offers.add(offering);
			}
		}
		return offers;
	}

	/** Hands jobs reserved for an offer to its consumer; {@code false} when it no longer waits with it. */
	boolean deliver(Offering offering, List<ReservedJob> jobs) {
		TopicSignal signal = offering.signal();
		return signal != null && signal.deliver(offering, jobs);
	}

	/** Takes back the delivered jobs its consumer did not collect. */
	List<ReservedJob> reclaim(Offering offering, List<ReservedJob> jobs) {
		TopicSignal signal = offering.signal();
		return (signal != null) ? signal.reclaim(offering, jobs) : List.of();
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

	/** What a waiting consumer's next reserve takes; 0 TTR or attempts limit: each job's own. */
	record Offer(int max, long ttrMillis, int attemptsLimit) {

	}

	/** The offer of a consumer waiting on a thread, with the signal it waits on. */
	record Offering(String topic, Thread thread, Offer offer, @Nullable TopicSignal signal) {

	}

	/** The buckets of one topic that may hold READY jobs. Guarded by its monitor. */
	static final class TopicSignal {

		private final boolean[] pending;

		private final long[] generations;

		private int pendingCount;

		private int rotation;

		private int waiting;

		private volatile long lastUsedNanos = System.nanoTime();

		/** Until when (nano time) the topic's rate limit holds no permit; 0: none known. */
		private long throttledUntilNanos;

		/** The consumers waiting with an offer, in arrival order, or holding jobs for one. */
		private final Map<Thread, OfferedJobs> offered = new LinkedHashMap<>();

		private final AtomicInteger allWaiting;

		TopicSignal(int buckets, AtomicInteger allWaiting) {
			this.allWaiting = allWaiting;
			this.pending = new boolean[buckets];
			this.generations = new long[buckets];
			markAll();
		}

		void used() {
			this.lastUsedNanos = System.nanoTime();
		}

		synchronized boolean isIdle(long nowNanos, long idleNanos) {
			return this.waiting == 0 && nowNanos - this.lastUsedNanos > idleNanos;
		}

		synchronized long[] generations() {
			return this.generations.clone();
		}

		synchronized void mark(int bucket) {
			this.generations[bucket]++;
			if (!this.pending[bucket]) {
				this.pending[bucket] = true;
				this.pendingCount++;
			}
			notifyAll();
		}

		synchronized int idle() {
			if (this.pendingCount > 0) {
				return 0;
			}
			int busy = 0;
			for (OfferedJobs candidate : this.offered.values()) {
				if (candidate.waiting && candidate.isFresh()) {
					busy++;
				}
			}
			return this.waiting - busy;
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
			if (this.throttledUntilNanos == 0) {
				return 0;
			}
			long left = this.throttledUntilNanos - System.nanoTime();
			if (left <= 0) {
				this.throttledUntilNanos = 0;
				return 0;
			}
			return left;
		}

		/** Waits until a bucket is marked and no throttle holds; {@code false} on timeout. */
		boolean await(Duration timeout) throws InterruptedException {
			return await(timeout, null);
		}

		/** Waits as {@link #await(Duration)}; with an offer, also until jobs are delivered for it. */
		synchronized boolean await(Duration timeout, @Nullable Offer offer) throws InterruptedException {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			long nanos = timeout.toNanos();
			OfferedJobs mine = null;
			this.waiting++;
			this.allWaiting.incrementAndGet();
			try {
				if (offer != null) {
					Thread thread = Thread.currentThread();
					mine = this.offered.get(thread);
					if (mine == null || !mine.offer.equals(offer)) {
						mine = (mine != null && !mine.isEmpty()) ? null : new OfferedJobs(offer);
						if (mine != null) {
							this.offered.put(thread, mine);
						}
					}
					if (mine != null) {
						mine.waiting = true;
					}
				}
				while (true) {
					if (mine != null && mine.isFresh()) {
						return true;
					}
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
			}
			finally {
				this.waiting--;
				this.allWaiting.decrementAndGet();
				this.lastUsedNanos = System.nanoTime();
				if (mine != null) {
					mine.waiting = false;
					if (mine.isEmpty()) {
						this.offered.remove(Thread.currentThread(), mine);
					}
				}
			}
		}

		/** When no bucket is marked, the offer of the longest waiting consumer with no jobs yet. */
		synchronized @Nullable Offering idleOffer(String topic) {
			if (this.pendingCount > 0) {
				return null;
			}
			for (Map.Entry<Thread, OfferedJobs> entry : this.offered.entrySet()) {
				OfferedJobs candidate = entry.getValue();
				if (candidate.waiting && candidate.isEmpty()) {
					return new Offering(topic, entry.getKey(), candidate.offer, this);
				}
			}
			return null;
		}

		synchronized boolean deliver(Offering offering, List<ReservedJob> jobs) {
			OfferedJobs target = this.offered.get(offering.thread());
			if (target == null || !target.waiting || !target.offer.equals(offering.offer())) {
				return false;
			}
			target.deliver(jobs);
			notifyAll();
			return true;
		}

		synchronized List<ReservedJob> reclaim(Offering offering, List<ReservedJob> jobs) {
			OfferedJobs target = this.offered.get(offering.thread());
			if (target == null) {
				return List.of();
			}
			List<ReservedJob> left = target.reclaim(jobs);
			if (target.isDone()) {
				this.offered.remove(offering.thread(), target);
			}
			return left;
		}

		/** Leaves the jobs delivered for the calling thread's offer to be reclaimed. */
		synchronized void refuseDelivered() {
			OfferedJobs mine = this.offered.get(Thread.currentThread());
			if (mine != null) {
				mine.refuse();
			}
		}

		/** Up to {@code max} jobs delivered for the calling thread's offer, if its TTR and limit match. */
		synchronized List<ReservedJob> collect(int max, long ttrMillis, int attemptsLimit) {
			Thread thread = Thread.currentThread();
			OfferedJobs mine = this.offered.get(thread);
			if (mine == null || !mine.isFresh() || mine.offer.ttrMillis() != ttrMillis
					|| mine.offer.attemptsLimit() != attemptsLimit) {
				return List.of();
			}
			List<ReservedJob> taken = mine.take(max);
			if (mine.isDone()) {
				this.offered.remove(thread, mine);
			}
			return taken;
		}

	}

}
