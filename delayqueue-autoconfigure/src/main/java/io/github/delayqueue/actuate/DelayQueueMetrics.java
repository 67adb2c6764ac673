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
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Counters and timers of what this instance does to jobs, tagged by {@code topic}:
 * {@code delayqueue.jobs.*}, {@code delayqueue.delivery.lag}, {@code delayqueue.listener},
 * {@code delayqueue.recurring.ticks}, {@code delayqueue.rate.limited},
 * {@code delayqueue.dead.trimmed} and {@code delayqueue.data.lost}. The first
 * {@code maxTopics} topics get their own tag value; further ones are counted under
 * {@link #OTHER_TOPICS}.
 */
public class DelayQueueMetrics implements DelayQueueObserver {

	/** The {@code topic} tag value of the topics beyond the limit. */
	public static final String OTHER_TOPICS = "_other";

	private static final Log logger = LogFactory.getLog(DelayQueueMetrics.class);

	private final MeterRegistry registry;

	private final int maxTopics;

	private final Map<String, TopicMeters> topics = new ConcurrentHashMap<>();

	private volatile @Nullable TopicMeters other;

	/**
	 * Creates the meters.
	 * @param registry the registry
	 * @param maxTopics the most topics with their own {@code topic} tag value (0: all under
	 * {@link #OTHER_TOPICS})
	 */
	public DelayQueueMetrics(MeterRegistry registry, int maxTopics) {
		Assert.notNull(registry, "registry must not be null");
		this.registry = registry;
		this.maxTopics = maxTopics;
	}

	private TopicMeters meters(String topic) {
		// topics are never removed: once some topic is counted as other, every new one is
		TopicMeters meters = this.topics.get(topic);
		if (meters == null) {
			meters = this.other;
		}
		if (meters != null) {
			return meters;
		}
		synchronized (this.topics) {
			if (this.topics.size() < this.maxTopics) {
				return this.topics.computeIfAbsent(topic, (name) -> new TopicMeters(this.registry, name));
			}
			if (this.other == null) {
				logger.warn("delayqueue counters and timers have their own topic tag for " + this.maxTopics
						+ " topics (delayqueue.metrics.max-topics); topic '" + topic
						+ "' and further ones are counted under topic=" + OTHER_TOPICS);
				this.other = new TopicMeters(this.registry, OTHER_TOPICS);
			}
			return this.other;
		}
	}

	@Override
	public void recurringFired(String name, String topic, long created, long skipped, long misfired) {
		String tag = meters(topic).topic;
		tick(tag, "created", created);
		tick(tag, "skipped", skipped);
		tick(tag, "misfired", misfired);
	}

	private void tick(String topic, String result, long count) {
		// registered when first needed: most topics have no recurring jobs
		Counter counter = Counter.builder("delayqueue.recurring.ticks")
			.description("Recurring-job ticks fired by this instance's timer, by result")
			.tag("topic", topic)
			.tag("result", result)
			.register(this.registry);
		if (count > 0) {
			counter.increment(count);
		}
	}

	@Override
	public void scheduled(String topic) {
		meters(topic).scheduled.increment();
	}

	@Override
	@SuppressWarnings("NullAway") // a delivered job comes from a reserve, which sets its times
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
	public void deadTrimmed(String topic, long count) {
		Counter.builder("delayqueue.dead.trimmed")
			.description("DEAD jobs deleted by the topic's failed-job retention on this instance")
			.tag("topic", meters(topic).topic)
			.register(this.registry)
			.increment(count);
	}

	@Override
	public void dataLost(String namespace) {
		Counter.builder("delayqueue.data.lost")
			.description("Times this instance's timer found that Redis had lost the namespace's data")
			.register(this.registry)
			.increment();
	}

	@Override
	public void rateLimited(String topic) {
		Counter.builder("delayqueue.rate.limited")
			.description("Reserves of this instance that found the topic's rate limit window full")
			.tag("topic", meters(topic).topic)
			.register(this.registry)
			.increment();
	}

	@Override
	public void handled(String topic, Duration duration, String outcome, @Nullable Throwable failure) {
		Timer.builder("delayqueue.listener")
			.description("Duration of @DelayedListener handler calls")
			.tag("topic", meters(topic).topic)
			.tag("outcome", outcome)
			.tag("exception", (failure != null) ? failure.getClass().getSimpleName() : "none")
			.register(this.registry)
			.record(duration);
	}

	private static final class TopicMeters {

		private final String topic;

		private final Counter scheduled;

		private final Counter delivered;

		private final Counter completed;

		private final Counter retried;

		private final Counter dead;

		private final Counter expired;

		private final Counter cancelled;

		private final Timer lag;

		TopicMeters(MeterRegistry registry, String topic) {
			this.topic = topic;
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
