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
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * What this instance knows about where READY jobs wait: per consumed topic, the buckets
 * whose ready list may hold jobs. Consumers reserve only from those buckets and sleep while
 * there are none; promotions, schedules and the timer's guard re-announcements (in this JVM
 * directly, from other instances over pub/sub) mark buckets; a reserve that leaves a bucket
 * empty clears it, unless it was marked again meanwhile.
 *
 * <p>
 * A topic seen for the first time starts with the buckets a probe of Redis finds non-empty;
 * every topic is marked whole after a reconnect, so that nothing announced while nobody
 * listened is missed. Topics are chosen by callers (HTTP clients among them), so the state
 * stays bounded: once more than {@value #MAX_IDLE_TOPICS} topics are known, those that nobody
 * waited on or reserved from for {@link #IDLE} are forgotten (a later use starts them again
 * with a probe).
 *
 * <p>
 * A consumer that waits with an {@link Offer} (what its next reserve on the same thread takes)
 * lets this instance's timer reserve the jobs it makes due for it at once ({@link #idleOffers},
 * {@link #deliver}); its next reserve collects them ({@link TopicSignal#collect}), and what it
 * does not collect is taken back ({@link #reclaim}) to be given back to Redis.
 */
final class ReadySignals {

	/** How many topics may be known before idle ones are forgotten. */
	static final int MAX_IDLE_TOPICS = 256;

	/** How long a topic nobody uses is remembered once there are many. */
	static final Duration IDLE = Duration.ofMinutes(1);

	/**
	 * How long jobs delivered for an offer may wait for their consumer before they are no longer
	 * handed out: their hand-back was due long before. They stay for it (a hand-back that runs
	 * late still gives them back); one dropped by a stop that could not wait for it, or a
	 * crash, leaves them to their TTR in Redis.
	 */
	static final Duration STALE_DELIVERY = Duration.ofSeconds(1);

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
	 * The offers of consumers that wait with one and have no marked bucket to take from: one
	 * per topic (the longest waiting consumer's), for at most {@code limit} topics.
	 * @param limit the most topics
	 * @param allowed which topics may have jobs reserved at once
	 * @return the offers
	 */
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

	/**
	 * Hands jobs that a timer step reserved for an offer to the consumer that made it, and
	 * wakes it.
	 * @param offering the offer
	 * @param jobs the jobs reserved for it
	 * @return {@code false} when the consumer no longer waits with that offer (the caller
	 * gives the jobs back)
	 */
	boolean deliver(Offering offering, List<ReservedJob> jobs) {
		TopicSignal signal = offering.signal();
		return signal != null && signal.deliver(offering, jobs);
	}

	/**
	 * Takes back the jobs of an offer that its consumer did not collect.
	 * @param offering the offer
	 * @param jobs the jobs delivered to it
	 * @return those of them not collected (the caller gives them back)
	 */
	List<ReservedJob> reclaim(Offering offering, List<ReservedJob> jobs) {
		TopicSignal signal = offering.signal();
		return (signal != null) ? signal.reclaim(offering, jobs) : List.of();
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
	 * What a waiting consumer's next reserve takes.
	 *
	 * @param max the most jobs
	 * @param ttrMillis the TTR of the reservation, 0 for each job's own
	 * @param attemptsLimit the attempts limit stored with the jobs, 0 for each job's own
	 */
	record Offer(int max, long ttrMillis, int attemptsLimit) {

	}

	/**
	 * The offer of a consumer waiting for a topic, on its thread.
	 *
	 * @param topic the topic
	 * @param thread the consumer's thread
	 * @param offer what its next reserve takes
	 * @param signal the signal the consumer waits on (where jobs for it are left, also should
	 * the topic be forgotten and started again meanwhile), or {@code null} for an offer that
	 * no consumer made (tests)
	 */
	record Offering(String topic, Thread thread, Offer offer, @Nullable TopicSignal signal) {

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

		/**
		 * The consumers that wait with an offer, in the order they came, and those that hold
		 * jobs reserved for them that they have not collected yet.
		 */
		private final Map<Thread, Offered> offered = new LinkedHashMap<>();

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
				if (this.pendingCount > 0) {
					return 0;
				}
				// (a consumer that jobs were delivered to is about to take them)
				int busy = 0;
				for (Offered candidate : this.offered.values()) {
					if (candidate.waiting && fresh(candidate)) {
						busy++;
					}
				}
				return this.waiting - busy;
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
			return await(timeout, null);
		}

		/**
		 * Waits as {@link #await(Duration)} does; with an offer, also until jobs are
		 * {@link #deliver delivered} for it, which the thread's next {@link #collect} takes.
		 * @param timeout the longest wait
		 * @param offer what the thread's next reserve takes, or {@code null}
		 * @return whether a bucket is marked (and no throttle holds), or jobs wait for the
		 * thread
		 * @throws InterruptedException when interrupted
		 */
		boolean await(Duration timeout, @Nullable Offer offer) throws InterruptedException {
			long nanos = timeout.toNanos();
			this.lock.lockInterruptibly();
			Offered mine = null;
			try {
				this.waiting++;
				this.allWaiting.incrementAndGet();
				if (offer != null) {
					Thread thread = Thread.currentThread();
					mine = this.offered.get(thread);
					if (mine == null || !mine.offer.equals(offer)) {
						// (jobs delivered for another offer stay until they are taken back)
						mine = (mine != null && !mine.jobs.isEmpty()) ? null : new Offered(offer);
						if (mine != null) {
							this.offered.put(thread, mine);
						}
					}
					if (mine != null) {
						mine.waiting = true;
					}
				}
				while (true) {
					if (mine != null && fresh(mine)) {
						return true;
					}
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
				if (mine != null) {
					mine.waiting = false;
					if (mine.jobs.isEmpty()) {
						this.offered.remove(Thread.currentThread(), mine);
					}
				}
				this.lock.unlock();
			}
		}

		/**
		 * The offer of the consumer that waits longest with one, when no bucket is marked (a
		 * marked bucket is for the waiting consumers to take from) and no jobs wait for it.
		 * @param topic this signal's topic
		 * @return the offer, or {@code null}
		 */
		@Nullable Offering idleOffer(String topic) {
			this.lock.lock();
			try {
				if (this.pendingCount > 0) {
					return null;
				}
				for (Map.Entry<Thread, Offered> entry : this.offered.entrySet()) {
					Offered candidate = entry.getValue();
					if (candidate.waiting && candidate.jobs.isEmpty()) {
						return new Offering(topic, entry.getKey(), candidate.offer, this);
					}
				}
				return null;
			}
			finally {
				this.lock.unlock();
			}
		}

		boolean deliver(Offering offering, List<ReservedJob> jobs) {
			this.lock.lock();
			try {
				Offered target = this.offered.get(offering.thread());
				if (target == null || !target.waiting || !target.offer.equals(offering.offer())) {
					return false;
				}
				target.jobs.addAll(jobs);
				target.deliveredNanos = System.nanoTime();
				target.refused = false;
				this.marked.signalAll();
				return true;
			}
			finally {
				this.lock.unlock();
			}
		}

		List<ReservedJob> reclaim(Offering offering, List<ReservedJob> jobs) {
			this.lock.lock();
			try {
				Offered target = this.offered.get(offering.thread());
				if (target == null) {
					return List.of();
				}
				List<ReservedJob> left = new ArrayList<>();
				for (ReservedJob job : jobs) {
					// (identity: the same reservation, not an equal one)
					if (target.jobs.removeIf((held) -> held == job)) {
						left.add(job);
					}
				}
				if (target.jobs.isEmpty() && !target.waiting) {
					this.offered.remove(offering.thread(), target);
				}
				return left;
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * Leaves the jobs delivered for the calling thread's offer to their hand-back: its
		 * reserves do not take them (the topic got a rate limit, whose reserves take permits
		 * first), and its waits no longer return for them.
		 */
		void refuseDelivered() {
			this.lock.lock();
			try {
				Offered mine = this.offered.get(Thread.currentThread());
				if (mine != null) {
					mine.refused = true;
				}
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * The jobs delivered for the calling thread's offer, when its reserve asks for what
		 * the offer said: up to {@code max} of them, in their order.
		 * @param max the most jobs
		 * @param ttrMillis the reserve's TTR, 0 for each job's own
		 * @param attemptsLimit the reserve's attempts limit, 0 for each job's own
		 * @return the jobs, empty when none wait for this thread
		 */
		List<ReservedJob> collect(int max, long ttrMillis, int attemptsLimit) {
			this.lock.lock();
			try {
				Thread thread = Thread.currentThread();
				Offered mine = this.offered.get(thread);
				if (mine == null || !fresh(mine) || mine.offer.ttrMillis() != ttrMillis
						|| mine.offer.attemptsLimit() != attemptsLimit) {
					return List.of();
				}
				int n = Math.min(max, mine.jobs.size());
				List<ReservedJob> taken = new ArrayList<>(mine.jobs.subList(0, n));
				mine.jobs.subList(0, n).clear();
				if (mine.jobs.isEmpty() && !mine.waiting) {
					this.offered.remove(thread, mine);
				}
				return taken;
			}
			finally {
				this.lock.unlock();
			}
		}

	}

	/**
	 * Whether jobs delivered for an offer wait for their consumer, delivered no longer than
	 * {@link #STALE_DELIVERY} ago and not refused by its reserve (under the signal's lock).
	 */
	private static boolean fresh(Offered offered) {
		return !offered.jobs.isEmpty() && !offered.refused
				&& System.nanoTime() - offered.deliveredNanos <= STALE_DELIVERY.toNanos();
	}

	/**
	 * A consumer's offer and the jobs reserved for it (guarded by its signal's lock).
	 */
	private static final class Offered {

		final Offer offer;

		final List<ReservedJob> jobs = new ArrayList<>();

		boolean waiting;

		/** When jobs were last delivered (System.nanoTime). */
		long deliveredNanos;

		/** Whether the jobs delivered are left to their hand-back ({@link TopicSignal#refuseDelivered}). */
		boolean refused;

		Offered(Offer offer) {
			this.offer = offer;
		}

	}

}
