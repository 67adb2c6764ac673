package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Per consumed topic, the buckets whose ready list may hold jobs, which this instance's
 * consumers wait on. Thread-safe.
 */
final class ReadySignals {

	/** How many topics may be known before idle ones are forgotten. */
	static final int MAX_IDLE_TOPICS = 256;

	/** How long a topic nobody uses is remembered once there are many. */
	static final Duration IDLE = Duration.ofMinutes(1);

	private final int buckets;

	private final Function<String, boolean[]> probe;

	/** The signals of the known topics. */
	final ConcurrentMap<String, TopicSignal> topics = new ConcurrentHashMap<>();

	private final int maxIdleTopics;

	private final long idleNanos;

	/**
	 * {@code probe} finds the buckets of a new topic whose ready list is not empty; once more than
	 * {@code maxIdleTopics} are known, those nobody used for {@code idle} are forgotten.
	 */
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
		TopicSignal created = new TopicSignal(this.buckets);
		signal = this.topics.merge(topic, created, (known, absent) -> known.used() ? known : absent);
		if (signal != created) {
			return signal;
		}
		forgetIdle(created);
		try {
			boolean[] nonEmpty = this.probe.apply(topic);
			for (int bucket = 0; bucket < this.buckets; bucket++) {
				if (!nonEmpty[bucket]) {
					// unless marked since its creation
					created.clear(bucket, 1);
				}
			}
		}
		catch (RuntimeException ex) {
			// every bucket stays marked: the reserve finds out
		}
		return created;
	}

	/** The signal of a known topic. */
	@Nullable TopicSignal existing(String topic) {
		return this.topics.get(topic);
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

	/** Whether any consumer of any topic waits. */
	boolean anyWaiting() {
		return this.topics.values().stream().anyMatch((signal) -> !signal.parked.isEmpty());
	}

	/** How many consumers of a known topic wait, 0 while a bucket of it is marked. */
	int idleWaiting(String topic) {
		TopicSignal signal = this.topics.get(topic);
		return (signal == null || signal.pendingCount > 0) ? 0 : signal.parked.size();
	}

	/** Marks every bucket of every topic. */
	void markAll() {
		this.topics.values().forEach(TopicSignal::markAll);
	}

	/** The buckets of one topic that may hold READY jobs. Guarded by its monitor; its waiters park. */
	static final class TopicSignal {

		private final boolean[] pending;

		private final long[] generations;

		/** Written under the monitor, read without it. */
		private volatile int pendingCount;

		private int rotation;

		/** The threads waiting in {@link #await}, unparked by a mark; added under the monitor. */
		private final Set<Thread> parked = ConcurrentHashMap.newKeySet();

		private long lastUsedNanos = System.nanoTime();

		/** Whether the signal left its topic's map: a wait on it returns at once, to look the topic up again. */
		private boolean forgotten;

		/** Until when (nano time) the topic's rate limit holds no permit. */
		private long throttledUntilNanos = System.nanoTime();

		TopicSignal(int buckets) {
			this.pending = new boolean[buckets];
			this.generations = new long[buckets];
			markAll();
		}

		/** Notes a use; {@code false} when the signal is forgotten (its topic gets a new one). */
		synchronized boolean used() {
			this.lastUsedNanos = System.nanoTime();
			return !this.forgotten;
		}

		/** Forgets the signal when nobody waits on it and it was not used for {@code idleNanos}. */
		synchronized boolean forgetIfIdle(long nowNanos, long idleNanos) {
			if (this.parked.isEmpty() && nowNanos - this.lastUsedNanos > idleNanos) {
				this.forgotten = true;
			}
			return this.forgotten;
		}

		synchronized void mark(int bucket) {
			pend(bucket);
			this.parked.forEach(LockSupport::unpark);
		}

		/** Marks every bucket and unparks each waiter once. */
		synchronized void markAll() {
			for (int b = 0; b < this.pending.length; b++) {
				pend(b);
			}
			this.parked.forEach(LockSupport::unpark);
		}

		private void pend(int bucket) {
			this.generations[bucket]++;
			if (!this.pending[bucket]) {
				this.pending[bucket] = true;
				this.pendingCount++;
			}
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
			if (until - this.throttledUntilNanos > 0) {
				this.throttledUntilNanos = until;
			}
		}

		/** Whether the topic's rate limit has no permit now. */
		synchronized boolean isThrottled() {
			return throttledNanos() > 0;
		}

		/** How long the throttle still holds, 0: none. */
		private long throttledNanos() {
			return Math.max(this.throttledUntilNanos - System.nanoTime(), 0);
		}

		/** Waits until a bucket is marked and no throttle holds; {@code false} on timeout. */
		boolean await(Duration timeout) throws InterruptedException {
			return await(timeout, () -> false);
		}

		/** Waits as {@link #await(Duration)}, or until {@code done}, checked after each unpark. */
		boolean await(Duration timeout, BooleanSupplier done) throws InterruptedException {
			long deadline = System.nanoTime() + timeout.toNanos();
			synchronized (this) {
				if (this.forgotten && !Thread.currentThread().isInterrupted()) {
					return true;
				}
				// parked before the first check: a mark or an unpark after it ends the park at once
				this.parked.add(Thread.currentThread());
			}
			try {
				while (true) {
					if (Thread.interrupted()) {
						throw new InterruptedException();
					}
					long wait = done.getAsBoolean() ? 0 : untilWoken(deadline);
					if (wait <= 0) {
						return wait == 0;
					}
					LockSupport.parkNanos(this, wait);
				}
			}
			finally {
				synchronized (this) {
					this.parked.remove(Thread.currentThread());
					this.lastUsedNanos = System.nanoTime();
				}
			}
		}

		/** How long a waiter may park; 0: a bucket is marked and no throttle holds, -1: timed out. */
		private synchronized long untilWoken(long deadline) {
			long throttled = (this.pendingCount == 0) ? Long.MAX_VALUE : throttledNanos();
			long left = deadline - System.nanoTime();
			return (throttled == 0) ? 0 : (left <= 0) ? -1 : Math.min(left, throttled);
		}

	}

}
