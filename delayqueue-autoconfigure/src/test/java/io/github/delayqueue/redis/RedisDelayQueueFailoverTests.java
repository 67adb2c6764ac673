package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueFailoverTests {

	private static final Duration LEASE_TTL = Duration.ofSeconds(2);

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void twoInstancesShareTheBucketsFairly() {
		RedisDelayQueue a = this.queues.start((builder) -> builder.instanceId("a").leaseTtl(LEASE_TTL));
		RedisDelayQueue b = this.queues.start((builder) -> builder.instanceId("b").leaseTtl(LEASE_TTL));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(a.getTimer().ownedBuckets()).isEqualTo(8);
			assertThat(b.getTimer().ownedBuckets()).isEqualTo(8);
		});
		Set<Integer> all = new HashSet<>();
		for (int bucket : a.getTimer().ownedBucketNumbers()) {
			all.add(bucket);
		}
		for (int bucket : b.getTimer().ownedBucketNumbers()) {
			assertThat(all.add(bucket)).as("bucket %d owned twice", bucket).isTrue();
		}
		assertThat(all).hasSize(16);
		assertThat(a.stats().buckets()).extracting((stats) -> stats.timerOwner()).containsOnly("a", "b");
	}

	@Test
	void gracefulStopHandsTheBucketsOverAtOnce() {
		RedisDelayQueue a = this.queues.start((builder) -> builder.instanceId("a").leaseTtl(Duration.ofSeconds(30)));
		RedisDelayQueue b = this.queues.start((builder) -> builder.instanceId("b").leaseTtl(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(b.getTimer().ownedBuckets()).isEqualTo(8));
		a.stop();
		// far sooner than the 30 s lease: the leaving instance announces it
		await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(b.getTimer().ownedBuckets()).isEqualTo(16));
	}

	@Test
	void jobsOfAnInstanceThatDiesAreDeliveredWithinLeaseTtlPlusOneSecond() throws Exception {
		RedisDelayQueue victim = this.queues.start((builder) -> builder.instanceId("victim").leaseTtl(LEASE_TTL));
		RedisDelayQueue survivor = this.queues.start((builder) -> builder.instanceId("survivor").leaseTtl(LEASE_TTL));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(victim.getTimer().ownedBuckets()).isEqualTo(8);
			assertThat(survivor.getTimer().ownedBuckets()).isEqualTo(8);
		});
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			requests.add(request("failover", "job-" + i, "x", Duration.ofMillis(300 + (i % 20) * 50)));
		}
		Set<Integer> victimBuckets = new HashSet<>();
		for (int bucket : victim.getTimer().ownedBucketNumbers()) {
			victimBuckets.add(bucket);
		}
		long onVictim = requests.stream()
			.filter((r) -> victimBuckets.contains(survivor.bucketOf(r.topic(), r.id())))
			.count();
		assertThat(onVictim).as("jobs in the victim's buckets").isGreaterThan(50);
		try (Consumer consumer = new Consumer(survivor, "failover", 2, 50)) {
			survivor.scheduleAll(requests);
			TimerSteps.halt(victim);
			await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(200));
			assertThat(consumer.deliveries.values()).allMatch((n) -> n.get() == 1);
			for (ReservedJob job : consumer.delivered) {
				assertThat(Duration.between(job.dueAt(), job.deliveredAt())).as("lag of %s", job.id())
					.isLessThanOrEqualTo(LEASE_TTL.plusSeconds(1));
			}
		}
		assertThat(survivor.getTimer().ownedBuckets()).isEqualTo(16);
	}

}
