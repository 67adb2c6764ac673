package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * The offers of this instance's waiting consumers: per topic, the threads waiting with one in
 * arrival order, and the jobs a timer step reserved for each. A step hands jobs over without a
 * lock and wakes the one thread they are for. Thread-safe.
 */
final class Offers {

	/** How long jobs delivered for an offer are handed out to its consumer. */
	static final Duration STALE_DELIVERY = Duration.ofSeconds(1);

	private final ReadySignals signals;

	private final boolean enabled;

	private final Predicate<String> reservable;

	/** Per topic with a slot, its slots in arrival order; each list is replaced, never changed. */
	private final ConcurrentMap<String, List<Slot>> slots = new ConcurrentHashMap<>();

	/**
	 * {@code enabled} {@code false}: no consumer waits with an offer; {@code reservable} names the
	 * topics a step may reserve jobs of for an offer.
	 */
	Offers(ReadySignals signals, boolean enabled, Predicate<String> reservable) {
		this.signals = signals;
		this.enabled = enabled;
		this.reservable = reservable;
	}

	/**
	 * Waits on a topic's signal as {@link ReadySignals.TopicSignal#await(Duration)} does, and
	 * also until a step delivers jobs for the calling thread's {@code offer}.
	 */
	boolean await(String topic, Duration timeout, Offer offer) throws InterruptedException {
		ReadySignals.TopicSignal signal = this.signals.topic(topic);
		Slot mine = this.enabled ? register(topic, offer) : null;
		if (mine == null) {
			return signal.await(timeout);
		}
		try {
			return signal.await(timeout, () -> mine.state.get().isFresh());
		}
		finally {
			mine.state.updateAndGet((state) -> new State(false, state.jobs, state.deliveredNanos, state.refused));
			forgetIfDone(topic, mine);
		}
	}

	/** The calling thread's slot for {@code offer}, now waiting; none while it holds jobs for another. */
	private @Nullable Slot register(String topic, Offer offer) {
		Thread thread = Thread.currentThread();
		Slot[] mine = new Slot[1];
		this.slots.compute(topic, (key, known) -> {
			List<Slot> slots = (known != null) ? known : List.of();
			Slot held = find(slots, thread);
			if (held != null && !held.offer.equals(offer) && !held.state.get().jobs.isEmpty()) {
				// jobs held for another offer stay to be reclaimed: this wait makes none
				return known;
			}
			mine[0] = (held != null && held.offer.equals(offer)) ? held : new Slot(thread, offer);
			mine[0].state.updateAndGet((state) -> new State(true, state.jobs, state.deliveredNanos, state.refused));
			return (mine[0] == held) ? known
					: Stream.concat(slots.stream().filter((slot) -> slot != held), Stream.of(mine[0])).toList();
		});
		return mine[0];
	}

	/** Per reservable topic with no marked bucket, its longest waiting consumer's offer, up to {@code limit}. */
	List<Offering> idleOffers(int limit) {
		List<Offering> offers = new ArrayList<>();
		for (Map.Entry<String, List<Slot>> entry : this.slots.entrySet()) {
			if (offers.size() == limit) {
				break;
			}
			String topic = entry.getKey();
			if (this.reservable.test(topic) && !this.signals.isAnyMarked(topic)) {
				entry.getValue()
					.stream()
					.filter((slot) -> slot.state.get().isIdle())
					.findFirst()
					.ifPresent((slot) -> offers.add(new Offering(topic, slot.thread, slot.offer)));
			}
		}
		return offers;
	}

	/** How many consumers of a topic wait with no marked bucket and no delivered jobs. */
	int idleConsumers(String topic) {
		long fresh = slots(topic).stream().filter((slot) -> slot.state.get().waiting && slot.state.get().isFresh()).count();
		return (int) Math.max(this.signals.idleWaiting(topic) - fresh, 0);
	}

	/** Hands jobs reserved for an offer to its thread and wakes it; {@code false} when it no longer waits with it. */
	boolean deliver(Offering offering, List<ReservedJob> jobs) {
		Slot target = find(slots(offering.topic()), offering.thread());
		if (target == null || !target.offer.equals(offering.offer())) {
			return false;
		}
		// the state returned is the one this update set: waiting, unless the thread stopped first
		State delivered = target.state.updateAndGet((state) -> !state.waiting ? state
				: new State(true, Stream.concat(state.jobs.stream(), jobs.stream()).toList(), System.nanoTime(), false));
		if (!delivered.waiting) {
			return false;
		}
		LockSupport.unpark(target.thread);
		return true;
	}

	/** Takes back those of {@code jobs} the offer's thread did not collect, matched by identity. */
	List<ReservedJob> reclaim(Offering offering, List<ReservedJob> jobs) {
		Slot target = find(slots(offering.topic()), offering.thread());
		if (target == null) {
			return List.of();
		}
		List<ReservedJob> left = new ArrayList<>();
		target.state.updateAndGet((state) -> {
			left.clear();
			jobs.stream().filter((job) -> containsSame(state.jobs, job)).forEach(left::add);
			return new State(state.waiting, state.jobs.stream().filter((kept) -> !containsSame(left, kept)).toList(),
					state.deliveredNanos, state.refused);
		});
		forgetIfDone(offering.topic(), target);
		return left;
	}

	/** Up to {@code max} jobs delivered for the calling thread's offer, if its TTR and limit match. */
	List<ReservedJob> collect(String topic, int max, long ttrMillis, int attemptsLimit) {
		Slot mine = find(slots(topic), Thread.currentThread());
		if (mine == null || mine.offer.ttrMillis() != ttrMillis || mine.offer.attemptsLimit() != attemptsLimit) {
			return List.of();
		}
		List<ReservedJob> taken = new ArrayList<>();
		mine.state.updateAndGet((state) -> {
			taken.clear();
			if (!state.isFresh()) {
				return state;
			}
			int split = Math.min(max, state.jobs.size());
			taken.addAll(state.jobs.subList(0, split));
			return new State(state.waiting, state.jobs.subList(split, state.jobs.size()), state.deliveredNanos, false);
		});
		forgetIfDone(topic, mine);
		return taken;
	}

	/** Leaves the jobs delivered for the calling thread's offer to be reclaimed. */
	void refuseDelivered(String topic) {
		Slot mine = find(slots(topic), Thread.currentThread());
		if (mine != null) {
			mine.state.updateAndGet((state) -> new State(state.waiting, state.jobs, state.deliveredNanos, true));
		}
	}

	private List<Slot> slots(String topic) {
		return this.slots.getOrDefault(topic, List.of());
	}

	private static boolean containsSame(List<ReservedJob> jobs, ReservedJob job) {
		return jobs.stream().anyMatch((kept) -> kept == job);
	}

	private static @Nullable Slot find(List<Slot> slots, Thread thread) {
		return slots.stream().filter((slot) -> slot.thread == thread).findFirst().orElse(null);
	}

	/** Drops a slot that no longer waits and holds no jobs. */
	private void forgetIfDone(String topic, Slot slot) {
		// checked in the map's update, which its thread's next registration waits for
		this.slots.computeIfPresent(topic, (key, known) -> {
			State state = slot.state.get();
			List<Slot> rest = (state.waiting || !state.jobs.isEmpty()) ? known
					: known.stream().filter((kept) -> kept != slot).toList();
			return rest.isEmpty() ? null : rest;
		});
	}

	/** What a waiting consumer's next reserve takes; 0 TTR or attempts limit: each job's own. */
	record Offer(int max, long ttrMillis, int attemptsLimit) {

	}

	/** The offer of a consumer of a topic waiting on a thread. */
	record Offering(String topic, Thread thread, Offer offer) {

	}

	/** A thread's offer for one topic and what a step delivered for it. */
	private static final class Slot {

		final Thread thread;

		final Offer offer;

		final AtomicReference<State> state = new AtomicReference<>(new State(false, List.of(), 0, false));

		Slot(Thread thread, Offer offer) {
			this.thread = thread;
			this.offer = offer;
		}

	}

	/** Whether a slot's thread waits, and the jobs delivered for it, when, and whether its reserve refused them. */
	private record State(boolean waiting, List<ReservedJob> jobs, long deliveredNanos, boolean refused) {

		boolean isIdle() {
			return this.waiting && this.jobs.isEmpty();
		}

		/** Whether delivered jobs still wait for their consumer. */
		boolean isFresh() {
			return !this.jobs.isEmpty() && !this.refused
					&& System.nanoTime() - this.deliveredNanos <= STALE_DELIVERY.toNanos();
		}

	}

}
