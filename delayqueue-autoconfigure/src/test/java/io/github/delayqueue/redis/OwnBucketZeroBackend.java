package io.github.delayqueue.redis;

/**
 * A stand-in for the Redis side of a {@link BucketTimer} in pure unit tests: every heartbeat
 * asks for a coordination, and every coordination gives this instance bucket 0 (none when it
 * leaves). Tests override the step and, where they look at them, the heartbeat or the
 * coordination.
 */
abstract class OwnBucketZeroBackend implements TimerBackend {

	@Override
	public long renew(long nowMillis, boolean readEarliest) {
		return -1;
	}

	@Override
	public Coordination coordinate(boolean leaving) {
		return new Coordination(1, System.currentTimeMillis(), "1", leaving ? new int[0] : new int[] { 0 });
	}

}
