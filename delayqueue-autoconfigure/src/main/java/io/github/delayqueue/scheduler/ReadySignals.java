package io.github.delayqueue.scheduler;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this instance knows about where READY jobs wait: per consumed topic, the buckets
 * whose ready list may hold jobs. Consumers reserve only from those buckets and sleep while
 * there are none; promotions, schedules and the timer's guard re-announcements (in this JVM
 * directly, from other instances over pub/sub) mark buckets; a reserve that leaves a bucket
 * empty clears it, unless it was marked again meanwhile.
 *
 * <p>
 * A topic seen for the first time, and every topic after a reconnect, starts with every
 * bucket marked, so that nothing announced while nobody listened is missed.
 */
public final class ReadySignals {

	private final int buckets;

	private final ConcurrentMap<String, TopicSignal> topics = new ConcurrentHashMap<>();

	public ReadySignals(int buckets) {
		this.buckets = buckets;
	}

	/**
	 * The signal of a topic, created (every bucket marked) on first use.
	 * @param topic the topic
	 * @return the signal
	 */
	public TopicSignal topic(String topic) {
		return this.topics.computeIfAbsent(topic, (name) -> new TopicSignal(this.buckets));
	}

	/**
	 * Marks a bucket of a topic that this instance consumes; other topics are ignored.
	 * @param topic the topic
	 * @param bucket the bucket whose ready list got jobs
	 */
	public void markReady(String topic, int bucket) {
		TopicSignal signal = this.topics.get(topic);
		if (signal != null && bucket >= 0 && bucket < this.buckets) {
			signal.mark(bucket);
		}
	}

	/**
	 * Marks one bucket of every topic (jobs of unknown topics became READY there).
	 * @param bucket the bucket
	 */
	public void markBucket(int bucket) {
		if (bucket >= 0 && bucket < this.buckets) {
			this.topics.values().forEach((signal) -> signal.mark(bucket));
		}
	}

	/**
	 * Marks every bucket of every topic: after a reconnect, notifications may have been lost.
	 */
	public void markAll() {
		this.topics.values().forEach(TopicSignal::markAll);
	}

	/**
	 * Wakes every waiting consumer without marking anything (shutdown).
	 */
	public void wakeAll() {
		this.topics.values().forEach(TopicSignal::wake);
	}

	/**
	 * The buckets of one topic that may hold READY jobs.
	 */
	public static final class TopicSignal {

		private final ReentrantLock lock = new ReentrantLock();

		private final Condition marked = this.lock.newCondition();

		private final boolean[] pending;

		private final long[] generations;

		private int pendingCount;

		private int rotation;

		TopicSignal(int buckets) {
			this.pending = new boolean[buckets];
			this.generations = new long[buckets];
			markAll();
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
		public long[][] candidates() {
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

		/**
		 * Clears a bucket found empty, unless it was marked since {@code generation}.
		 * @param bucket the bucket
		 * @param generation the generation read before the bucket was found empty
		 */
		public void clear(int bucket, long generation) {
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
		 * Waits until a bucket is marked.
		 * @param timeout the longest wait
		 * @return whether a bucket is marked
		 * @throws InterruptedException when interrupted
		 */
		public boolean await(Duration timeout) throws InterruptedException {
			long nanos = timeout.toNanos();
			this.lock.lockInterruptibly();
			try {
				while (this.pendingCount == 0) {
					if (nanos <= 0) {
						return false;
					}
					nanos = this.marked.awaitNanos(nanos);
				}
				return true;
			}
			finally {
				this.lock.unlock();
			}
		}

	}

}
