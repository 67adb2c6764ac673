package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import io.github.delayqueue.core.ReservedJob;

/**
 * The offers of this instance's waiting consumers, one offering per thread and topic: a timer
 * step reserves jobs for an offering, hands them over under that offering's own monitor and
 * unparks its thread alone. Thread-safe.
 */
final class Offers {

	/** How long jobs delivered for an offer are handed out to its consumer. */
	static final Duration STALE_DELIVERY = Duration.ofSeconds(1);

	private final ReadySignals signals;

	private final Predicate<String> reservable;

	/** The offerings of threads waiting with an offer or holding jobs for one, in arrival order. */
	private final Queue<Offering> offerings = new ConcurrentLinkedQueue<>();

	/** The same offerings by thread and topic: as many as wait or hold jobs. */
	final ConcurrentMap<Waiter, Offering> byWaiter = new ConcurrentHashMap<>();

	/** {@code reservable} names the topics a step may reserve jobs of for an offer. */
	Offers(ReadySignals signals, Predicate<String> reservable) {
		this.signals = signals;
		this.reservable = reservable;
	}

	/** Waits as {@link ReadySignals.TopicSignal#await(Duration)}, or until jobs are delivered for {@code offer}. */
	boolean await(String topic, Duration timeout, Offer offer) throws InterruptedException {
		ReadySignals.TopicSignal signal = this.signals.topic(topic);
		Offering held = mine(topic).orElse(null);
		Offering offering = (held != null) ? held : new Offering(topic, Thread.currentThread(), offer);
		// no step reserves for the topic, or jobs held for another offer stay to be reclaimed: no offering
		if (!this.reservable.test(topic) || !offering.resume(offer)) {
			return signal.await(timeout);
		}
		if (offering != held) {
			this.byWaiter.put(offering.waiter, offering);
			this.offerings.add(offering);
		}
		try {
			return signal.await(timeout, offering::isFresh);
		}
		finally {
			offering.waiting = false;
			forgetIfDone(offering);
		}
	}

	/**
	 * Per reservable topic with idle waiting consumers ({@link ReadySignals#idleWaiting}), its
	 * longest waiting idle consumer's offer, up to {@code limit}.
	 */
	List<Offering> idleOffers(int limit) {
		List<Offering> offers = new ArrayList<>();
		Set<String> seen = new HashSet<>();
		for (Offering offering : this.offerings) {
			if (offers.size() < limit && offering.isIdle() && seen.add(offering.topic)
					&& this.reservable.test(offering.topic) && this.signals.idleWaiting(offering.topic) > 0) {
				offers.add(offering);
			}
		}
		return offers;
	}

	/** How many consumers of a topic wait with no marked bucket and no delivered jobs. */
	int idleConsumers(String topic) {
		int waiting = this.signals.idleWaiting(topic);
		if (waiting == 0) {
			return 0;
		}
		long fresh = this.offerings.stream()
			.filter((offering) -> offering.topic.equals(topic) && offering.waiting && offering.isFresh())
			.count();
		return (int) Math.max(waiting - fresh, 0);
	}

	/** Takes back those of {@code jobs} the offer's thread did not collect, matched by identity. */
	List<ReservedJob> reclaim(Offering offering, List<ReservedJob> jobs) {
		List<ReservedJob> left = offering.reclaim(jobs);
		forgetIfDone(offering);
		return left;
	}

	/** Up to {@code max} jobs delivered for the calling thread's offer, if its topic, TTR and limit match. */
	List<ReservedJob> collect(String topic, int max, long ttrMillis, int attemptsLimit) {
		Offering offering = mine(topic).orElse(null);
		if (offering == null || offering.offer.ttrMillis() != ttrMillis
				|| offering.offer.attemptsLimit() != attemptsLimit) {
			return List.of();
		}
		List<ReservedJob> taken = offering.collect(max);
		forgetIfDone(offering);
		return taken;
	}

	/** Leaves the jobs delivered for the calling thread's offer of a topic to be reclaimed. */
	void refuseDelivered(String topic) {
		mine(topic).ifPresent(Offering::refuse);
	}

	/** The calling thread's offering for a topic; it has at most one that is not done. */
	private Optional<Offering> mine(String topic) {
		Offering offering = this.byWaiter.get(new Waiter(Thread.currentThread(), topic));
		return Optional.ofNullable(offering).filter((found) -> !found.isDone());
	}

	/** Drops an offering that is done: nothing makes it wait or hold jobs again. */
	private void forgetIfDone(Offering offering) {
		if (offering.isDone()) {
			this.byWaiter.remove(offering.waiter, offering);
			this.offerings.remove(offering);
		}
	}

	/** What a waiting consumer's next reserve takes; 0 TTR or attempts limit: each job's own. */
	record Offer(int max, long ttrMillis, int attemptsLimit) {

	}

	/** A thread waiting on a topic. */
	record Waiter(Thread thread, String topic) {

	}

	/** A thread's offer for a topic and the jobs delivered for it; guarded by its own monitor. */
	static final class Offering {

		final String topic;

		final Offer offer;

		private final Waiter waiter;

		private final List<ReservedJob> jobs = new ArrayList<>();

		/** Written under the monitor but when its thread stops waiting (no delivery after that). */
		volatile boolean waiting = true;

		private boolean refused;

		private long deliveredNanos;

		Offering(String topic, Thread thread, Offer offer) {
			this.topic = topic;
			this.offer = offer;
			this.waiter = new Waiter(thread, topic);
		}

		/** Waits (again) with the same offer, unless done. */
		synchronized boolean resume(Offer offer) {
			this.waiting = !isDone() && this.offer.equals(offer);
			return this.waiting;
		}

		synchronized boolean isIdle() {
			return this.waiting && this.jobs.isEmpty();
		}

		/** Not waiting and holding no jobs: final, as only a waiting offering gets jobs. */
		synchronized boolean isDone() {
			return !this.waiting && this.jobs.isEmpty();
		}

		/** Whether delivered jobs still wait for their consumer. */
		synchronized boolean isFresh() {
			return !this.jobs.isEmpty() && !this.refused
					&& System.nanoTime() - this.deliveredNanos <= STALE_DELIVERY.toNanos();
		}

		/** Hands jobs reserved for this offer to its thread and wakes it; {@code false} when it no longer waits. */
		synchronized boolean deliver(List<ReservedJob> delivered) {
			if (this.waiting) {
				this.jobs.addAll(delivered);
				this.deliveredNanos = System.nanoTime();
				this.refused = false;
				LockSupport.unpark(this.waiter.thread());
			}
			return this.waiting;
		}

		synchronized List<ReservedJob> reclaim(List<ReservedJob> taken) {
			List<ReservedJob> left = new ArrayList<>(taken);
			left.removeIf((job) -> !this.jobs.removeIf((kept) -> kept == job));
			return left;
		}

		synchronized List<ReservedJob> collect(int max) {
			List<ReservedJob> head = this.jobs.subList(0, isFresh() ? Math.min(max, this.jobs.size()) : 0);
			List<ReservedJob> taken = new ArrayList<>(head);
			head.clear();
			return taken;
		}

		synchronized void refuse() {
			this.refused = true;
		}

	}

}
