package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Calls of one script that go to Redis together (a bulk schedule: one call per bucket) on
 * Lettuce's shared connection: no connection of their own, one round trip, each call applied
 * whole or not at all. The extension checks the invariant after each test.
 */
class ScriptBatchTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private static List<ScheduleRequest> requests(String topic, int count) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			requests.add(new ScheduleRequest(topic, "job-" + i, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
					Duration.ofHours(1), null, null, null, OnDuplicate.KEEP, Map.of(), null));
		}
		return requests;
	}

	private TopicStats figures(RedisDelayQueue queue, String topic) {
		return queue.stats().topics().getOrDefault(topic, TopicStats.EMPTY);
	}

	/**
	 * Spring Data Redis's pipeline takes a connection of its own when the factory has no pool
	 * (its default): a new connection, with its handshake, for every batch.
	 */
	@Test
	void aBulkScheduleOpensNoConnectionOfItsOwn() {
		RedisDelayQueue queue = this.queues.start();
		queue.scheduleAll(requests("warm", 100));
		// read on one connection, so that the reads open none between them
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			long connections = connectionsReceived(connection);
			// 1,500 jobs in 16 buckets: one call per bucket, 12,000 arguments
			List<ScheduleResult> results = queue.scheduleAll(requests("bulk", 1_500));
			assertThat(results).hasSize(1_500).allMatch(ScheduleResult::created);
			assertThat(connectionsReceived(connection)).isEqualTo(connections);
			// a batch bigger than the shared connection takes goes on a connection of its own
			List<ScheduleRequest> big = requests("big", 3_000);
			assertThat(queue.scheduleAll(big)).hasSize(3_000).allMatch(ScheduleResult::created);
			assertThat(connectionsReceived(connection)).isEqualTo(connections + 1);
		}
		assertThat(figures(queue, "bulk").delayed()).isEqualTo(1_500);
		assertThat(figures(queue, "big").delayed()).isEqualTo(3_000);
	}

	private static long connectionsReceived(RedisConnection connection) {
		Properties info = connection.serverCommands().info("stats");
		assertThat(info).isNotNull();
		return Long.parseLong(info.getProperty("total_connections_received"));
	}

	/**
	 * A server that lost the script (a restart, a failover, {@code SCRIPT FLUSH}) answers
	 * every call of the batch {@code NOSCRIPT}, which ran nothing: they are sent again, the
	 * first with {@code EVAL}, which goes where {@code EVALSHA} went ({@code SCRIPT LOAD} may
	 * be sent to a replica), and each job is created once. A batch too big for the shared
	 * connection loads the script first in its pipeline.
	 */
	@Test
	void callsThatFoundNoScriptAreSentAgainAfterAnEval() {
		RedisDelayQueue queue = this.queues.start();
		queue.scheduleAll(requests("warm", 100));
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.scriptingCommands().scriptFlush();
		}
		// Redis 6 counts SCRIPT LOAD under its command, with SCRIPT FLUSH; 7 under the subcommand
		boolean redis6 = RedisStats.majorVersion(this.queues.connectionFactory()) < 7;
		String load = redis6 ? "script" : "script|load";
		long flush = redis6 ? 1 : 0;
		long loads = RedisStats.commandStat(this.queues.connectionFactory(), load, "calls");
		long evals = RedisStats.commandStat(this.queues.connectionFactory(), "eval", "calls");
		List<ScheduleResult> results = queue.scheduleAll(requests("flushed", 1_500));
		assertThat(results).hasSize(1_500).allMatch(ScheduleResult::created);
		// the timer's own calls may have met NOSCRIPT too
		assertThat(RedisStats.commandStat(this.queues.connectionFactory(), "eval", "calls"))
			.isGreaterThanOrEqualTo(evals + 1);
		assertThat(figures(queue, "flushed").delayed()).isEqualTo(1_500);
		// again: every job is there already, none twice
		assertThat(queue.scheduleAll(requests("flushed", 1_500))).noneMatch(ScheduleResult::created);
		assertThat(figures(queue, "flushed").delayed()).isEqualTo(1_500);

		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.scriptingCommands().scriptFlush();
		}
		assertThat(RedisStats.commandStat(this.queues.connectionFactory(), load, "calls")).isEqualTo(loads + flush);
		long evalsBeforeBig = RedisStats.commandStat(this.queues.connectionFactory(), "eval", "calls");
		assertThat(queue.scheduleAll(requests("big", 3_000))).hasSize(3_000).allMatch(ScheduleResult::created);
		assertThat(figures(queue, "big").delayed()).isEqualTo(3_000);
		// a pipeline sends its first call as EVAL, no SCRIPT LOAD (which a master/replica
		// connection would send to a replica)
		assertThat(RedisStats.commandStat(this.queues.connectionFactory(), load, "calls")).isEqualTo(loads + flush);
		assertThat(RedisStats.commandStat(this.queues.connectionFactory(), "eval", "calls"))
			.isGreaterThanOrEqualTo(evalsBeforeBig + 1);
	}

	/**
	 * A batch whose replies do not come in time (Redis paused longer than the command
	 * timeout) is a connection failure that says some calls may have been applied; Redis runs
	 * them once it resumes, and the same batch sent again creates none twice.
	 */
	@Test
	void aBatchWithoutAnswersIsAConnectionFailureAndSafeToSendAgain() {
		try (RedisTestServer redis = RedisTestServers.local().start()) {
			LettuceConnectionFactory factory = TestConnections.lettuce(redis, Duration.ofMillis(300));
			RedisDelayQueue queue = RedisDelayQueue.builder(factory).namespace("paused").buckets(16).build();
			queue.start();
			try {
				try (RedisConnection connection = factory.getConnection()) {
					connection.execute("CLIENT", "PAUSE".getBytes(StandardCharsets.UTF_8),
							"1000".getBytes(StandardCharsets.UTF_8), "ALL".getBytes(StandardCharsets.UTF_8));
				}
				List<ScheduleRequest> requests = requests("paused", 500);
				assertThatExceptionOfType(DelayQueueConnectionException.class)
					.isThrownBy(() -> queue.scheduleAll(requests))
					.withMessageContaining("Redis unreachable during");
				// sent again once Redis answers: every job once, whichever calls ran before
				List<ScheduleResult> again = await().atMost(Duration.ofSeconds(10))
					.ignoreException(DelayQueueConnectionException.class)
					.until(() -> queue.scheduleAll(requests), (results) -> results.size() == 500);
				assertThat(again).hasSize(500);
				assertThat(queue.stats().topics().get("paused").delayed()).isEqualTo(500);
			}
			finally {
				queue.stop();
				factory.destroy();
			}
			QueueInvariant.assertHolds(redis, "paused", 16);
		}
	}

	/**
	 * One call of a batch that Redis refuses (here a bucket holding a record it cannot read)
	 * changes nothing in its bucket; the others are applied, and the failure names the batch.
	 */
	@Test
	void aCallRefusedInABatchIsThrownAfterTheOthersWereApplied() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(2));
		KeySpace keys = new KeySpace(this.queues.namespace, 2);
		List<ScheduleRequest> requests = requests("mixed", 200);
		ScheduleRequest broken = requests.get(0);
		int brokenBucket = keys.bucketOf(broken.topic(), broken.id());
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands()
				.hSet(keys.jobs(brokenBucket), (broken.topic() + ":" + broken.id()).getBytes(StandardCharsets.UTF_8),
						"not a record".getBytes(StandardCharsets.UTF_8));
		}
		assertThatExceptionOfType(DelayQueueException.class).isThrownBy(() -> queue.scheduleAll(requests))
			.withMessageContaining("Redis refused a call of a batch of 2 schedule")
			.withMessageContaining("not in the format of this version");
		long inOtherBucket = requests.stream()
			.filter((request) -> keys.bucketOf(request.topic(), request.id()) != brokenBucket)
			.count();
		assertThat(inOtherBucket).isPositive();
		assertThat(figures(queue, "mixed").delayed()).isEqualTo(inOtherBucket);
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			// the record that could not be read leaves the invariant check nothing to find
			connection.hashCommands()
				.hDel(keys.jobs(brokenBucket), (broken.topic() + ":" + broken.id()).getBytes(StandardCharsets.UTF_8));
		}
	}

}
