package io.github.delayqueue.redis;

import io.github.delayqueue.core.BucketCountMismatchException;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.UnsupportedRedisVersionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What the queue checks of Redis before it writes: the servers ({@link RedisServerCheck})
 * and the namespace's bucket count. Run at the start or, when Redis was unreachable then,
 * before each call until they pass; a refusal then fails every later call. Thread-safe.
 */
final class StartupChecks {

	private static final Log logger = LogFactory.getLog(StartupChecks.class);

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final BucketCount.Origin countOrigin;

	private final Object monitor = new Object();

	/** Whether the checks still have to pass before a call to Redis. */
	private volatile boolean pending = true;

	private volatile @Nullable RuntimeException refusal;

	/** Creates the checks, run through a runner that does not run them itself. */
	StartupChecks(ScriptRunner runner, KeySpace keys, BucketCount.Origin countOrigin) {
		this.runner = runner;
		this.keys = keys;
		this.countOrigin = countOrigin;
	}

	/**
	 * Runs the checks as the queue starts; an unreachable Redis is thrown only when {@code failFast}.
	 * @throws UnsupportedRedisVersionException when a server runs Redis older than 6.2
	 * @throws BucketCountMismatchException when the namespace has another bucket count
	 */
	void atStart(boolean failFast) {
		synchronized (this.monitor) {
			try {
				run();
				this.pending = false;
			}
			catch (DelayQueueConnectionException ex) {
				if (failFast) {
					throw new DelayQueueConnectionException("delayqueue could not reach Redis at start-up: "
							+ ex.getMessage(), ex);
				}
				logger.warn("delayqueue starts while Redis is unreachable (delayqueue.redis.fail-fast=false): "
						+ ex.getMessage() + ". Until Redis answers, producers get a DelayQueueConnectionException and"
						+ " the timer and listeners retry; the Redis version and the bucket count are checked before"
						+ " the first call that reaches Redis");
			}
		}
	}

	/**
	 * Runs the checks when they are still to pass.
	 * @throws DelayQueueConnectionException when Redis is still unreachable
	 * @throws UnsupportedRedisVersionException for this call and every later one
	 * @throws BucketCountMismatchException for this call and every later one
	 */
	void beforeCall() {
		if (!this.pending) {
			return;
		}
		synchronized (this.monitor) {
			if (this.refusal != null) {
				throw this.refusal;
			}
			if (!this.pending) {
				return;
			}
			try {
				run();
			}
			catch (UnsupportedRedisVersionException | BucketCountMismatchException | BucketCount.Refused ex) {
				this.refusal = ex;
				logger.error("delayqueue refuses to work on this Redis, which answers now; every call fails until the"
						+ " application is restarted with the fix: " + ex.getMessage());
				throw ex;
			}
			this.pending = false;
			logger.info("Redis answers: delayqueue's start-up checks passed");
		}
	}

	private void run() {
		RedisServerCheck.check(this.runner);
		checkBucketCount();
	}

	/** Pins the bucket count in the namespace at its first start, and refuses another one. */
	private void checkBucketCount() {
		boolean chosen = this.countOrigin != BucketCount.Origin.SET;
		if (this.countOrigin == BucketCount.Origin.GUESSED) {
			// chosen without Redis: read now, before this count could be pinned
			int count = BucketCount.read(this.runner, this.keys.namespace());
			if (count != this.keys.buckets()) {
				throw new BucketCountMismatchException(this.keys.namespace(), this.keys.buckets(), count, true);
			}
		}
		String configured = String.valueOf(this.keys.buckets());
		String buckets = QueueScripts.pin(this.runner, this.keys, BucketCount.PINNED_SETTING, configured);
		Integer pinned = BucketCount.parse(buckets);
		if (pinned == null) {
			throw new BucketCount.Refused("Namespace '" + this.keys.namespace() + "' pins the bucket count '" + buckets
					+ "' in '{" + this.keys.namespace() + "}:config', which is no count: set its field '"
					+ BucketCount.PINNED_SETTING + "' to the count its jobs were scheduled with (1 to "
					+ KeySpace.MAX_BUCKETS + ")");
		}
		if (pinned != this.keys.buckets()) {
			throw new BucketCountMismatchException(this.keys.namespace(), this.keys.buckets(), pinned, chosen);
		}
	}

}
