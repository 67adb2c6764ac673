package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToDoubleFunction;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.scheduler.BucketTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of what the queue holds, read from the {@link DelayQueueSampler}'s latest reading
 * (every sample interval one pipelined round trip reads every bucket's figures; scrapes never
 * call Redis):
 * <ul>
 * <li>{@code delayqueue.topic.jobs} (tags {@code topic}, {@code state} = delayed, ready,
 * reserved, dead);</li>
 * <li>{@code delayqueue.topic.overdue.lag} (tag {@code topic}) and
 * {@code delayqueue.overdue.lag}: how long the oldest job that is due but not delivered has
 * waited, in seconds;</li>
 * <li>{@code delayqueue.bucket.depth} (tag {@code bucket}): DELAYED jobs of each bucket;</li>
 * <li>{@code delayqueue.timer.buckets}: buckets whose timer this instance runs (no Redis
 * call).</li>
 * </ul>
 * Gauges read NaN until the first sample; a topic's gauges appear with the first sample that
 * has it and read 0 once it has no jobs. A failed sample keeps the last figures.
 */
public class DelayQueueMeterBinder implements MeterBinder {

	private static final String[] STATES = { "delayed", "ready", "reserved", "dead" };

	private final DelayQueueSampler sampler;

	private final @Nullable BucketTimer timer;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final Map<String, Boolean> topicsWithGauges = new ConcurrentHashMap<>();

	private volatile boolean bucketsBound;

	/**
	 * Creates the binder.
	 * @param sampler the sampler whose readings the gauges show
	 * @param timer this instance's bucket timer, or {@code null}
	 */
	public DelayQueueMeterBinder(DelayQueueSampler sampler, @Nullable BucketTimer timer) {
		this.sampler = sampler;
		this.timer = timer;
		sampler.addListener(this::onSample);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		// registries hold the binder weakly; the application context holds it
		Gauge.builder("delayqueue.overdue.lag", this,
				(binder) -> binder.sampled((stats) -> seconds(stats.oldestOverdueLag())))
			.description("Seconds the oldest job that is due but not delivered has waited")
			.baseUnit("seconds")
			.register(registry);
		QueueStats stats = this.sampler.getLatest();
		int buckets = (stats != null) ? stats.buckets().size() : 0;
		for (int bucket = 0; bucket < buckets; bucket++) {
			bucketGauge(registry, bucket);
		}
		if (this.timer != null) {
			BucketTimer bucketTimer = this.timer;
			Gauge.builder("delayqueue.timer.buckets", bucketTimer, BucketTimer::ownedBuckets)
				.description("Buckets whose timer this instance runs")
				.register(registry);
		}
		this.topicsWithGauges.keySet().forEach((topic) -> topicGauges(registry, topic));
	}

	/**
	 * Registers the gauges of buckets and topics seen for the first time.
	 */
	private void onSample(QueueStats stats) {
		if (!this.bucketsBound) {
			this.bucketsBound = true;
			for (MeterRegistry registry : this.registries) {
				for (int bucket = 0; bucket < stats.buckets().size(); bucket++) {
					bucketGauge(registry, bucket);
				}
			}
		}
		for (String topic : stats.topics().keySet()) {
			if (this.topicsWithGauges.putIfAbsent(topic, Boolean.TRUE) == null) {
				this.registries.forEach((registry) -> topicGauges(registry, topic));
			}
		}
	}
	private void bucketGauge(MeterRegistry registry, int bucket) {
		Gauge.builder("delayqueue.bucket.depth", this,
				(binder) -> binder.sampled((stats) -> (bucket < stats.buckets().size())
						? stats.buckets().get(bucket).jobs().delayed() : Double.NaN))
			.description("DELAYED jobs in the bucket's delay queue")
			.tag("bucket", String.valueOf(bucket))
			.register(registry);
	}

	private void topicGauges(MeterRegistry registry, String topic) {
		for (int i = 0; i < STATES.length; i++) {
			int state = i;
			Gauge.builder("delayqueue.topic.jobs", this,
					(binder) -> binder.sampled((stats) -> figure(stats.topics().get(topic), state)))
				.description("Jobs of the topic in each state")
				.tag("topic", topic)
				.tag("state", STATES[state])
				.register(registry);
		}
		Gauge.builder("delayqueue.topic.overdue.lag", this, (binder) -> binder.sampled((stats) -> {
			TopicStats figures = stats.topics().get(topic);
			return (figures != null) ? seconds(figures.overdueLag(stats.readAt())) : 0;
		}))
			.description("Seconds the topic's oldest job that is due but not delivered has waited")
			.tag("topic", topic)
			.baseUnit("seconds")
			.register(registry);
	}

	private double sampled(ToDoubleFunction<QueueStats> value) {
		QueueStats stats = this.sampler.getLatest();
		return (stats != null) ? value.applyAsDouble(stats) : Double.NaN;
	}

	private static double figure(@Nullable TopicStats figures, int state) {
		if (figures == null) {
			return 0;
		}
		return switch (state) {
			case 0 -> figures.delayed();
			case 1 -> figures.ready();
			case 2 -> figures.reserved();
			default -> figures.dead();
		};
	}

	private static double seconds(Duration duration) {
		return duration.toNanos() / 1e9;
	}

}
