package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueProducer;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.Retention;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * The parts of a {@link RedisDelayQueue}, wired from its builder, and its producer side: each
 * call is one script call on the job's bucket, and what it wrote wakes this instance's
 * consumers and timer. Thread-safe.
 */
abstract class RedisProducer implements DelayQueueProducer {

	/** The most jobs one schedule script call creates. */
	static final int SCHEDULE_BATCH = 200;

	/** The queue's logger, named after {@link RedisDelayQueue}. */
	static final Log logger = LogFactory.getLog(RedisDelayQueue.class);

	final RedisConnectionFactory connectionFactory;

	final KeySpace keys;

	final StartupChecks startupChecks;

	final ScriptRunner runner;

	final QueueScripts scripts;

	final RedisClock clock;

	final DelayQueueObserver observer;

	final ReadySignals signals;

	final RateLimits rateLimits;

	final RetainedJobs retained;

	final Offers offers;

	final RedisTimerBackend timerBackend;

	final BucketTimer timer;

	/** This instance's pub/sub subscription, which the outcome stream shares. */
	final EventSubscriber subscriber;

	final RedisRecurringJobs recurringJobs;

	final String instanceId;

	final long maxPayloadSize;

	final Duration defaultTtr;

	final int defaultMaxAttempts;

	final boolean failFast;

	final boolean timerEnabled;

	RedisProducer(RedisDelayQueueBuilder builder) {
		this.connectionFactory = builder.connectionFactory;
		StartupChecks.Resolved buckets = (builder.buckets != null)
				? new StartupChecks.Resolved(builder.buckets, StartupChecks.Origin.SET)
				: StartupChecks.resolve(builder.connectionFactory, builder.namespace, builder.failFast);
		this.keys = new KeySpace(builder.namespace, buckets.count());
		this.startupChecks = new StartupChecks(new ScriptRunner(builder.connectionFactory), this.keys,
				buckets.origin());
		this.runner = new ScriptRunner(builder.connectionFactory,
				new ReplicaWait(builder.waitReplicas, builder.waitTimeout), this.startupChecks::beforeCall);
		this.instanceId = builder.instanceId();
		this.scripts = new QueueScripts(this.runner, this.keys, this.instanceId);
		this.maxPayloadSize = builder.maxPayloadSize.toBytes();
		this.defaultTtr = builder.defaultTtr;
		this.defaultMaxAttempts = builder.defaultMaxAttempts;
		this.failFast = builder.failFast;
		this.timerEnabled = builder.timerEnabled;
		this.clock = new RedisClock(builder.nanoTime);
		this.observer = DelayQueueObserver.composite(builder.observers);
		this.signals = new ReadySignals(this.keys.buckets(), RedisConsumer.readyListProbe(this.runner, this.keys),
				ReadySignals.MAX_IDLE_TOPICS, ReadySignals.IDLE);
		this.recurringJobs = new RedisRecurringJobs(this.scripts, this.keys, this.defaultTtr, this.defaultMaxAttempts,
				this.maxPayloadSize, this.observer, this.signals, this::onRecurringTick);
		this.rateLimits = new RateLimits(this.runner, this.keys);
		this.retained = new RetainedJobs(this.runner, this.scripts, this.keys, builder.retention(Retention::keepsCompleted),
				builder.retention(Retention::limitsFailed), this.observer);
		// a topic with a rate limit takes permits before its jobs: none is reserved at once
		boolean reserveAtOnce = builder.reserveForWaitingConsumers;
		this.offers = new Offers(this.signals, (topic) -> reserveAtOnce && this.rateLimits.of(topic) == null);
		this.timerBackend = new RedisTimerBackend(this.scripts, this.signals, builder.leaseTtl,
				builder.batchSize, this.observer, this.recurringJobs, this.retained, this::recheckTimers, this.offers);
		this.timer = new BucketTimer(this.timerBackend, this.keys.buckets(), builder.batchSize,
				builder.coordinationInterval(), builder.guardInterval, this.clock, () -> {
					logger.warn("Redis lost the data of namespace '" + this.keys.namespace() + "' (a restart without"
							+ " persistence, a flush, or an eviction of its keys): the jobs written before are gone;"
							+ " its bucket count is pinned again and the declared recurring jobs are put again");
					this.observer.dataLost(this.keys.namespace());
				});
		this.subscriber = new EventSubscriber(this.connectionFactory, this.keys.channel(), this.signals, this.timer);
	}

	private void recheckTimers() {
		this.timer.recheckAll();
	}

	private void onRecurringTick(int bucket, long tickMillis) {
		this.timer.onRecurringTick(bucket, tickMillis);
	}

	/** The bucket of a job, {@code crc32(topic + ":" + id) mod buckets}; checks the topic and id. */
	public int bucketOf(String topic, String id) {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		return this.keys.bucketOf(topic, id);
	}

	@Override
	public ScheduleResult schedule(ScheduleRequest request) {
		Assert.notNull(request, "request must not be null");
		return scheduleAll(List.of(request)).get(0);
	}

	@Override
	@SuppressWarnings("NullAway") // a created job's result has its state and due time
	public List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests) {
		Assert.notNull(requests, "requests must not be null");
		Assert.noNullElements(requests, "requests must not contain null");
		requests.forEach(this::check);
		List<Map.Entry<Integer, List<Integer>>> calls = byBucket(IntStream.range(0, requests.size()).boxed().toList(),
				(i) -> this.keys.bucketOf(requests.get(i).topic(), requests.get(i).id()), SCHEDULE_BATCH);
		List<ScriptReplies.Scheduled> replies = this.scripts.scheduleAll(calls, requests, this.defaultTtr,
				this.defaultMaxAttempts);
		ScheduleResult[] results = new ScheduleResult[requests.size()];
		for (int c = 0; c < calls.size(); c++) {
			List<Integer> call = calls.get(c).getValue();
			ScriptReplies.Scheduled reply = replies.get(c);
			for (int k = 0; k < call.size(); k++) {
				String topic = requests.get(call.get(k)).topic();
				ScheduleResult result = reply.results().get(k);
				if (result.created()) {
					written(topic, calls.get(c).getKey(), result.state(), result.dueAt().toEpochMilli(), reply.head() == k);
					this.observer.scheduled(topic);
				}
				results[call.get(k)] = result;
			}
		}
		return Arrays.asList(results);
	}

	/** Items grouped by bucket in order of first appearance, each group split into lists of at most {@code batch}. */
	static <T> List<Map.Entry<Integer, List<T>>> byBucket(List<T> items, ToIntFunction<T> bucketOf, int batch) {
		Map<Integer, List<T>> byBucket = new LinkedHashMap<>();
		items.forEach((item) -> byBucket.computeIfAbsent(bucketOf.applyAsInt(item), (bucket) -> new ArrayList<>()).add(item));
		List<Map.Entry<Integer, List<T>>> chunks = new ArrayList<>();
		byBucket.forEach((bucket, all) -> {
			for (int from = 0; from < all.size(); from += batch) {
				chunks.add(Map.entry(bucket, all.subList(from, Math.min(all.size(), from + batch))));
			}
		});
		return chunks;
	}

	@Override
	public void check(ScheduleRequest request) {
		StoredPayload.checkSize(request.headers(), request.payload(), this.maxPayloadSize);
	}

	@Override
	public boolean cancel(String topic, String id) {
		boolean cancelled = this.scripts.cancel(bucketOf(topic, id), topic, id);
		if (cancelled) {
			this.observer.cancelled(topic);
		}
		return cancelled;
	}

	@Override
	public RescheduleResult reschedule(String topic, String id, Duration delay) {
		JobConstraints.delay(delay);
		return reschedule(topic, id, true, delay.toMillis());
	}

	@Override
	public RescheduleResult rescheduleAt(String topic, String id, Instant dueAt) {
		JobConstraints.dueAt(dueAt);
		return reschedule(topic, id, false, dueAt.toEpochMilli());
	}

	@SuppressWarnings("NullAway") // a rescheduled job has its new state
	private RescheduleResult reschedule(String topic, String id, boolean relative, long time) {
		int bucket = bucketOf(topic, id);
		ScriptReplies.Rescheduled reply = this.scripts.reschedule(bucket, topic, id, relative, time);
		if (reply.result() == RescheduleResult.RESCHEDULED) {
			written(topic, bucket, reply.state(), reply.dueMillis(), reply.head());
		}
		return reply.result();
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		Optional<JobInfo> live = this.scripts.find(bucketOf(topic, id), topic, id);
		return live.isPresent() ? live : this.retained.find(topic, id);
	}

	/** Wakes this instance's consumers for a READY job, its timer for a new head. */
	final void written(String topic, int bucket, JobState state, long dueMillis, boolean head) {
		if (state == JobState.READY) {
			this.signals.markReady(topic, bucket);
		}
		else if (head) {
			this.timer.onHead(bucket, dueMillis);
		}
	}

}
