package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.TimerStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Health of this instance's part of the delay queue: DOWN when Redis does not answer a
 * {@code PING} within the timeout, when the bucket timer, a listener container or the event
 * subscription made no progress for {@code maxStall}, or when the oldest due job of a consumed
 * topic (by the {@link DelayQueueSampler}'s latest reading) waited more than its
 * {@code maxOverdue}. Thread-safe.
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {

	private final @Nullable RedisConnectionFactory connectionFactory;

	private final @Nullable RedisDelayQueue queue;

	private final @Nullable TimerStatus timer;

	private final Supplier<Collection<DelayedListenerContainer>> containers;

	private final @Nullable DelayQueueSampler sampler;

	private final Duration timeout;

	private final Duration maxStall;

	private final Map<String, Duration> maxOverdue;

	/** A thread per PING; at most one PING is in flight, and a check never waits longer than the timeout. */
	private final SimpleAsyncTaskExecutor pinger = new SimpleAsyncTaskExecutor("delayqueue-health-");

	private final Object pingMonitor = new Object();

	private @Nullable CompletableFuture<@Nullable String> ping;

	private long pingStartedNanos;

	/** When a check first saw the subscription lost, by {@link System#nanoTime()}; 0: not lost. */
	private final AtomicLong unsubscribedSince = new AtomicLong();

	/**
	 * Creates the indicator.
	 * @param connectionFactory the connection factory to {@code PING}, or {@code null} to not check Redis
	 * @param queue this instance's queue, whose event subscription is checked, or {@code null}
	 * @param timer this instance's bucket timer, or {@code null} when it has none
	 * @param containers this application's listener containers
	 * @param sampler the latest figures, for the lag thresholds, or {@code null} when there are none
	 * @param timeout how long a check waits for Redis to answer a {@code PING}
	 * @param maxStall the longest the timer, a listener or the subscription may go without progress
	 * @param maxOverdue the longest the oldest due job of a consumed topic may wait, by topic
	 */
	public DelayQueueHealthIndicator(@Nullable RedisConnectionFactory connectionFactory,
			@Nullable RedisDelayQueue queue, @Nullable TimerStatus timer,
			Supplier<Collection<DelayedListenerContainer>> containers, @Nullable DelayQueueSampler sampler,
			Duration timeout, Duration maxStall, Map<String, Duration> maxOverdue) {
		super("delayqueue health check failed");
		this.connectionFactory = connectionFactory;
		this.queue = queue;
		this.timer = timer;
		this.containers = containers;
		this.sampler = sampler;
		this.timeout = timeout;
		this.maxStall = maxStall;
		this.maxOverdue = Map.copyOf(maxOverdue);
		this.pinger.setDaemon(true);
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<String> problems = new ArrayList<>();
		checkRedis(builder, problems);
		long now = System.nanoTime();
		checkTimer(builder, problems, now);
		checkSubscription(builder, problems, now);
		Set<String> consumed = checkListeners(builder, problems, now);
		checkOverdue(builder, problems, consumed);
		if (problems.isEmpty()) {
			builder.up();
		}
		else {
			builder.down().withDetail("problems", problems);
		}
	}

	private void checkRedis(Health.Builder builder, List<String> problems) {
		if (this.connectionFactory == null) {
			return;
		}
		String problem = ping();
		builder.withDetail("redis", (problem != null) ? "unreachable" : "reachable");
		if (problem != null) {
			problems.add(problem);
		}
	}

	/** Sends a PING unless one is in flight and waits for it until the timeout; returns the problem. */
	private @Nullable String ping() {
		CompletableFuture<@Nullable String> current;
		long started;
		synchronized (this.pingMonitor) {
			if (this.ping == null || this.ping.isDone()) {
				this.pingStartedNanos = System.nanoTime();
				this.ping = CompletableFuture.supplyAsync(this::sendPing, this.pinger);
			}
			current = this.ping;
			started = this.pingStartedNanos;
		}
		long timeout = this.timeout.toNanos();
		try {
			return current.get(Math.max(0, timeout - (System.nanoTime() - started)), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
			return "Redis did not answer a PING within " + this.timeout.toMillis() + " ms (waiting for "
					+ waited + " ms)";
		}
		catch (ExecutionException ex) {
			return "Redis unreachable: " + NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted while waiting for Redis to answer a PING";
		}
	}

	@SuppressWarnings("NullAway") // pinged only when there is a connection factory
	private @Nullable String sendPing() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			String pong = connection.ping();
			return ("PONG".equalsIgnoreCase(pong)) ? null : "Redis answered a PING with '" + pong + "'";
		}
	}

	private void checkTimer(Health.Builder builder, List<String> problems, long now) {
		TimerStatus bucketTimer = this.timer;
		if (bucketTimer == null || !bucketTimer.isRunning()) {
			builder.withDetail("timer", "off").withDetail("bucketsOwned", 0);
			return;
		}
		Duration stalled = Duration.ofNanos(now - bucketTimer.lastProgressNanos());
		boolean stuck = stalled.compareTo(this.maxStall) > 0;
		builder.withDetail("timer", stuck ? "stalled" : "running")
			.withDetail("bucketsOwned", bucketTimer.ownedBuckets());
		if (stuck) {
			Throwable error = bucketTimer.lastError();
			problems.add("bucket timer made no progress for " + stalled.toMillis() + " ms"
					+ ((error != null) ? " (last error: " + error + ")" : ""));
		}
	}

	private void checkSubscription(Health.Builder builder, List<String> problems, long now) {
		RedisDelayQueue redisQueue = this.queue;
		if (redisQueue == null) {
			return;
		}
		boolean running = redisQueue.isRunning();
		if (!running || redisQueue.isSubscribed()) {
			this.unsubscribedSince.set(0);
			builder.withDetail("subscription", running ? "subscribed" : "off");
			return;
		}
		// 0 means "not lost": a nano time of exactly 0 is taken as 1
		this.unsubscribedSince.compareAndSet(0, (now != 0) ? now : 1);
		Duration lost = Duration.ofNanos(now - this.unsubscribedSince.get());
		if (lost.compareTo(this.maxStall) > 0) {
			builder.withDetail("subscription", "lost");
			problems.add("event subscription lost for " + lost.toMillis()
					+ " ms (timers and consumers hear of new work only at their guard re-checks)");
		}
		else {
			builder.withDetail("subscription", "reconnecting");
		}
	}

	/** Returns the topics of running (or paused) containers. */
	private Set<String> checkListeners(Health.Builder builder, List<String> problems, long now) {
		Map<String, String> listeners = new LinkedHashMap<>();
		Set<String> consumed = new HashSet<>();
		for (DelayedListenerContainer container : this.containers.get()) {
			String state = container.getState();
			if (container.isRunning()) {
				consumed.add(container.getTopic());
				Duration stalled = Duration.ofNanos(now - container.getLastProgressNanos());
				if (stalled.compareTo(this.maxStall) > 0) {
					state = "stalled";
					problems.add("listener '" + container.getId() + "' made no progress for " + stalled.toMillis()
							+ " ms (" + container.getInFlight() + " of " + container.getConcurrency()
							+ " handlers busy)");
				}
			}
			listeners.put(container.getId(), state);
		}
		builder.withDetail("listeners", listeners);
		return consumed;
	}

	private void checkOverdue(Health.Builder builder, List<String> problems, Set<String> consumed) {
		if (this.maxOverdue.isEmpty() || this.sampler == null) {
			return;
		}
		QueueStats stats = this.sampler.getLatest();
		Map<String, Long> lags = new LinkedHashMap<>();
		this.maxOverdue.forEach((topic, max) -> {
			if (stats == null || !consumed.contains(topic)) {
				return;
			}
			Duration lag = stats.topics().getOrDefault(topic, TopicStats.EMPTY).overdueLag(stats.readAt());
			lags.put(topic, lag.toMillis());
			if (lag.compareTo(max) > 0) {
				problems.add("the oldest due job of topic '" + topic + "' has waited " + lag.toMillis()
						+ " ms for delivery (more than " + max.toMillis() + " ms)");
			}
		});
		builder.withDetail("overdueLagMillis", lags);
	}

}
