package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis runs out of memory ({@code maxmemory} with {@code noeviction}) in the middle of bulk
 * schedules: Redis refuses a script for lack of memory only at its first write, so each call is refused whole or runs whole, consumers go on (their scripts free memory),
 * and once memory is free again everything works. The extension checks the invariant after
 * the test, and the test checks it while memory is still short.
 */
class RedisDelayQueueMemoryFaultTests {

	private static RedisTestServer redis;

	@RegisterExtension
	final RedisQueues queues = new RedisQueues(redis);

	@BeforeAll
	static void startRedis() {
		redis = RedisTestServers.local().argument("--maxmemory", "16mb", "--maxmemory-policy", "noeviction").start();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	private static List<ScheduleRequest> batch(String topic, int from, int count, byte[] payload, Duration delay) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = from; i < from + count; i++) {
			requests.add(new ScheduleRequest(topic, "job-" + i, payload, delay, null, null, null, OnDuplicate.KEEP,
					Map.of(), null));
		}
		return requests;
	}

	private long usedMemory() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			Properties memory = connection.serverCommands().info("memory");
			assertThat(memory).isNotNull();
			return Long.parseLong(memory.getProperty("used_memory"));
		}
	}

	private void setMaxMemory(long bytes) {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.serverCommands().setConfig("maxmemory", Long.toString(bytes));
		}
	}

	@Test
	void runningOutOfMemoryRefusesWholeScriptsAndEveryJobStaysInItsIndex() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.serverCommands().resetConfigStats();
		}
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(4));
		queue.scheduleAll(batch("work", 0, 200, "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO));
		List<ReservedJob> held = queue.reserve("work", 100, Duration.ofMinutes(5));
		assertThat(held).hasSize(100);

		// bulk schedules of 10 kB payloads until Redis refuses them
		byte[] big = new byte[10_000];
		Arrays.fill(big, (byte) 'x');
		int scheduled = 0;
		DelayQueueException refused = null;
		while (refused == null && scheduled < 10_000) {
			try {
				queue.scheduleAll(batch("filler", scheduled, 500, big, Duration.ofHours(1)));
				scheduled += 500;
			}
			catch (DelayQueueException ex) {
				refused = ex;
			}
		}
		assertThat(refused).as("Redis refused a schedule for lack of memory").isNotNull();
		assertThat(refused.getMessage()).contains("OOM");
		// whatever part of the refused bulk was written, every job is in its index
		this.queues.assertInvariant();

		// memory short for certain (the refused pipeline's own input, which Redis held while it
		// read it, is gone): a schedule is refused
		setMaxMemory(usedMemory() - 100_000);
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.schedule(batch("filler", -1, 1, big, Duration.ofHours(1)).get(0)))
			.withMessageContaining("OOM");

		// while memory is short, consumers go on: finish, fail and reserve free or move jobs
		assertThat(queue.finishAndReserve(held.subList(0, 50), 0, null).stale()).isEmpty();
		for (ReservedJob job : held.subList(50, 60)) {
			assertThat(queue.fail(job, Duration.ZERO, "retry while memory is short")).isEqualTo(FailResult.RETRYING);
		}
		assertThat(queue.reserve("work", 200, null)).hasSize(110);
		this.queues.assertInvariant();

		// memory comes back when the filler goes: schedules work again
		setMaxMemory(16 * 1024 * 1024);
		for (int i = 0; i < scheduled + 500; i++) {
			queue.cancel("filler", "job-" + i);
		}
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
				queue.scheduleAll(batch("after", 0, 100, "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO)))
			.hasSize(100));
		assertThat(queue.stats().topics().get("after").ready()).isEqualTo(100);
	}

}
