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

import io.github.delayqueue.core.DelayQueueProducer;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;

import org.springframework.util.Assert;

/**
 * The producer side of {@link RedisDelayQueue}: each call is one script call on the job's
 * bucket, and what it wrote wakes this instance's consumers and timer. Thread-safe.
 */
abstract class RedisProducer extends RedisQueueParts implements DelayQueueProducer {

	/** The most jobs one schedule script call creates. */
	static final int SCHEDULE_BATCH = 200;

	RedisProducer(RedisDelayQueueBuilder builder) {
		super(builder);
	}

	@Override
	public ScheduleResult schedule(ScheduleRequest request) {
		Assert.notNull(request, "request must not be null");
		check(request);
		int bucket = this.keys.bucketOf(request.topic(), request.id());
		ScriptReplies.Scheduled reply = this.scripts.scheduleAll(List.of(new QueueScripts.ScheduleCall(bucket,
				List.of(request))), this.defaultTtr, this.defaultMaxAttempts).get(0);
		return scheduled(request, bucket, reply, 0);
	}

	@Override
	public List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests) {
		Assert.notNull(requests, "requests must not be null");
		Assert.noNullElements(requests, "requests must not contain null");
		requests.forEach(this::check);
		List<Map.Entry<Integer, List<Integer>>> chunks = byBucket(IntStream.range(0, requests.size()).boxed().toList(),
				(i) -> this.keys.bucketOf(requests.get(i).topic(), requests.get(i).id()), SCHEDULE_BATCH);
		List<QueueScripts.ScheduleCall> calls = chunks.stream()
			.map((chunk) -> new QueueScripts.ScheduleCall(chunk.getKey(), chunk.getValue().stream().map(requests::get).toList()))
			.toList();
		List<ScriptReplies.Scheduled> replies = this.scripts.scheduleAll(calls, this.defaultTtr,
				this.defaultMaxAttempts);
		ScheduleResult[] results = new ScheduleResult[requests.size()];
		for (int c = 0; c < calls.size(); c++) {
			List<Integer> chunk = chunks.get(c).getValue();
			for (int k = 0; k < chunk.size(); k++) {
				results[chunk.get(k)] = scheduled(requests.get(chunk.get(k)), calls.get(c).bucket(), replies.get(c), k);
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

	/** The result of the job at {@code index} of a schedule script call. */
	@SuppressWarnings("NullAway") // a script's result has its state and due time
	private ScheduleResult scheduled(ScheduleRequest request, int bucket, ScriptReplies.Scheduled reply, int index) {
		ScheduleResult result = reply.results().get(index);
		if (result.created()) {
			written(request.topic(), bucket, result.state(), result.dueAt().toEpochMilli(),
					reply.head() == index);
			this.observer.scheduled(request.topic());
		}
		return result;
	}

	@Override
	public boolean cancel(String topic, String id) {
		int bucket = bucketOf(topic, id);
		if (!this.scripts.cancel(bucket, topic, id)) {
			return false;
		}
		this.observer.cancelled(topic);
		return true;
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
