package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What this instance knows about where READY jobs wait: per consumed topic, the buckets
 * whose ready list may hold jobs. Consumers reserve only from those buckets and sleep while
 * there are none; promotions, schedules and the timer's guard re-announcements (in this JVM
 * directly, from other instances over pub/sub) mark buckets; a reserve that leaves a bucket
 * empty clears it, unless it was marked again meanwhile.
 *
 * <p>
 * A topic seen for the first time starts with the buckets a probe of Redis finds non-empty
 * (one cheap read per bucket instead of a reserve per bucket); every topic is marked whole
 * after a reconnect, so that nothing announced while nobody listened is missed. Topics are
 * chosen by callers (HTTP clients among them), so the state stays bounded: once more than
 * {@value #MAX_IDLE_TOPICS} topics are known, those that nobody waited on or reserved from for
 * {@link #IDLE} are forgotten (a later use starts them again with a probe).
 */
final class ReadySignals {

	/** How many topics may be known before idle ones are forgotten. */
	static final int MAX_IDLE_TOPICS = 256;

	/** How long a topic nobody uses is remembered once there are many. */
	static final Duration IDLE = Duration.ofMinutes(1);

	private final int buckets;

	private final @Nullable Function<String, boolean[]> probe;

	private final ConcurrentMap<String, TopicSignal> topics = new ConcurrentHashMap<>();

	/** The consumers waiting in {@link TopicSignal#await}, of every topic. */
	private final AtomicInteger waiters = new AtomicInteger();

	private final int maxIdleTopics;

	private final long idleNanos;

	/**
	 * Signals without a probe: a new topic starts with every bucket marked.
	 * @param buckets the number of buckets
	 */
	ReadySignals(int buckets) {
		this(buckets, null);
	}

	/**
	 * Signals with a probe of Redis for new topics.
	 * @param buckets the number of buckets
	 * @param probe the buckets whose ready list of a topic is not empty, or {@code null}
	 * to start every new topic with every bucket marked
	 */
	ReadySignals(int buckets, @Nullable Function<String, boolean[]> probe) {
		this(buckets, probe, MAX_IDLE_TOPICS, IDLE);
	}

	ReadySignals(int buckets, @Nullable Function<String, boolean[]> probe, int maxIdleTopics, Duration idle) {
		this.buckets = buckets;
		this.probe = probe;
		this.maxIdleTopics = maxIdleTopics;
		this.idleNanos = idle.toNanos();
	}

	/**
	 * The signal of a topic, created on first use: every bucket marked, then the buckets that
	 * the probe finds empty cleared (a mark that arrives meanwhile stays). Runs the probe on
	 * the caller's thread when the topic is new.
	 * @param topic the topic
	 * @return the signal
	 */
	TopicSignal topic(String topic) {
		TopicSignal signal = this.topics.get(topic);
		if (signal != null) {
			signal.used();
			if (this.topics.get(topic) == signal) {
				return signal;
			}
			// forgotten while it was looked up: start it again
		}
		TopicSignal created = new TopicSignal(this.buckets, this.waiters);
		signal = this.topics.putIfAbsent(topic, created);
		if (signal != null) {
			signal.used();
			return signal;
		}
		forgetIdle();
		if (this.probe != null) {
			long[] generations = created.generations();
			boolean[] nonEmpty;
			try {
				nonEmpty = this.probe.apply(topic);
			}
			catch (RuntimeException ex) {
				// Redis did not answer: every bucket stays marked, reserve finds out
				return created;
			}
			for (int bucket = 0; bucket < this.buckets; bucket++) {
				if (!nonEmpty[bucket]) {
					created.clear(bucket, generations[bucket]);
				}
			}
		}
		return created;
	}

	/**
	 * The signal of a topic if it is known, without creating it (no probe).
	 * @param topic the topic
	 * @return the signal, or {@code null} when the topic is not known
	 */
	@Nullable TopicSignal existing(String topic) {
		return this.topics.get(topic);
	}

	/**
	 * How many topics are known.
	 * @return the count
	 */
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

	/**
	 * Marks a bucket of a topic that this instance consumes; other topics are ignored.
	 * @param topic the topic
	 * @param bucket the bucket whose ready list got jobs
	 */
	void markReady(String topic, int bucket) {
		TopicSignal signal = this.topics.get(topic);
		if (signal != null && bucket >= 0 && bucket < this.buckets) {
			signal.mark(bucket);
		}
	}

	/**
	 * Whether a bucket of a topic is marked: no reserve found it empty since it was last
	 * marked.
	 * @param topic the topic
	 * @param bucket the bucket
	 * @return {@code true} when it is marked, {@code false} also for a topic that is not known
	 */
	boolean isMarked(String topic, int bucket) {
		TopicSignal signal = this.topics.get(topic);
		return signal != null && signal.markedGeneration(bucket) >= 0;
	}

	/**
	 * How often a bucket of a topic was marked so far: a later value tells that it was marked
	 * since.
	 * @param topic the topic
	 * @param bucket the bucket
	 * @return the bucket's generation, or -1 for a topic that is not known
	 */
	long generation(String topic, int bucket) {
		TopicSignal signal = this.topics.get(topic);
		return (signal != null) ? signal.generation(bucket) : -1;
	}

	/**
	 * How many consumers of a topic wait in {@link TopicSignal#await} with no marked bucket to
	 * take from: each takes at least one job of the next bucket marked.
	 * @param topic the topic
	 * @return the idle consumers, 0 for a topic that is not known
	 */
	int idleConsumers(String topic) {
		TopicSignal signal = this.topics.get(topic);
		return (signal != null) ? signal.idle() : 0;
	}

	/**
	 * Whether any consumer of any topic waits for work.
	 * @return {@code true} when one does
	 */
	boolean anyWaiting() {
		return this.waiters.get() > 0;
	}

	/**
	 * Marks one bucket of every topic (jobs of unknown topics became READY there).
	 * @param bucket the bucket
	 */
	void markBucket(int bucket) {
		if (bucket >= 0 && bucket < this.buckets) {
			this.topics.values().forEach((signal) -> signal.mark(bucket));
		}
	}

	/**
	 * Marks every bucket of every topic: after a reconnect, notifications may have been lost.
	 */
	void markAll() {
		this.topics.values().forEach(TopicSignal::markAll);
	}

	/**
	 * Wakes every waiting consumer without marking anything (shutdown).
	 */
	void wakeAll() {
		this.topics.values().forEach(TopicSignal::wake);
	}

	/**
	 * The buckets of one topic that may hold READY jobs.
	 */
	static final class TopicSignal {

		private final ReentrantLock lock = new ReentrantLock();

		private final Condition marked = this.lock.newCondition();

		private final boolean[] pending;

		private final long[] generations;

		private int pendingCount;

		private int rotation;

		private int waiting;

		private volatile long lastUsedNanos = System.nanoTime();

		/** Until when (System.nanoTime) the topic's rate limit holds no permit; 0: none known. */
		private long throttledUntilNanos;

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

		boolean isIdle(long nowNanos, long idleNanos) {
			this.lock.lock();
			try {
				return this.waiting == 0 && nowNanos - this.lastUsedNanos > idleNanos;
			}
			finally {
				this.lock.unlock();
			}
		}

		long[] generations() {
			this.lock.lock();
			try {
				return this.generations.clone();
			}
			finally {
				this.lock.unlock();
			}
		}

		void mark(int bucket) {
			this.lock.lock();
			try {
				this.generations[bucket]++;
				if (!this.pending[bucket]) {
					this.pending[bucket] = true;
					this.pendingCount++;
				}
				this.marked.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}

		int idle() {
			this.lock.lock();
			try {
				return (this.pendingCount == 0) ? this.waiting : 0;
			}
			finally {
				this.lock.unlock();
			}
		}

		void markAll() {
			for (int b = 0; b < this.pending.length; b++) {
				mark(b);
			}
		}

		void wake() {
			this.lock.lock();
			try {
				this.marked.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * The marked buckets with the generation of each, starting at a bucket that rotates
		 * from call to call so that consumers share the buckets fairly.
		 * @return pairs of bucket and generation
		 */
		long[][] candidates() {
			this.lock.lock();
			try {
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
			finally {
				this.lock.unlock();
			}
		}

		long generation(int bucket) {
			this.lock.lock();
			try {
				return this.generations[bucket];
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * The generation of a bucket that is marked, to {@link #clear} it with once it is found
		 * empty.
		 * @param bucket the bucket
		 * @return its generation, or -1 when it is not marked
		 */
		long markedGeneration(int bucket) {
			this.lock.lock();
			try {
				return this.pending[bucket] ? this.generations[bucket] : -1;
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * Clears a bucket found empty, unless it was marked since {@code generation}.
		 * @param bucket the bucket
		 * @param generation the generation read before the bucket was found empty
		 */
		void clear(int bucket, long generation) {
			this.lock.lock();
			try {
				if (this.pending[bucket] && this.generations[bucket] == generation) {
					this.pending[bucket] = false;
					this.pendingCount--;
				}
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * Notes that the topic's rate limit has no permit for a while: {@link #await} waits
		 * until then even when buckets are marked, and {@link #isThrottled} says so.
		 * @param millis how long, by Redis's clock
		 */
		void throttle(long millis) {
			this.lock.lock();
			try {
				long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, millis));
				if (this.throttledUntilNanos == 0 || until - this.throttledUntilNanos > 0) {
					this.throttledUntilNanos = until;
				}
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * Whether the topic's rate limit is known to have no permit now.
		 * @return {@code true} until the time {@link #throttle} was given
		 */
		boolean isThrottled() {
			this.lock.lock();
			try {
				return throttledNanos() > 0;
			}
			finally {
				this.lock.unlock();
			}
		}

		/** How long the throttle still holds (0: not throttled); under the lock. */
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

		/**
		 * Waits until a bucket is marked and the topic's rate limit is not known to be
		 * exhausted ({@link #throttle}).
		 * @param timeout the longest wait
		 * @return whether a bucket is marked (and no throttle holds)
		 * @throws InterruptedException when interrupted
		 */
		boolean await(Duration timeout) throws InterruptedException {
			long nanos = timeout.toNanos();
			this.lock.lockInterruptibly();
			try {
				this.waiting++;
				this.allWaiting.incrementAndGet();
				while (true) {
					long throttled = (this.pendingCount == 0) ? 0 : throttledNanos();
					if (this.pendingCount > 0 && throttled == 0) {
						return true;
					}
					if (nanos <= 0) {
						return false;
					}
					// marked but throttled: sleep until the window opens (no command meanwhile)
					long wait = (this.pendingCount == 0) ? nanos : Math.min(nanos, throttled);
					long left = this.marked.awaitNanos(wait);
					nanos -= wait - Math.max(0, left);
				}
			}
			finally {
				this.waiting--;
				this.allWaiting.decrementAndGet();
				this.lastUsedNanos = System.nanoTime();
				this.lock.unlock();
			}
		}

	}

}
