package io.github.delayqueue.cluster;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.support.DeliveryCounter;
import io.github.delayqueue.support.EveryOperation;
import io.github.delayqueue.support.SteadyProducer;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Buckets move between Redis Cluster masters while producers schedule and two application
 * instances consume: the slot of a bucket (and the slot of the namespace's coordination keys)
 * is migrated key by key, slowly, so that every script meets the slot half-moved. Every
 * acknowledged job is delivered, none twice, and the invariant holds afterwards on every
 * master.
 */
class RedisClusterReshardingTests {

	private static final String NAMESPACE = "resharding";

	private static final String TOPIC = "resharded";

	private RedisTestCluster cluster;

	@BeforeEach
	void startCluster() {
		this.cluster = RedisTestCluster.start(3);
	}

	@AfterEach
	void stopCluster() {
		this.cluster.close();
	}

	private ApplicationContextRunner runner() {
		return EveryOperation.runner(NAMESPACE, 16)
			.withBean(DeliveryCounter.class)
			.withPropertyValues("spring.data.redis.cluster.nodes=" + this.cluster.nodes(),
					"delivery-counter.topic=" + TOPIC);
	}

	@Test
	void slotsThatMoveWhileJobsFlowLoseNoJobAndStrandNone() {
		runner().run((first) -> runner().run((second) -> {
			DelayedJobTemplate template = first.getBean(DelayedJobTemplate.class);
			DeliveryCounter one = first.getBean(DeliveryCounter.class);
			DeliveryCounter two = second.getBean(DeliveryCounter.class);
			Set<String> acknowledged;
			int refused;
			try (SteadyProducer producer = new SteadyProducer(template, TOPIC, Duration.ofMillis(800))) {
				SteadyProducer.pause(Duration.ofMillis(500));
				// two buckets and the coordination keys, each to the next master, 150 ms per step
				for (String key : new String[] { "{" + NAMESPACE + ":0}:jobs", "{" + NAMESPACE + ":5}:jobs",
						"{" + NAMESPACE + "}:instances" }) {
					int slot = this.cluster.slotOf(key);
					int to = (this.cluster.masterOfSlot(slot) + 1) % 3;
					int keys = this.cluster.migrateSlot(slot, to, Duration.ofMillis(150));
					assertThat(keys).as("keys of " + key + "'s slot").isPositive();
				}
				SteadyProducer.pause(Duration.ofMillis(500));
				producer.close();
				acknowledged = new HashSet<>(producer.acknowledged());
				refused = producer.refused();
			}
			assertThat(acknowledged).hasSizeGreaterThan(100);
			await().atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(merged(one, two).keySet()).containsAll(acknowledged));
			Map<String, Integer> deliveries = merged(one, two);
			assertThat(deliveries.values()).as("deliveries per job").allMatch((count) -> count == 1);
			System.out.println("resharding: " + acknowledged.size() + " jobs acknowledged, " + refused
					+ " schedules refused, all delivered once");
		}));
		QueueInvariant.assertHolds(this.cluster, NAMESPACE, 16);
	}

	private static Map<String, Integer> merged(DeliveryCounter one, DeliveryCounter two) {
		Map<String, Integer> all = new TreeMap<>();
		one.received.forEach((id, count) -> all.merge(id, count.get(), Integer::sum));
		two.received.forEach((id, count) -> all.merge(id, count.get(), Integer::sum));
		return all;
	}

}
