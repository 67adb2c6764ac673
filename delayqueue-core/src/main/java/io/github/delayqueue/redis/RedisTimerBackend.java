package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * The Redis side of the {@link BucketTimer}: the heartbeat and the shares of the buckets
 * ({@code coordinate.lua}), and the step of one bucket ({@code promote.lua}), whose expired
 * reservations it reports to the observer (and the DEAD ones among them to
 * {@link FailedJobs}) and whose READY jobs it announces ({@link ReadyAnnouncer}). Thread-safe.
 */
final class RedisTimerBackend implements TimerBackend {

	private final QueueScripts scripts;

	private final String instanceId;

	private final Duration leaseTtl;

	private final int batchSize;

	private final DelayQueueObserver observer;

	private final RecurringFiring recurring;

	private final ReadyAnnouncer announcer;

	private final FailedJobs failedJobs;

	RedisTimerBackend(QueueScripts scripts, String instanceId, Duration leaseTtl, int batchSize,
			DelayQueueObserver observer, RecurringFiring recurring, ReadyAnnouncer announcer, FailedJobs failedJobs) {
		this.failedJobs = failedJobs;
		this.recurring = recurring;
		this.announcer = announcer;
		this.scripts = scripts;
		this.instanceId = instanceId;
		this.leaseTtl = leaseTtl;
		this.batchSize = batchSize;
		this.observer = observer;
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
	public Promotion promote(int bucket, boolean guard) {
		List<ReadySignals.Offering> offers = guard ? List.of() : this.announcer.offers();
		return promote(bucket, guard, offers,
				(topic, jobs) -> this.announcer.reserved(bucket, offering(offers, topic), jobs))
			.promotion();
	}

	private static ReadySignals.@Nullable Offering offering(List<ReadySignals.Offering> offers, String topic) {
		for (ReadySignals.Offering offering : offers) {
			if (offering.topic().equals(topic)) {
				return offering;
			}
		}
		return null;
	}

	/**
	 * A timer step with the given offers.
	 * @param bucket the bucket
	 * @param guard {@code true} for the guard re-check
	 * @param offers the offers, one per topic
	 * @param reserved takes the jobs the step reserved for the offers, per topic, before
	 * anything else follows the step (nothing after may keep them from their consumers)
	 * @return the step's reply
	 */
	ScriptReplies.Promoted promote(int bucket, boolean guard, List<ReadySignals.Offering> offers,
			BiConsumer<String, List<ReservedJob>> reserved) {
		ScriptReplies.Promoted promoted = this.scripts.promote(bucket, this.batchSize, guard,
				this.announcer.mayLeaveToConsumersHere(), offers);
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
		promoted.unannounced().forEach((topic, length) -> this.announcer.unannounced(topic, bucket, length));
		return promoted;
	}

	@Override
	public RecurringStep fireRecurring(int bucket) {
		return this.recurring.fire(bucket);
	}

}
