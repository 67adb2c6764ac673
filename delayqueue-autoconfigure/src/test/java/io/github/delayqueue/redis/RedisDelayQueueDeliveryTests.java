package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueDeliveryTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void jobsWithRandomDelaysAreAllDeliveredOnceAndNeverEarly() throws Exception {
		RedisDelayQueue queue = this.queues.start();
		int count = 2_000;
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			long delay = ThreadLocalRandom.current().nextLong(0, 3_001);
			requests.add(new ScheduleRequest("never-early", "job-" + i, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
					Duration.ofMillis(delay), null, null, null, OnDuplicate.KEEP, Map.of(), null));
		}
		try (Consumer consumer = new Consumer(queue, "never-early", 4, 50)) {
			assertThat(queue.scheduleAll(requests)).allMatch((result) -> result.created());
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(count));
			assertThat(consumer.errors).isEmpty();
			assertThat(consumer.deliveries.values()).allMatch((n) -> n.get() == 1);
			assertThat(consumer.delivered).hasSize(count);
			for (ReservedJob job : consumer.delivered) {
				assertThat(job.deliveredAt()).as("delivery of %s", job.id()).isAfterOrEqualTo(job.dueAt());
				assertThat(job.attempt()).isEqualTo(1);
			}
		}
		assertThat(queue.stats().totals().total()).isZero();
	}

	@Test
	void dueJobsReachAConsumerThatWaitsWithoutPolling() throws Exception {
		RedisDelayQueue queue = this.queues.start();
		// a new topic starts with the buckets whose ready list holds entries (none here); the
		// subscription's full re-check marks every bucket once: once all were found empty, a
		// consumer waits
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.reserve("idle-topic", 10, null).isEmpty()
				&& !queue.awaitWork("idle-topic", Duration.ofMillis(300)));
		queue.schedule(RedisDelayQueueLifecycleTests.request("idle-topic", "a", "1", Duration.ofMillis(500)));
		assertThat(queue.awaitWork("idle-topic", Duration.ofSeconds(5))).isTrue();
		assertThat(queue.reserve("idle-topic", 10, null)).extracting(ReservedJob::id).containsExactly("a");
	}

	@Test
	void anotherInstanceIsToldOfReadyWorkOverPubSub() throws Exception {
		RedisDelayQueue timerInstance = this.queues.start();
		RedisDelayQueue consumerOnly = this.queues.start((builder) -> builder.timerEnabled(false));
		AtomicInteger seen = new AtomicInteger();
		try (Consumer consumer = new Consumer(consumerOnly, "remote", 1, 10)) {
			await().atMost(Duration.ofSeconds(5)).until(consumerOnly::isSubscribed);
			for (int i = 0; i < 20; i++) {
				timerInstance.schedule(RedisDelayQueueLifecycleTests.request("remote", "r" + i, "x", Duration.ofMillis(200 + i * 10)));
			}
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(20));
			consumer.delivered.forEach((job) -> {
				// announced, not found by the guard re-check: well within the 5 s guard interval
				assertThat(Duration.between(job.dueAt(), job.deliveredAt())).isLessThan(Duration.ofSeconds(2));
				seen.incrementAndGet();
			});
		}
		assertThat(seen).hasValue(20);
	}

	@Test
	void aBulkScheduleThatMovesABucketsHeadEarlierWakesTheTimerOfAnotherInstance() throws Exception {
		RedisDelayQueue timerInstance = this.queues.start();
		RedisDelayQueue producer = this.queues.start((builder) -> builder.timerEnabled(false));
		int bucket = producer.bucketOf("bulk-head", "far");
		List<String> ids = new ArrayList<>();
		for (int i = 0; ids.size() < 5; i++) {
			if (producer.bucketOf("bulk-head", "n" + i) == bucket) {
				ids.add("n" + i);
			}
		}
		producer.schedule(RedisDelayQueueLifecycleTests.request("bulk-head", "far", "x", Duration.ofHours(1)));
		try (Consumer consumer = new Consumer(timerInstance, "bulk-head", 1, 10)) {
			await().atMost(Duration.ofSeconds(5)).until(timerInstance::isSubscribed);
			// one script call for the bucket: later jobs first, the new head (300 ms) in the middle
			List<ScheduleRequest> requests = new ArrayList<>();
			long[] delays = { 2_500, 2_000, 300, 1_500, 1_000 };
			for (int i = 0; i < ids.size(); i++) {
				requests.add(RedisDelayQueueLifecycleTests.request("bulk-head", ids.get(i), "x", Duration.ofMillis(delays[i])));
			}
			assertThat(producer.scheduleAll(requests)).allMatch((result) -> result.created());
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(5));
			consumer.delivered.forEach((job) ->
				// told by the script's announcement, not found by the 5 s guard re-check
				assertThat(Duration.between(job.dueAt(), job.deliveredAt())).as(job.id()).isLessThan(Duration.ofSeconds(2)));
		}
		assertThat(producer.find("bulk-head", "far")).isPresent();
	}

}
