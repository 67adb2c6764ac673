package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A timer step that reserves due jobs for a waiting consumer and whose reply never reaches
 * the instance (the command timed out while Redis stalled; a dropped connection is the same
 * to Redis): the jobs stay RESERVED, with the attempt counted, until their TTR runs out, and
 * are then READY again, or DEAD on their last attempt, as after a take whose reply was lost.
 * Redis is stalled with {@code CLIENT PAUSE} on a server of this class's own, so that no other
 * test waits for it. Each test ends with the invariant check of {@link RedisQueues}.
 */
class RedisDelayQueueLostStepReplyTests {

	private static final Duration TTR = Duration.ofSeconds(5);

	private static RedisTestServer server;

	@RegisterExtension
	final RedisQueues queues = new RedisQueues(server);

	@BeforeAll
	static void startServer() {
		server = RedisTestServers.local().start();
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	private static ScheduleRequest request(String id, int maxAttempts) {
		return new ScheduleRequest("lost", id, "{}".getBytes(StandardCharsets.UTF_8), Duration.ofMillis(1), null, TTR,
				maxAttempts, OnDuplicate.KEEP, Map.of(), null);
	}

	@Test
	void jobsReservedByAStepWhoseReplyIsLostWaitForTheirTtrAndAreThenReadyOrDead() {
		// commands time out long before Redis answers again
		this.queues.commandTimeout = Duration.ofSeconds(1);
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		// a first step loads the step's script (or library) into Redis: a step sent during the
		// pause then runs as sent, not refused for a script Redis does not have yet; its offer
		// (of a topic without jobs) has this instance, which runs no timer, take its number
		// (the holder in its tokens) now, not during the pause
		assertThat(TimerSteps.promoteOffering(queue, 0, List.of(new TimerSteps.Offer("none", 1, 0, 0)),
				new LinkedHashMap<>()).moved()).isZero();
		queue.schedule(request("1", 3));
		queue.schedule(request("2", 1));
		try (RedisConnection admin = this.queues.connectionFactory().getConnection()) {
			// every client waits from here; the step below is sent meanwhile and runs after,
			// when both jobs (due 1 ms after their schedule) are due
			admin.execute("CLIENT", bytes("PAUSE"), bytes("3000"), bytes("ALL"));
		}
		Map<String, List<ReservedJob>> reserved = new LinkedHashMap<>();
		assertThatThrownBy(() -> TimerSteps.promoteOffering(queue, 0, List.of(new TimerSteps.Offer("lost", 4, 0, 0)),
				reserved))
			.isInstanceOf(RuntimeException.class);
		assertThat(reserved).isEmpty();

		// the step ran once Redis went on: both jobs reserved for a consumer that never got them
		// (reads time out, as the step did, until then)
		JobInfo first = await().atMost(Duration.ofSeconds(5))
			.ignoreExceptions()
			.until(() -> queue.find("lost", "1").orElseThrow(), (info) -> info.state() == JobState.RESERVED);
		JobInfo last = queue.find("lost", "2").orElseThrow();
		assertThat(last.state()).isEqualTo(JobState.RESERVED);
		assertThat(first.attempt()).isOne();
		assertThat(last.attempt()).isOne();
		assertThat(first.reservedUntil()).isNotNull();
		assertThat(queue.stats().topics().get("lost").reserved()).isEqualTo(2);
		// nobody can take them before their TTR: no step hands them out again
		assertThat(queue.reserve("lost", 4, null)).isEmpty();
		assertThat(TimerSteps.promote(queue, 0, false).expired()).isZero();

		// the TTR runs out: READY again with the lost attempt counted, or DEAD on the last one
		await().atMost(TTR.plusSeconds(5)).until(() -> TimerSteps.promote(queue, 0, false).expired() == 2);
		assertThat(queue.find("lost", "1").orElseThrow()).satisfies((info) -> {
			assertThat(info.state()).isEqualTo(JobState.READY);
			assertThat(info.attempt()).isOne();
		});
		assertThat(queue.find("lost", "2").orElseThrow()).satisfies((info) -> {
			assertThat(info.state()).isEqualTo(JobState.DEAD);
			assertThat(info.lastError()).contains("ran out (TTR) on attempt 1 of 1");
		});
		List<ReservedJob> again = queue.reserve("lost", 4, null);
		assertThat(again).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("1");
			assertThat(job.attempt()).isEqualTo(2);
		});
		assertThat(queue.finish(again.get(0))).isTrue();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
