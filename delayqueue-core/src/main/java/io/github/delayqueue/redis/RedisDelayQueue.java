package io.github.delayqueue.redis;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.recurring.RecurringJobs;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis implementation of {@link DelayQueueOperations}, and this instance's share of the
 * bucket timers. {@link #start()} subscribes to the namespace's events and starts the timer;
 * {@link #stop()} hands this instance's buckets to the others. Producing and consuming work
 * without a start, while other instances' timers move the jobs. Build one with
 * {@link #builder(RedisConnectionFactory)}. Thread-safe.
 */
public class RedisDelayQueue extends RedisAdmin implements DelayQueueOperations, SmartLifecycle {

	/** The lifecycle phase: after most beans, before the listener containers. */
	public static final int PHASE = Integer.MAX_VALUE - 2048;

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	RedisDelayQueue(RedisDelayQueueBuilder builder) {
		super(builder);
	}

	/** Starts building a queue on a Redis connection factory (Lettuce or Jedis). */
	public static RedisDelayQueueBuilder builder(RedisConnectionFactory connectionFactory) {
		return new RedisDelayQueueBuilder(connectionFactory);
	}

	/**
	 * Checks Redis, subscribes to the namespace's events and starts this instance's timers.
	 * @throws io.github.delayqueue.core.DelayQueueConnectionException when Redis is
	 * unreachable and the queue fails fast
	 * @throws io.github.delayqueue.core.UnsupportedRedisVersionException when a server runs
	 * Redis older than 6.2
	 * @throws io.github.delayqueue.core.BucketCountMismatchException when the namespace was
	 * created with another bucket count
	 */
	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			this.startupChecks.atStart(this.failFast);
			this.subscriber.start(!this.failFast);
			if (this.timerEnabled) {
				this.timerBackend.start();
				this.timer.start();
			}
			this.running = true;
			logger.info("delayqueue started: namespace '" + this.keys.namespace() + "', " + this.keys.buckets()
					+ ((this.keys.buckets() == 1) ? " bucket" : " buckets") + ", instance '" + this.instanceId
					+ "', timer " + (this.timerEnabled ? "on" : "off"));
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleMonitor) {
			try {
				if (this.running) {
					this.running = false;
					if (this.timerEnabled) {
						// what was reserved for waiting consumers goes back before the timer stops
						this.timerBackend.stop(RedisTimerBackend.STOP_WAIT);
						this.timer.stop();
					}
					this.subscriber.stop();
				}
			}
			finally {
				// after the timer's last writes; also after writes of a queue that was not started
				this.runner.close();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/** The namespace's recurring jobs, fired by the instances that run timers. */
	public RecurringJobs getRecurringJobs() {
		return this.recurringJobs;
	}

	/** This instance's name in the heartbeat set and as timer owner. */
	public String getInstanceId() {
		return this.instanceId;
	}

	/** The prefix of every key and of the channel. */
	public String getNamespace() {
		return this.keys.namespace();
	}

	/** The number of buckets. */
	public int getBuckets() {
		return this.keys.buckets();
	}

	/** The status of this instance's bucket timer. */
	public TimerStatus getTimer() {
		return this.timer;
	}

	/** Whether the event subscription is active. */
	public boolean isSubscribed() {
		return this.subscriber.isListening();
	}

	/** The connection factory of the queue. */
	public RedisConnectionFactory getConnectionFactory() {
		return this.connectionFactory;
	}

}
