package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.redis.TimerStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of what the queue holds, read from the {@link DelayQueueSampler}'s latest reading:
 * {@code delayqueue.topic.jobs} (tags {@code topic}, {@code state}),
 * {@code delayqueue.topic.overdue.lag}, {@code delayqueue.overdue.lag},
 * {@code delayqueue.bucket.depth}, {@code delayqueue.timer.buckets} and
 * {@code delayqueue.topic.completed.kept}. Gauges read NaN until the first sample; a topic's
 * gauges come and go with its jobs, and topics beyond {@code maxTopics} are summed under
 * {@link DelayQueueMetrics#OTHER_TOPICS}.
 */
public class DelayQueueMeterBinder implements MeterBinder {

	private static final Log logger = LogFactory.getLog(DelayQueueMeterBinder.class);

	private static final Map<String, ToLongFunction<TopicStats>> STATES = Map.of("delayed", TopicStats::delayed,
			"ready", TopicStats::ready, "reserved", TopicStats::reserved, "dead", TopicStats::dead);

	private final DelayQueueSampler sampler;

	private final @Nullable TimerStatus timer;

	private final int maxTopics;

	/** Guarded by this, as the fields below. */
	private final List<MeterRegistry> registries = new ArrayList<>();

	/** The topics with gauges of their own, in the order they got them. */
	private final Set<String> topics = new LinkedHashSet<>();

	private boolean warned;

	/** The summed figures of the topics beyond the limit, {@code null} while there are none. */
	private volatile @Nullable TopicStats other;

	/** Creates the gauges; {@code timer} may be {@code null}, {@code maxTopics} topics at most get their own. */
	public DelayQueueMeterBinder(DelayQueueSampler sampler, @Nullable TimerStatus timer, int maxTopics) {
		this.sampler = sampler;
		this.timer = timer;
		this.maxTopics = maxTopics;
		sampler.addListener(this::onSample);
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		// registries hold the binder weakly; the application context holds it
		Gauge.builder("delayqueue.overdue.lag", this,
				(binder) -> binder.sampled((stats) -> seconds(stats.oldestOverdueLag())))
			.description("Seconds the oldest job that is due but not delivered has waited")
			.baseUnit("seconds")
			.register(registry);
		TimerStatus bucketTimer = this.timer;
		if (bucketTimer != null) {
			Gauge.builder("delayqueue.timer.buckets", bucketTimer, TimerStatus::ownedBuckets)
				.description("Buckets whose timer this instance runs")
				.register(registry);
		}
		QueueStats latest = this.sampler.getLatest();
		if (latest != null) {
			register(registry, latest);
		}
	}

	/** Registers the gauges of new buckets and topics (idempotent) and removes those of topics gone. */
	private synchronized void onSample(QueueStats stats) {
		Set<String> gone = new LinkedHashSet<>(this.topics);
		gone.removeAll(stats.topics().keySet());
		this.topics.removeAll(gone);
		Map<String, TopicStats> beyond = new LinkedHashMap<>();
		stats.topics().forEach((topic, figures) -> {
			if (this.topics.size() < this.maxTopics) {
				this.topics.add(topic);
			}
			if (!this.topics.contains(topic)) {
				beyond.put(topic, figures);
			}
		});
		if (beyond.isEmpty()) {
			gone.add(DelayQueueMetrics.OTHER_TOPICS);
		}
		else if (!this.warned) {
			this.warned = true;
			logger.warn("delayqueue gauges have their own topic tag for " + this.maxTopics
					+ " topics (delayqueue.metrics.max-topics); the figures of " + beyond.size()
					+ " more topic(s), such as '" + beyond.keySet().iterator().next() + "', are summed under topic="
					+ DelayQueueMetrics.OTHER_TOPICS);
		}
		this.other = beyond.isEmpty() ? null : new QueueStats(List.of(), beyond, stats.readAt(), Map.of()).totals();
		for (MeterRegistry registry : this.registries) {
			for (String topic : gone) {
				registry.find("delayqueue.topic.jobs").tag("topic", topic).meters().forEach(registry::remove);
				registry.find("delayqueue.topic.overdue.lag").tag("topic", topic).meters().forEach(registry::remove);
			}
			register(registry, stats);
		}
	}

	private void register(MeterRegistry registry, QueueStats stats) {
		for (int i = 0; i < stats.buckets().size(); i++) {
			int bucket = i;
			Gauge.builder("delayqueue.bucket.depth", this,
					(binder) -> binder.sampled((latest) -> (bucket < latest.buckets().size())
							? latest.buckets().get(bucket).jobs().delayed() : Double.NaN))
				.description("DELAYED jobs in the bucket's delay queue")
				.tag("bucket", String.valueOf(bucket))
				.register(registry);
		}
		for (String topic : stats.completed().keySet()) {
			Gauge.builder("delayqueue.topic.completed.kept", this,
					(binder) -> binder.sampled((latest) -> latest.completed().getOrDefault(topic, 0L)))
				.description("Finished jobs the topic keeps (its retention)")
				.tag("topic", topic)
				.register(registry);
		}
		for (String topic : this.topics) {
			topicGauges(registry, topic, (latest) -> latest.topics().getOrDefault(topic, TopicStats.EMPTY));
		}
		if (this.other != null) {
			topicGauges(registry, DelayQueueMetrics.OTHER_TOPICS,
					(latest) -> Objects.requireNonNullElse(this.other, TopicStats.EMPTY));
		}
	}

	private void topicGauges(MeterRegistry registry, String tag, Function<QueueStats, TopicStats> figures) {
		STATES.forEach((state, count) -> Gauge.builder("delayqueue.topic.jobs", this,
				(binder) -> binder.sampled((stats) -> count.applyAsLong(figures.apply(stats))))
			.description("Jobs of the topic in each state")
			.tag("topic", tag)
			.tag("state", state)
			.register(registry));
		Gauge.builder("delayqueue.topic.overdue.lag", this,
				(binder) -> binder.sampled((stats) -> seconds(figures.apply(stats).overdueLag(stats.readAt()))))
			.description("Seconds the topic's oldest job that is due but not delivered has waited")
			.tag("topic", tag)
			.baseUnit("seconds")
			.register(registry);
	}

	private double sampled(ToDoubleFunction<QueueStats> value) {
		QueueStats stats = this.sampler.getLatest();
		return (stats != null) ? value.applyAsDouble(stats) : Double.NaN;
	}

	private static double seconds(Duration duration) {
		return duration.toNanos() / 1e9;
	}

}
