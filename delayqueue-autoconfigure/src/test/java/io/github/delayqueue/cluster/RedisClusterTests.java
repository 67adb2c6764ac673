package io.github.delayqueue.cluster;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.support.DeliveryCounter;
import io.github.delayqueue.support.EveryOperation;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The queue on a local Redis Cluster of 3 masters: every operation (each Lua script) works,
 * the buckets' keys spread over the masters, and two application instances share the work
 * of thousands of jobs, each delivered once.
 */
class RedisClusterTests {

	private static RedisTestCluster cluster;

	private final ApplicationContextRunner runner = EveryOperation.runner("clustered", 16)
		.withBean(DeliveryCounter.class)
		.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodes(), "delivery-counter.topic=clustered-load");

	@BeforeAll
	static void startCluster() {
		cluster = RedisTestCluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@Test
	void everyOperationWorksAndTheBucketsSpreadOverTheMasters() {
		this.runner.run((context) -> {
			assertThat(context.getBean(RedisConnectionFactory.class).getConnection())
				.isInstanceOf(RedisClusterConnection.class);
			EveryOperation.exercise(context);

			RedisDelayQueue queue = context.getBean(RedisDelayQueue.class);
			Map<Integer, List<Integer>> bucketsByMaster = new TreeMap<>();
			for (int bucket = 0; bucket < queue.getBuckets(); bucket++) {
				String key = "{" + queue.getNamespace() + ":" + bucket + "}:jobs";
				bucketsByMaster.computeIfAbsent(cluster.masterOf(key), (master) -> new ArrayList<>()).add(bucket);
			}
			StringBuilder table = new StringBuilder("bucket keys by master:");
			bucketsByMaster.forEach((master, buckets) -> table.append("\n  master ")
				.append(master)
				.append(" (")
				.append(cluster.masters().get(master).port())
				.append("): buckets ")
				.append(buckets));
			System.out.println(table);
			assertThat(bucketsByMaster).as(table.toString()).hasSize(3);
		});
		QueueInvariant.assertHolds(cluster, "clustered", 16);
	}

	@Test
	void twoInstancesShareThousandsOfJobsOnTheCluster() {
		this.runner.run((first) -> this.runner.run((second) -> {
			DelayedJobTemplate template = first.getBean(DelayedJobTemplate.class);
			int jobs = 3_000;
			List<JobBuilder> batch = new ArrayList<>();
			for (int i = 0; i < jobs; i++) {
				String id = "job-" + i;
				batch.add(template.job("clustered-load", id)
					.payload(id)
					.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(2_000))));
			}
			template.scheduleAll(batch);
			// far-future jobs stay in Redis: every master holds some
			for (int i = 0; i < 300; i++) {
				template.schedule("clustered-later", "later-" + i, "x", Duration.ofHours(1));
			}
			for (int master = 0; master < 3; master++) {
				assertThat(cluster.keyCount(master)).as("keys on master " + master).isPositive();
			}

			DeliveryCounter one = first.getBean(DeliveryCounter.class);
			DeliveryCounter two = second.getBean(DeliveryCounter.class);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> merged(one, two).size() == jobs);
			Map<String, Integer> all = merged(one, two);
			assertThat(all.values()).allMatch((count) -> count == 1);
			assertThat(one.received).isNotEmpty();
			assertThat(two.received).isNotEmpty();
			RedisDelayQueue a = first.getBean(RedisDelayQueue.class);
			RedisDelayQueue b = second.getBean(RedisDelayQueue.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> a.getTimer().ownedBuckets() + b.getTimer().ownedBuckets() == 16
						&& a.getTimer().ownedBuckets() == 8);
			System.out.println("cluster: " + jobs + " jobs, first instance handled " + one.received.size()
					+ ", second " + two.received.size());
		}));
		QueueInvariant.assertHolds(cluster, "clustered", 16);
	}

	/**
	 * Jedis has no pipelines on a cluster: the heartbeat's renewal between coordinations
	 * sends its two commands one after the other, and the timer goes on promoting (a renewal
	 * that failed on the pipeline stopped every timer step until the next full coordination).
	 */
	@Test
	void withJedisTheTimerKeepsPromotingAcrossHeartbeats() {
		this.runner.withPropertyValues("spring.data.redis.client-type=jedis").run((context) -> {
			RedisDelayQueue queue = context.getBean(RedisDelayQueue.class);
			DeliveryCounter counter = context.getBean(DeliveryCounter.class);
			// due after several beats (every 2 s): each is a renewal
			context.getBean(DelayedJobTemplate.class).schedule("clustered-load", "after-beats", "after-beats",
					Duration.ofSeconds(5));
			await().atMost(Duration.ofSeconds(10)).until(() -> counter.received.containsKey("after-beats"));
			assertThat(queue.getTimer().lastError()).isNull();
		});
		QueueInvariant.assertHolds(cluster, "clustered", 16);
	}

	/**
	 * A queue built without a bucket count reads the namespace's through the cluster (with
	 * either driver), and a new namespace on a cluster gets 16.
	 */
	@Test
	void withoutACountAQueueReadsTheNamespacesAndANewNamespaceGetsSixteen() {
		String namespace = "auto" + System.nanoTime();
		RedisClusterConfiguration configuration = new RedisClusterConfiguration(List.of(cluster.nodes().split(",")));
		LettuceConnectionFactory lettuce = new LettuceConnectionFactory(configuration);
		lettuce.afterPropertiesSet();
		JedisConnectionFactory jedis = new JedisConnectionFactory(configuration);
		jedis.afterPropertiesSet();
		try {
			assertThat(RedisDelayQueue.builder(lettuce).namespace("new" + namespace).build().getBuckets()).isEqualTo(16);
			RedisDelayQueue first = RedisDelayQueue.builder(lettuce).namespace(namespace).buckets(8).build();
			first.start();
			first.schedule(new ScheduleRequest("auto", "a", "{}".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1),
					null, null, null, OnDuplicate.KEEP, Map.of(), null));
			first.stop();
			RedisDelayQueue second = RedisDelayQueue.builder(jedis).namespace(namespace).build();
			assertThat(second.getBuckets()).isEqualTo(8);
			assertThat(RedisDelayQueue.builder(lettuce).namespace(namespace).build().getBuckets()).isEqualTo(8);
			// its pin lost while timers run 8 buckets: not taken for a new namespace of 16
			try (RedisConnection connection = lettuce.getConnection()) {
				connection.keyCommands().del(("{" + namespace + "}:config").getBytes(StandardCharsets.UTF_8));
				connection.hashCommands()
					.hSet(("{" + namespace + "}:timers").getBytes(StandardCharsets.UTF_8),
							"7".getBytes(StandardCharsets.UTF_8), "another-instance".getBytes(StandardCharsets.UTF_8));
			}
			assertThatExceptionOfType(DelayQueueException.class)
				.isThrownBy(() -> RedisDelayQueue.builder(lettuce).namespace(namespace).build())
				.withMessageContaining("timers run its buckets up to 7 only");
			second.start();
			assertThat(second.find("auto", "a")).isPresent();
			second.stop();
		}
		finally {
			lettuce.destroy();
			jedis.destroy();
		}
		QueueInvariant.assertHolds(cluster, namespace, 8);
	}

	private static Map<String, Integer> merged(DeliveryCounter one, DeliveryCounter two) {
		Map<String, Integer> all = new TreeMap<>();
		one.received.forEach((id, count) -> all.merge(id, count.get(), Integer::sum));
		two.received.forEach((id, count) -> all.merge(id, count.get(), Integer::sum));
		return all;
	}

}
