package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.scheduler.BucketTimer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the delay queue. DOWN when Redis does not answer (the figures are read live, in
 * one pipelined round trip, so a check takes at most the Redis command timeout), when this
 * instance's bucket timer or one of its listeners has made no progress for longer than
 * {@code maxStall}, or when the oldest job that is due but not delivered has waited longer
 * than {@code maxOverdue}. UP otherwise, with buckets owned, listeners and the overdue lag
 * as details.
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {

	private final DelayQueueOperations operations;

	private final @Nullable BucketTimer timer;

	private final Supplier<Collection<DelayedListenerContainer>> containers;

	private final Duration maxOverdue;

	private final Duration maxStall;

	/**
	 * Creates the indicator.
	 * @param operations the queue
	 * @param timer this instance's bucket timer, or {@code null} when it has none
	 * @param containers this application's listener containers
	 * @param maxOverdue the longest the oldest overdue job may wait
	 * @param maxStall the longest the timer or a listener may go without progress
	 */
	public DelayQueueHealthIndicator(DelayQueueOperations operations, @Nullable BucketTimer timer,
			Supplier<Collection<DelayedListenerContainer>> containers, Duration maxOverdue, Duration maxStall) {
		super("delayqueue health check failed");
		this.operations = operations;
		this.timer = timer;
		this.containers = containers;
		this.maxOverdue = maxOverdue;
		this.maxStall = maxStall;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<String> problems = new ArrayList<>();
		long now = System.nanoTime();
		if (this.timer != null && this.timer.isRunning()) {
			builder.withDetail("bucketsOwned", this.timer.ownedBuckets());
			Duration stalled = Duration.ofNanos(now - this.timer.lastProgressNanos());
			if (stalled.compareTo(this.maxStall) > 0) {
				Throwable error = this.timer.lastError();
				problems.add("bucket timer made no progress for " + stalled.toMillis() + " ms"
						+ ((error != null) ? " (last error: " + error.getMessage() + ")" : ""));
			}
		}
		else {
			builder.withDetail("bucketsOwned", 0);
		}
		Map<String, String> listeners = new LinkedHashMap<>();
		for (DelayedListenerContainer container : this.containers.get()) {
			String state = container.getState();
			Duration stalled = Duration.ofNanos(now - container.getLastProgressNanos());
			if (container.isRunning() && stalled.compareTo(this.maxStall) > 0) {
				state = "stalled";
				problems.add("listener '" + container.getId() + "' made no progress for " + stalled.toMillis()
						+ " ms (" + container.getInFlight() + " of " + container.getConcurrency()
						+ " handlers busy)");
			}
			listeners.put(container.getId(), state);
		}
		builder.withDetail("listeners", listeners);
		QueueStats stats = this.operations.stats();
		Duration lag = stats.oldestOverdueLag();
		builder.withDetail("oldestOverdueLagMillis", lag.toMillis());
		if (lag.compareTo(this.maxOverdue) > 0) {
			problems.add("the oldest due job has waited " + lag.toMillis() + " ms for delivery (more than "
					+ this.maxOverdue.toMillis() + " ms)");
		}
		if (problems.isEmpty()) {
			builder.up();
		}
		else {
			builder.down().withDetail("problems", problems);
		}
	}

}
