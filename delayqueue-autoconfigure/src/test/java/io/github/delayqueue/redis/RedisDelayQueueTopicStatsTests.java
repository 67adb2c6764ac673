package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.core.QueueStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The figures of one topic are those of the whole queue's read for that topic, read (alone and
 * by the endpoint's topic read) with commands whose number does not grow with the other topics.
 */
class RedisDelayQueueTopicStatsTests {

	/**
	 * The commands a topic's read runs that would grow with the other topics (the scripts' reads
	 * of counts, lists and records, the dead lists' sizes); the heartbeat's commands are not.
	 */
	private static final List<String> READS = List.of("hgetall", "hmget", "hget", "lrange", "zcard");

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void aTopicsFiguresAreReadWithCommandsThatDoNotGrowWithTheOtherTopics() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(4).timerEnabled(false));
		queue.schedule(request("asked", "ready", "{}", Duration.ZERO));
		queue.schedule(request("asked", "later", "{}", Duration.ofHours(1)));
		for (int bucket = 0; bucket < 4; bucket++) {
			TimerSteps.promote(queue, bucket, false);
		}
		DelayQueueEndpoint endpoint = new DelayQueueEndpoint(queue, List::of, null, false, null, "endpoint");
		long alone = reads(queue, () -> queue.stats("asked"));
		long endpointAlone = reads(queue, () -> endpoint.topic("asked", null, null, null));

		for (int t = 0; t < 50; t++) {
			queue.schedule(request("other-" + t, "ready", "{}", Duration.ZERO));
			queue.schedule(request("other-" + t, "later", "{}", Duration.ofHours(1)));
		}
		for (int bucket = 0; bucket < 4; bucket++) {
			TimerSteps.promote(queue, bucket, false);
		}

		assertThat(reads(queue, () -> queue.stats("asked"))).as("commands of a topic's figures beside 50 other topics")
			.isEqualTo(alone);
		assertThat(reads(queue, () -> endpoint.topic("asked", null, null, null)))
			.as("commands of the endpoint's topic read beside 50 other topics")
			.isEqualTo(endpointAlone);
		QueueStats all = queue.stats();
		QueueStats one = queue.stats("asked");
		assertThat(all.topics()).hasSize(51);
		assertThat(one.topics()).containsOnlyKeys("asked");
		assertThat(one.topics().get("asked")).isEqualTo(all.topics().get("asked"));
		assertThat(one.topics().get("asked").ready()).isEqualTo(1);
		assertThat(one.topics().get("asked").overdueSince()).isNotNull();
		assertThat(one.totals()).isEqualTo(all.topics().get("asked"));
		assertThat(queue.stats("nothing").topics()).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> queue.stats("a:b")).withMessageContaining("topic");
	}

	private static long reads(RedisDelayQueue queue, Runnable read) {
		RedisConnectionFactory factory = queue.getConnectionFactory();
		long before = READS.stream().mapToLong((command) -> RedisStats.commandStat(factory, command, "calls")).sum();
		read.run();
		return READS.stream().mapToLong((command) -> RedisStats.commandStat(factory, command, "calls")).sum() - before;
	}

}
