package io.github.delayqueue.sentinel;

import java.time.Duration;
import java.util.Set;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.support.DeliveryCounter;
import io.github.delayqueue.support.EveryOperation;
import io.github.delayqueue.support.SteadyProducer;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestSentinel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue behind Redis Sentinel (a master, a replica, three Sentinels): every operation
 * works, and when the master is killed in the middle of a run the timers and listeners go on
 * with the promoted replica, without a restart, and no schedule acknowledged with
 * {@code delayqueue.redis.wait-replicas=1} is lost.
 */
class RedisSentinelTests {

	private RedisTestSentinel sentinel;

	private ApplicationContextRunner runner;

	@BeforeEach
	void start() {
		this.sentinel = RedisTestSentinel.start();
		this.runner = EveryOperation.runner("sentinel", 4)
			.withBean(DeliveryCounter.class)
			.withPropertyValues("spring.data.redis.sentinel.master=" + RedisTestSentinel.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + this.sentinel.sentinelNodes(),
					"spring.data.redis.timeout=1s", "delayqueue.default-ttr=3s",
					"delivery-counter.topic=sentinel-load");
	}

	@AfterEach
	void stop() {
		try {
			QueueInvariant.assertHolds(this.sentinel.currentMaster(), "sentinel", 4);
		}
		finally {
			this.sentinel.close();
		}
	}

	@Test
	void everyOperationWorksWithReplicaAcknowledgement() {
		this.runner.withPropertyValues("delayqueue.redis.wait-replicas=1").run(EveryOperation::exercise);
	}

	@Test
	void aKilledMasterIsReplacedWithoutLosingAnAcknowledgedJob() {
		this.runner.withPropertyValues("delayqueue.redis.wait-replicas=1").run((context) -> {
			assertThat(context).hasNotFailed();
			DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
			SteadyProducer producer = new SteadyProducer(template, "sentinel-load", Duration.ofSeconds(2));
			Set<String> acknowledged = producer.acknowledged();
			SteadyProducer.pause(Duration.ofSeconds(2));
			long killedAt = System.nanoTime();
			this.sentinel.killMaster();
			this.sentinel.awaitFailover();
			long failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
			// the old master comes back empty and the Sentinels make it the new master's replica
			this.sentinel.restartOldMasterAsReplica();
			int before = acknowledged.size();
			await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() > before + 100);
			SteadyProducer.pause(Duration.ofSeconds(1));
			producer.close();

			DeliveryCounter counter = context.getBean(DeliveryCounter.class);
			await().atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(counter.received.keySet())
					.as(() -> "acknowledged, not delivered: " + acknowledged.stream()
						.filter((id) -> !counter.received.containsKey(id))
						.map((id) -> id + " " + template.find("sentinel-load", id)
							.map((job) -> job.state() + " attempt " + job.attempt() + " " + job.lastError())
							.orElse("not in Redis"))
						.toList())
					.containsAll(acknowledged));
			long duplicates = SteadyProducer.duplicates(counter.received);
			System.out.println("sentinel: master killed, replica promoted after " + failoverMillis + " ms; "
					+ acknowledged.size() + " schedules acknowledged (" + before + " by the time the old master was back), "
					+ producer.refused() + " refused, 0 lost, " + duplicates + " delivered more than once");
			RedisDelayQueue queue = context.getBean(RedisDelayQueue.class);
			assertThat(queue.isSubscribed()).isTrue();
			assertThat(queue.getTimer().ownedBuckets()).isEqualTo(4);
		});
	}

	@Test
	void whatReplicaAcknowledgementCosts() {
		for (int replicas : new int[] { 0, 1, 0, 1 }) {
			this.runner.withPropertyValues("delayqueue.redis.wait-replicas=" + replicas).run((context) -> {
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				int jobs = 2_000;
				for (int i = 0; i < 200; i++) {
					template.schedule("cost-warm-up", "w-" + replicas + "-" + i, "x", Duration.ofHours(1));
				}
				long start = System.nanoTime();
				for (int i = 0; i < jobs; i++) {
					template.schedule("cost", "c-" + replicas + "-" + i + "-" + start, "x", Duration.ofHours(1));
				}
				long micros = (System.nanoTime() - start) / 1_000 / jobs;
				System.out.println("sentinel: schedule one at a time with wait-replicas=" + replicas + ": " + micros
						+ " µs per call");
				assertThat(template.find("cost", "c-" + replicas + "-0-" + start)).isPresent();
			});
		}
	}


}
