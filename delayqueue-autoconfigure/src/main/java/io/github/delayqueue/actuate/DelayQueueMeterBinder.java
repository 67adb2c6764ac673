package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.redis.TimerStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

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

	private final List<MeterRegistry> registries = new ArrayList<>();

	/** The gauges of each topic with its own tag value, in every registry; guarded by this. */
	private final Map<String, List<Registered>> topicGauges = new LinkedHashMap<>();

	/** The topics with a retention, each with a gauge of the finished jobs it keeps. */
	private final Set<String> keptTopics = new LinkedHashSet<>();

	/** The gauges of the topics beyond the limit, empty while there are none; guarded by this. */
	private final List<Registered> otherGauges = new ArrayList<>();

	/** Buckets with gauges: 0 until the first sample. */
	private int buckets;

	private boolean warned;

	/** The figures of the topics beyond the limit at the latest sample. */
	private volatile TopicStats other = TopicStats.EMPTY;

	/**
	 * Creates the binder.
	 * @param sampler the sampler whose readings the gauges show
	 * @param timer this instance's bucket timer, or {@code null}
	 * @param maxTopics the most topics with gauges of their own (0: all under
	 * {@link DelayQueueMetrics#OTHER_TOPICS})
	 */
	public DelayQueueMeterBinder(DelayQueueSampler sampler, @Nullable TimerStatus timer, int maxTopics) {
		Assert.notNull(sampler, "sampler must not be null");
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
		bucketGauges(registry);
		if (this.timer != null) {
			TimerStatus bucketTimer = this.timer;
			Gauge.builder("delayqueue.timer.buckets", bucketTimer, TimerStatus::ownedBuckets)
				.description("Buckets whose timer this instance runs")
				.register(registry);
		}
		this.topicGauges.forEach((topic, gauges) -> gauges.addAll(topicGauges(registry, topic)));
		this.keptTopics.forEach((topic) -> keptGauge(registry, topic));
		if (!this.otherGauges.isEmpty()) {
			this.otherGauges.addAll(otherGauges(registry));
		}
	}

	/** Registers the gauges of new buckets and topics and removes those of topics gone. */
	private synchronized void onSample(QueueStats stats) {
		if (this.buckets == 0) {
			this.buckets = stats.buckets().size();
			this.registries.forEach(this::bucketGauges);
		}
		for (String topic : stats.completed().keySet()) {
			// the topics with a retention: fixed by the configuration, so never removed
			if (this.keptTopics.add(topic)) {
				this.registries.forEach((registry) -> keptGauge(registry, topic));
			}
		}
		this.topicGauges.entrySet().removeIf((entry) -> {
			if (stats.topics().containsKey(entry.getKey())) {
				return false;
			}
			remove(entry.getValue());
			return true;
		});
		Map<String, TopicStats> beyond = new LinkedHashMap<>();
		stats.topics().forEach((topic, figures) -> {
			if (this.topicGauges.containsKey(topic)) {
				return;
			}
			if (this.topicGauges.size() < this.maxTopics) {
				List<Registered> gauges = new ArrayList<>();
				this.registries.forEach((registry) -> gauges.addAll(topicGauges(registry, topic)));
				this.topicGauges.put(topic, gauges);
			}
			else {
				beyond.put(topic, figures);
			}
		});
		this.other = new QueueStats(List.of(), beyond, stats.readAt()).totals();
		if (beyond.isEmpty()) {
			remove(this.otherGauges);
		}
		else if (this.otherGauges.isEmpty()) {
			if (!this.warned) {
				this.warned = true;
				logger.warn("delayqueue gauges have their own topic tag for " + this.maxTopics
						+ " topics (delayqueue.metrics.max-topics); the figures of " + beyond.size()
						+ " more topic(s), such as '" + beyond.keySet().iterator().next() + "', are summed under topic="
						+ DelayQueueMetrics.OTHER_TOPICS);
			}
			this.registries.forEach((registry) -> this.otherGauges.addAll(otherGauges(registry)));
		}
	}

	private static void remove(List<Registered> gauges) {
		gauges.forEach((gauge) -> gauge.registry().remove(gauge.meter()));
		gauges.clear();
	}

	private void bucketGauges(MeterRegistry registry) {
		for (int i = 0; i < this.buckets; i++) {
			int bucket = i;
			Gauge.builder("delayqueue.bucket.depth", this,
					(binder) -> binder.sampled((stats) -> (bucket < stats.buckets().size())
							? stats.buckets().get(bucket).jobs().delayed() : Double.NaN))
				.description("DELAYED jobs in the bucket's delay queue")
				.tag("bucket", String.valueOf(bucket))
				.register(registry);
		}
	}

	private void keptGauge(MeterRegistry registry, String topic) {
		Gauge.builder("delayqueue.topic.completed.kept", this,
				(binder) -> binder.sampled((stats) -> stats.completed().getOrDefault(topic, 0L)))
			.description("Finished jobs the topic keeps (its retention)")
			.tag("topic", topic)
			.register(registry);
	}

	private List<Registered> topicGauges(MeterRegistry registry, String topic) {
		return gauges(registry, topic, (stats) -> stats.topics().getOrDefault(topic, TopicStats.EMPTY));
	}

	private List<Registered> otherGauges(MeterRegistry registry) {
		return gauges(registry, DelayQueueMetrics.OTHER_TOPICS, (stats) -> this.other);
	}

	private List<Registered> gauges(MeterRegistry registry, String tag, Function<QueueStats, TopicStats> figures) {
		List<Registered> gauges = new ArrayList<>();
		STATES.forEach((state, count) -> gauges.add(new Registered(registry, Gauge.builder("delayqueue.topic.jobs", this,
				(binder) -> binder.sampled((stats) -> count.applyAsLong(figures.apply(stats))))
			.description("Jobs of the topic in each state")
			.tag("topic", tag)
			.tag("state", state)
			.register(registry))));
		gauges.add(new Registered(registry, Gauge.builder("delayqueue.topic.overdue.lag", this,
				(binder) -> binder.sampled((stats) -> seconds(figures.apply(stats).overdueLag(stats.readAt()))))
			.description("Seconds the topic's oldest job that is due but not delivered has waited")
			.tag("topic", tag)
			.baseUnit("seconds")
			.register(registry)));
		return gauges;
	}

	private double sampled(ToDoubleFunction<QueueStats> value) {
		QueueStats stats = this.sampler.getLatest();
		return (stats != null) ? value.applyAsDouble(stats) : Double.NaN;
	}

	private static double seconds(Duration duration) {
		return duration.toNanos() / 1e9;
	}

	/** A gauge and its registry. */
	private record Registered(MeterRegistry registry, Meter meter) {

	}

}
