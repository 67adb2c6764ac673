package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;

/**
 * The Redis side of the {@link BucketTimer}: {@code coordinate.lua}, and {@code promote.lua}
 * with the offers of {@link ReadyAnnouncer}, reporting expired and DEAD jobs. Thread-safe.
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
		return promote(bucket, guard, offers, (topic, jobs) -> this.announcer.reserved(bucket,
				offers.stream().filter((offer) -> offer.topic().equals(topic)).findFirst().orElse(null), jobs))
			.promotion();
	}

	/** A timer step with offers (one per topic); {@code reserved} gets their jobs first. */
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
