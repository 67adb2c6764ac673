package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
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

	/** The {@code delayqueue.jobs.*} counters, registered with each topic tag value. */
	private static final Map<String, String> JOBS = Map.of(
			"scheduled", "Jobs created by this instance",
			"delivered", "Jobs reserved by consumers of this instance",
			"completed", "Jobs finished by this instance",
			"retried", "Jobs failed by this instance that will be delivered again",
			"dead", "Jobs that became DEAD on this instance",
			"expired", "Reservations whose TTR ran out, found by this instance's timer",
			"cancelled", "Jobs cancelled by this instance");

	private final MeterRegistry registry;

	private final int maxTopics;

	/** The topics with their own tag value; never removed. */
	private final Set<String> topics = ConcurrentHashMap.newKeySet();

	private volatile boolean other;

	/** Creates the meters; {@code maxTopics} topics at most get their own {@code topic} tag value. */
	public DelayQueueMetrics(MeterRegistry registry, int maxTopics) {
		this.registry = registry;
		this.maxTopics = maxTopics;
	}

	/** The topic's tag value; the first use of a value registers its job counters and lag timer. */
	private String tag(String topic) {
		if (this.topics.contains(topic)) {
			return topic;
		}
		if (this.other) {
			return OTHER_TOPICS;
		}
		synchronized (this.topics) {
			if (this.topics.contains(topic) || this.topics.size() < this.maxTopics) {
				register(topic);
				this.topics.add(topic);
				return topic;
			}
			if (!this.other) {
				logger.warn("delayqueue counters and timers have their own topic tag for " + this.maxTopics
						+ " topics (delayqueue.metrics.max-topics); topic '" + topic
						+ "' and further ones are counted under topic=" + OTHER_TOPICS);
				register(OTHER_TOPICS);
				this.other = true;
			}
			return OTHER_TOPICS;
		}
	}

	private void register(String tag) {
		JOBS.keySet().forEach((kind) -> jobs(kind, tag));
		lag(tag);
	}

	private Counter counter(String name, @Nullable String description, String... tags) {
		return Counter.builder(name).description(description).tags(tags).register(this.registry);
	}

	private Counter jobs(String kind, String tag) {
		return counter("delayqueue.jobs." + kind, JOBS.get(kind), "topic", tag);
	}

	private Timer lag(String tag) {
		return Timer.builder("delayqueue.delivery.lag")
			.description("Time from a job's due time to its delivery, by Redis's clock")
			.tag("topic", tag)
			.register(this.registry);
	}

	private void count(String kind, String topic) {
		jobs(kind, tag(topic)).increment();
	}

	@Override
	public void recurringFired(String name, String topic, long created, long skipped, long misfired) {
		String tag = tag(topic);
		tick(tag, "created", created);
		tick(tag, "skipped", skipped);
		tick(tag, "misfired", misfired);
	}

	private void tick(String topic, String result, long count) {
		counter("delayqueue.recurring.ticks", "Recurring-job ticks fired by this instance's timer, by result",
				"topic", topic, "result", result).increment(count);
	}

	@Override
	public void scheduled(String topic) {
		count("scheduled", topic);
	}

	@Override
	@SuppressWarnings("NullAway") // a delivered job comes from a reserve, which sets its times
	public void delivered(ReservedJob job) {
		String tag = tag(job.topic());
		jobs("delivered", tag).increment();
		long lag = job.deliveredAt().toEpochMilli() - job.dueAt().toEpochMilli();
		lag(tag).record(Math.max(0, lag), TimeUnit.MILLISECONDS);
	}

	@Override
	public void completed(String topic) {
		count("completed", topic);
	}

	@Override
	public void retried(String topic) {
		count("retried", topic);
	}

	@Override
	public void dead(String topic) {
		count("dead", topic);
	}

	@Override
	public void expired(String topic) {
		count("expired", topic);
	}

	@Override
	public void cancelled(String topic) {
		count("cancelled", topic);
	}

	@Override
	public void deadTrimmed(String topic, long count) {
		counter("delayqueue.dead.trimmed", "DEAD jobs deleted by the topic's failed-job retention on this instance",
				"topic", tag(topic)).increment(count);
	}

	@Override
	public void dataLost(String namespace) {
		counter("delayqueue.data.lost", "Times this instance's timer found that Redis had lost the namespace's data")
			.increment();
	}

	@Override
	public void rateLimited(String topic) {
		counter("delayqueue.rate.limited", "Reserves of this instance that found the topic's rate limit window full",
				"topic", tag(topic)).increment();
	}

	@Override
	public void handled(String topic, Duration duration, String outcome, @Nullable Throwable failure) {
		Timer.builder("delayqueue.listener")
			.description("Duration of @DelayedListener handler calls")
			.tags("topic", tag(topic), "outcome", outcome, "exception",
					(failure != null) ? failure.getClass().getSimpleName() : "none")
			.register(this.registry)
			.record(duration);
	}

}
