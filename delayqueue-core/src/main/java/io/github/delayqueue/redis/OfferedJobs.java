package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.ReservedJob;

/**
 * A waiting consumer's offer and the jobs the timer reserved for it; guarded by the monitor of
 * its {@link ReadySignals.TopicSignal}.
 */
final class OfferedJobs {

	/** How long delivered jobs are handed out to their consumer. */
	static final Duration STALE_DELIVERY = Duration.ofSeconds(1);

	final ReadySignals.Offer offer;

	boolean waiting;

	private final List<ReservedJob> jobs = new ArrayList<>();

	private long deliveredNanos;

	private boolean refused;

	OfferedJobs(ReadySignals.Offer offer) {
		this.offer = offer;
	}

	boolean isEmpty() {
		return this.jobs.isEmpty();
	}

	/** Whether delivered jobs still wait for their consumer. */
	boolean isFresh() {
		return !this.jobs.isEmpty() && !this.refused
				&& System.nanoTime() - this.deliveredNanos <= STALE_DELIVERY.toNanos();
	}

	/** Whether no consumer waits with it and it holds no jobs. */
	boolean isDone() {
		return this.jobs.isEmpty() && !this.waiting;
	}

	void deliver(List<ReservedJob> delivered) {
		this.jobs.addAll(delivered);
		this.deliveredNanos = System.nanoTime();
		this.refused = false;
	}

	/** Leaves the jobs held to be reclaimed. */
	void refuse() {
		this.refused = true;
	}

	/** Removes and returns those of {@code reserved} it still holds. */
	List<ReservedJob> reclaim(List<ReservedJob> reserved) {
		List<ReservedJob> left = new ArrayList<>();
		for (ReservedJob job : reserved) {
			if (this.jobs.removeIf((held) -> held == job)) {
				left.add(job);
			}
		}
		return left;
	}

	/** Removes and returns up to {@code max} of the jobs held. */
	List<ReservedJob> take(int max) {
		List<ReservedJob> head = this.jobs.subList(0, Math.min(max, this.jobs.size()));
		List<ReservedJob> taken = new ArrayList<>(head);
		head.clear();
		return taken;
	}

}
