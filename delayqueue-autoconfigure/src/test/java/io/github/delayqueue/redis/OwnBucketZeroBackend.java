package io.github.delayqueue.redis;

import java.util.List;

/**
 * A stand-in for the Redis side of a {@link BucketTimer} in pure unit tests: every heartbeat
 * asks for a coordination, every coordination gives this instance bucket 0 (none when it
 * leaves), and there are no recurring jobs. Tests override the step and, where they look at
 * them, the heartbeat, the coordination or the recurring jobs.
 */
abstract class OwnBucketZeroBackend implements TimerBackend {

	/** A firing of no recurring jobs. */
	static final RecurringStep NONE = new RecurringStep(-1, -1, List.of(), true);

	@Override
	public RecurringStep fireRecurring(int bucket) {
		return NONE;
	}

	@Override
	public long renew(long nowMillis, boolean readEarliest) {
		return -1;
	}

	@Override
	public Coordination coordinate(boolean leaving) {
		return new Coordination(1, System.currentTimeMillis(), "1", 1, leaving ? new int[0] : new int[] { 0 });
	}

}
