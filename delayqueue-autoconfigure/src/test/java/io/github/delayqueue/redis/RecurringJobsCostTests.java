package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import io.github.delayqueue.recurring.RecurringJob;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a recurring job costs Redis: the memory of a definition, and the commands of a tick
 * (the two script calls of the bucket's timer and every command inside them, as
 * {@code INFO commandstats} counts them). The command counts are exact (they do not depend on
 * timing), so they are asserted; the figures are printed for docs/recurring.md.
 */
class RecurringJobsCostTests extends AbstractRedisDelayQueueTests {

	private static long calls(RedisConnection connection) {
		Properties stats = connection.serverCommands().info("commandstats");
		long calls = 0;
		for (String name : stats.stringPropertyNames()) {
			String value = stats.getProperty(name);
			int at = value.indexOf("calls=");
			if (name.startsWith("cmdstat_") && at >= 0) {
				calls += Long.parseLong(value.substring(at + 6, value.indexOf(',', at)));
			}
		}
		return calls;
	}

	private static long usedMemory(RedisConnection connection) {
		return Long.parseLong(connection.serverCommands().info("memory").getProperty("used_memory"));
	}

	@Test
	void aDefinitionCostsAFewHundredBytesAndATickAFixedNumberOfCommands() {
		this.queue.stop();
		RedisDelayQueue queue = this.queues.start((builder) -> builder.timerEnabled(false));
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			int definitions = 2_000;
			long before = usedMemory(connection);
			for (int i = 0; i < definitions; i++) {
				queue.getRecurringJobs()
					.put(RecurringJob.builder("report-" + i)
						.topic("reports")
						.cron("0 0 0 1 1 *", "UTC")
						.payload("{\"report\":\"unpaid\"}")
						.build());
			}
			long perDefinition = (usedMemory(connection) - before) / definitions;

			queue.getRecurringJobs()
				.put(RecurringJob.builder("tick").topic("ticks").every(Duration.ofHours(1)).payload("{}").build());
			int bucket = new KeySpace(this.queues.namespace, queue.getBuckets()).bucketOfName("tick");
			long tick = (connection.serverCommands().time() / 1000) * 1000;
			connection.zSetCommands()
				.zAdd(("{" + this.queues.namespace + ":" + bucket + "}:recurring-due").getBytes(), tick, "tick".getBytes());
			// the other definitions of the bucket are not due: a tick costs the same with or without them
			long start = calls(connection);
			assertThat(TimerSteps.fireRecurring(queue, bucket)).containsExactly("ticks");
			// minus the INFO call that reads the figures
			long perTick = calls(connection) - start - 1;
			long idle = calls(connection);
			TimerSteps.fireRecurring(queue, bucket);
			long perEmptyCheck = calls(connection) - idle - 1;
			System.out.println("Recurring job cost: " + perDefinition + " bytes of Redis memory per definition (cron, "
					+ "20-byte payload, " + definitions + " definitions); " + perTick + " Redis commands per tick "
					+ "(2 script calls); " + perEmptyCheck + " for a check that finds nothing due");
			assertThat(perDefinition).isBetween(100L, 1_000L);
			// due: EVALSHA, TIME, ZRANGE (the first two ticks), HGET; fire: EVALSHA, TIME, HGET, ZSCORE,
			// HSETNX, HDEL (of a running repair's note, lib/unnote), RPUSH, PUBLISH (ready), HSET, ZADD,
			// ZRANGE (the bucket's next tick), HINCRBY
			assertThat(perTick).isEqualTo(16);
			// nothing due: EVALSHA, TIME, ZRANGE
			assertThat(perEmptyCheck).isEqualTo(3);
		}
	}

}
