package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Counters and timers of what this instance does to jobs, all tagged by {@code topic} (never
 * by job id):
 * <ul>
 * <li>{@code delayqueue.jobs.scheduled|delivered|completed|retried|dead|expired|cancelled}
 * (counters);</li>
 * <li>{@code delayqueue.delivery.lag}: delivered − due, by Redis's clock (timer; publish a
 * percentile histogram with
 * {@code management.metrics.distribution.percentiles-histogram.delayqueue.delivery.lag=true});</li>
 * <li>{@code delayqueue.listener}: listener handler duration, also tagged {@code outcome}
 * ({@code success}, {@code retry}, {@code dead}, {@code recovered}, {@code stale}) and
 * {@code exception} (simple class name, or {@code none}).</li>
 * </ul>
 * Each instance counts its own steps; summed over instances they are the queue's.
 */
public class DelayQueueMetrics implements DelayQueueObserver {

	private final MeterRegistry registry;

	private final Map<String, TopicMeters> topics = new ConcurrentHashMap<>();

	public DelayQueueMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	private TopicMeters meters(String topic) {
		return this.topics.computeIfAbsent(topic, (t) -> new TopicMeters(this.registry, t));
	}

	@Override
	public void scheduled(String topic) {
		meters(topic).scheduled.increment();
	}

	@Override
	public void delivered(ReservedJob job) {
		TopicMeters meters = meters(job.topic());
		meters.delivered.increment();
		long lag = job.deliveredAt().toEpochMilli() - job.dueAt().toEpochMilli();
		meters.lag.record(Math.max(0, lag), TimeUnit.MILLISECONDS);
	}

	@Override
	public void completed(String topic) {
		meters(topic).completed.increment();
	}

	@Override
	public void retried(String topic) {
		meters(topic).retried.increment();
	}

	@Override
	public void dead(String topic) {
		meters(topic).dead.increment();
	}

	@Override
	public void expired(String topic) {
		meters(topic).expired.increment();
	}

	@Override
	public void cancelled(String topic) {
		meters(topic).cancelled.increment();
	}

	@Override
	public void handled(String topic, Duration duration, String outcome, Throwable failure) {
		Timer.builder("delayqueue.listener")
			.description("Duration of @DelayedListener handler calls")
			.tag("topic", topic)
			.tag("outcome", outcome)
			.tag("exception", (failure != null) ? failure.getClass().getSimpleName() : "none")
			.register(this.registry)
			.record(duration);
	}

	private static final class TopicMeters {

		private final Counter scheduled;

		private final Counter delivered;

		private final Counter completed;

		private final Counter retried;

		private final Counter dead;

		private final Counter expired;

		private final Counter cancelled;

		private final Timer lag;

		TopicMeters(MeterRegistry registry, String topic) {
			this.scheduled = counter(registry, topic, "scheduled", "Jobs created by this instance");
			this.delivered = counter(registry, topic, "delivered", "Jobs reserved by consumers of this instance");
			this.completed = counter(registry, topic, "completed", "Jobs finished by this instance");
			this.retried = counter(registry, topic, "retried",
					"Jobs failed by this instance that will be delivered again");
			this.dead = counter(registry, topic, "dead", "Jobs that became DEAD on this instance");
			this.expired = counter(registry, topic, "expired",
					"Reservations whose TTR ran out, found by this instance's timer");
			this.cancelled = counter(registry, topic, "cancelled", "Jobs cancelled by this instance");
			this.lag = Timer.builder("delayqueue.delivery.lag")
				.description("Time from a job's due time to its delivery, by Redis's clock")
				.tag("topic", topic)
				.register(registry);
		}

		private static Counter counter(MeterRegistry registry, String topic, String name, String description) {
			return Counter.builder("delayqueue.jobs." + name).description(description).tag("topic", topic)
				.register(registry);
		}

	}

}
