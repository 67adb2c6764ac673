package io.github.delayqueue.redis;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.Retention;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * Builds a {@link RedisDelayQueue}. Each setter returns this builder and throws
 * {@link IllegalArgumentException} naming the setting when a value is out of its range.
 */
public final class RedisDelayQueueBuilder {

	final RedisConnectionFactory connectionFactory;

	String namespace = "delayqueue";

	@Nullable Integer buckets;

	DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	Duration defaultTtr = Duration.ofSeconds(60);

	int defaultMaxAttempts = 5;

	boolean timerEnabled = true;

	boolean reserveForWaitingConsumers = true;

	int batchSize = 500;

	Duration guardInterval = Duration.ofSeconds(60);

	Duration leaseTtl = Duration.ofSeconds(5);

	int waitReplicas;

	Duration waitTimeout = Duration.ofSeconds(1);

	boolean failFast = true;

	@Nullable String instanceId;

	/** The monotonic clock between Redis's replies (tests set another). */
	LongSupplier nanoTime = System::nanoTime;

	final List<DelayQueueObserver> observers = new ArrayList<>();

	final Map<String, Retention> retention = new LinkedHashMap<>();

	RedisDelayQueueBuilder(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "connectionFactory must not be null");
		this.connectionFactory = connectionFactory;
	}

	/** Prefix of every key and of the channel; default {@code delayqueue}. */
	public RedisDelayQueueBuilder namespace(String namespace) {
		this.namespace = JobConstraints.namespace(namespace);
		return this;
	}

	/**
	 * Number of buckets, 1 to 16384, the same on every instance of a namespace; default: the
	 * namespace's pinned count, else 16 on a Redis Cluster and 1 on one server.
	 */
	public RedisDelayQueueBuilder buckets(int buckets) {
		this.buckets = JobConstraints.max("buckets", buckets, KeySpace.MAX_BUCKETS);
		return this;
	}

	/** Largest payload; default 1 MiB. */
	public RedisDelayQueueBuilder maxPayloadSize(DataSize maxPayloadSize) {
		Assert.notNull(maxPayloadSize, "maxPayloadSize must not be null");
		Assert.isTrue(maxPayloadSize.toBytes() > 0, () -> "maxPayloadSize must be positive, was " + maxPayloadSize);
		this.maxPayloadSize = maxPayloadSize;
		return this;
	}

	/** TTR of jobs scheduled without one; default 60 s. */
	public RedisDelayQueueBuilder defaultTtr(Duration defaultTtr) {
		this.defaultTtr = JobConstraints.ttr(defaultTtr);
		return this;
	}

	/** Attempts of jobs scheduled without a number; default 5. */
	public RedisDelayQueueBuilder defaultMaxAttempts(int defaultMaxAttempts) {
		this.defaultMaxAttempts = JobConstraints.maxAttempts(defaultMaxAttempts);
		return this;
	}

	/** Whether this instance takes part in running bucket timers; default true. */
	public RedisDelayQueueBuilder timerEnabled(boolean timerEnabled) {
		this.timerEnabled = timerEnabled;
		return this;
	}

	/**
	 * Whether a timer step reserves the jobs it makes due for a consumer of this instance that
	 * waits for their topic; default true. Off, they go to the ready list for a take.
	 */
	public RedisDelayQueueBuilder reserveForWaitingConsumers(boolean reserveForWaitingConsumers) {
		this.reserveForWaitingConsumers = reserveForWaitingConsumers;
		return this;
	}

	/** Most jobs one promote script moves; default 500. */
	public RedisDelayQueueBuilder batchSize(int batchSize) {
		this.batchSize = JobConstraints.max("batchSize", batchSize, 10_000);
		return this;
	}

	/** How often every owned bucket is re-checked and the shares fully re-coordinated; default 60 s. */
	public RedisDelayQueueBuilder guardInterval(Duration guardInterval) {
		this.guardInterval = JobConstraints.positive("guardInterval", guardInterval, Duration.ofHours(1));
		return this;
	}

	/** How long an instance's buckets stay its own without a heartbeat; default 5 s. */
	public RedisDelayQueueBuilder leaseTtl(Duration leaseTtl) {
		this.leaseTtl = JobConstraints.positive("leaseTtl", leaseTtl, Duration.ofMinutes(10));
		return this;
	}

	/**
	 * How many replicas must have a schedule, cancel, reschedule, replay or finish before it
	 * returns ({@code WAIT});
	 * default 0: acknowledged once on the master.
	 */
	public RedisDelayQueueBuilder waitReplicas(int waitReplicas) {
		Assert.isTrue(waitReplicas >= 0, () -> "waitReplicas must not be negative, was " + waitReplicas);
		this.waitReplicas = waitReplicas;
		return this;
	}

	/** How long a write waits for its replicas; default 1 s. */
	public RedisDelayQueueBuilder waitTimeout(Duration waitTimeout) {
		this.waitTimeout = JobConstraints.positive("waitTimeout", waitTimeout, Duration.ofMinutes(1));
		return this;
	}

	/**
	 * Whether {@link RedisDelayQueue#start()} throws when Redis is unreachable; default
	 * true. Otherwise the start-up checks run before the first call that reaches Redis.
	 */
	public RedisDelayQueueBuilder failFast(boolean failFast) {
		this.failFast = failFast;
		return this;
	}

	/** This instance's name; {@code null} (the default): host, process id and a random suffix. */
	public RedisDelayQueueBuilder instanceId(@Nullable String instanceId) {
		this.instanceId = instanceId;
		return this;
	}

	/** Adds an observer of what this instance does to jobs. */
	public RedisDelayQueueBuilder observer(DelayQueueObserver observer) {
		Assert.notNull(observer, "observer must not be null");
		this.observers.add(observer);
		return this;
	}

	/**
	 * Sets which finished and DEAD jobs a topic keeps; {@code null} (the default): no finished
	 * job and every DEAD one. Give every instance of the topic the same retention.
	 */
	public RedisDelayQueueBuilder retention(String topic, @Nullable Retention retention) {
		JobConstraints.topic(topic);
		if (retention != null) {
			this.retention.put(topic, retention);
		}
		else {
			this.retention.remove(topic);
		}
		return this;
	}

	/** The topics whose retention has the given part. */
	Map<String, Retention> retention(Predicate<Retention> part) {
		Map<String, Retention> topics = new LinkedHashMap<>(this.retention);
		topics.values().removeIf(part.negate());
		return topics;
	}

	/** The heartbeat interval: two fifths of the lease TTL, between 100 ms and 2 s. */
	Duration coordinationInterval() {
		return Duration.ofMillis(Math.max(100, Math.min(2_000, this.leaseTtl.toMillis() * 2 / 5)));
	}

	/** The instance id set, or host, process id and a random suffix. */
	String instanceId() {
		if (this.instanceId != null) {
			return this.instanceId;
		}
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = "unknown";
		}
		return host + ":" + ProcessHandle.current().pid() + ":"
				+ UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * Builds the queue; it talks to Redis once started.
	 * @return a new queue
	 */
	public RedisDelayQueue build() {
		return new RedisDelayQueue(this);
	}

}
