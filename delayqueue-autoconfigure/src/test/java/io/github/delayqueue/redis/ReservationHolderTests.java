package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.WaitingJobPage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Who holds a reservation: the instance number in the fencing token ({@code lib/token.lua}),
 * named on the RESERVED page of {@link RedisDelayQueue#waitingJobs}.
 */
class ReservationHolderTests {

	private static final long BASE = QueueScripts.TOKEN_BASE;

	/** Rewrites a RESERVED record's token to the bucket's next counter value, as 0.1.0 wrote tokens. */
	private static final String OLD_TOKEN = """
			local record = redis.call('HGET', KEYS[1], ARGV[1])
			local nl = string.find(record, '\\n', 1, true)
			local seq = redis.call('INCR', KEYS[2])
			local header = string.gsub(string.sub(record, 1, nl - 1), ',%d*$', ',' .. seq)
			redis.call('HSET', KEYS[1], ARGV[1], header .. string.sub(record, nl))
			return seq
			""";

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void theReservedPageNamesTheInstanceThatHoldsEachJobAlsoOneWithoutTimers() {
		RedisDelayQueue alpha = this.queues.start((builder) -> builder.instanceId("alpha"));
		RedisDelayQueue beta = this.queues.start((builder) -> builder.instanceId("beta").timerEnabled(false));
		alpha.scheduleAll(requests("work", 10));
		List<ReservedJob> byAlpha = reserve(alpha, "work", 4);
		List<ReservedJob> byBeta = reserve(beta, "work", 4);

		assertThat(byAlpha).allMatch((job) -> job.token() >= BASE);
		assertThat(byBeta).allMatch((job) -> job.token() >= BASE);
		assertThat(number(byAlpha.get(0))).isPositive().isNotEqualTo(number(byBeta.get(0)));
		Map<String, String> holders = holders(alpha, "work");
		assertThat(holders).hasSize(8);
		byAlpha.forEach((job) -> assertThat(holders).containsEntry(job.id(), "alpha"));
		byBeta.forEach((job) -> assertThat(holders).containsEntry(job.id(), "beta"));
		// DELAYED and READY rows hold nothing
		assertThat(alpha.waitingJobs("work", JobState.READY, null, 10, false).jobs()).hasSize(2)
			.allMatch((job) -> job.reservedBy() == null);
		assertThat(byAlpha).allMatch(alpha::finish);
		assertThat(byBeta).allMatch(beta::finish);
	}

	@Test
	void aTokenOfTheNewFormRoundTripsThroughTouchReleaseFailAndFinishAndAStaleOneIsRefused() {
		RedisDelayQueue queue = this.queues.start();
		queue.schedule(request("trip", "1", "{}", Duration.ZERO));
		ReservedJob held = reserve(queue, "trip", 1).get(0);
		// another holder's number, and the next sequence with the same number, are stale
		List<ReservedJob> stale = List.of(ReservedJob.of("trip", "1", held.token() + 1, null),
				ReservedJob.of("trip", "1", held.token() + 10_000, null),
				ReservedJob.of("trip", "1", held.token() % 10_000, null));
		for (ReservedJob other : stale) {
			assertThat(queue.touch(other, Duration.ofMinutes(1))).isEmpty();
			assertThat(queue.finish(other)).isFalse();
			assertThat(queue.fail(other, Duration.ZERO, "stale")).isEqualTo(FailResult.STALE);
			assertThat(queue.release(other)).isFalse();
		}
		assertThat(queue.touch(held, Duration.ofMinutes(1))).isPresent();
		assertThat(queue.release(held)).isTrue();
		ReservedJob again = reserve(queue, "trip", 1).get(0);
		assertThat(again.token()).isGreaterThan(held.token()).isGreaterThanOrEqualTo(BASE);
		assertThat(queue.fail(again, Duration.ZERO, "once")).isEqualTo(FailResult.RETRYING);
		ReservedJob last = reserve(queue, "trip", 1).get(0);
		assertThat(queue.finish(again)).isFalse();
		assertThat(queue.finish(last)).isTrue();
	}

	@Test
	void aTokenWrittenIn010FormHasNoHolderAndCanStillBeFinished() {
		RedisDelayQueue queue = this.queues.start();
		queue.scheduleAll(requests("old", 2));
		List<ReservedJob> held = reserve(queue, "old", 2);
		ReservedJob first = held.get(0);
		int bucket = queue.bucketOf("old", first.id());
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		long oldToken;
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			oldToken = connection.scriptingCommands()
				.eval(bytes(OLD_TOKEN), ReturnType.INTEGER, 2, keys.jobs(bucket),
						bytes("{" + this.queues.namespace + ":" + bucket + "}:seq"), bytes("old:" + first.id()));
		}
		assertThat(oldToken).isLessThan(BASE);
		Map<String, String> holders = holders(queue, "old");
		assertThat(holders).containsEntry(first.id(), null).containsEntry(held.get(1).id(), queue.getInstanceId());
		assertThat(queue.finish(first)).as("the new-form token no longer holds it").isFalse();
		assertThat(queue.finish(ReservedJob.of("old", first.id(), oldToken, null))).isTrue();
		assertThat(queue.finish(held.get(1))).isTrue();
	}

	@Test
	void theNumberWrapsAfter9999AndTakesTheNumberOverFromItsFormerHolder() {
		KeySpace keys = new KeySpace(this.queues.namespace, 16);
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands().hSet(keys.config(), bytes("number"), bytes("9998"));
			connection.hashCommands().hSet(keys.numbers(), bytes("1"), bytes("long-gone"));
		}
		RedisDelayQueue last = this.queues.start((builder) -> builder.instanceId("last"));
		await().until(() -> last.getTimer().ownedBuckets() > 0);
		RedisDelayQueue wrapped = this.queues.start((builder) -> builder.instanceId("wrapped").timerEnabled(false));
		last.scheduleAll(requests("wrap", 2));
		ReservedJob byLast = reserve(last, "wrap", 1).get(0);
		ReservedJob byWrapped = reserve(wrapped, "wrap", 1).get(0);
		assertThat(number(byLast)).isEqualTo(9999);
		assertThat(number(byWrapped)).isEqualTo(1);
		assertThat(holders(last, "wrap")).containsEntry(byLast.id(), "last").containsEntry(byWrapped.id(), "wrapped");
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			assertThat(connection.hashCommands().hLen(keys.numbers())).isEqualTo(2);
		}
		assertThat(last.finish(byLast)).isTrue();
		assertThat(wrapped.finish(byWrapped)).isTrue();
	}

	@Test
	void anInstanceRejoiningAfterItsHeartbeatRanOutKeepsItsNumberUnlessAnotherTookIt() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.instanceId("phoenix"));
		await().until(() -> queue.getTimer().ownedBuckets() > 0);
		queue.scheduleAll(requests("again", 3));
		ReservedJob before = reserve(queue, "again", 1).get(0);
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());

		dropHeartbeat(keys, "phoenix");
		ReservedJob kept = reserve(queue, "again", 1).get(0);
		assertThat(number(kept)).isEqualTo(number(before));

		// the number went to another instance meanwhile: the next coordination takes a new one
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands().hSet(keys.numbers(), bytes(String.valueOf(number(before))), bytes("usurper"));
		}
		dropHeartbeat(keys, "phoenix");
		ReservedJob renumbered = reserve(queue, "again", 1).get(0);
		assertThat(number(renumbered)).isNotEqualTo(number(before));
		assertThat(holders(queue, "again")).containsEntry(renumbered.id(), "phoenix");
		assertThat(List.of(before, kept, renumbered)).allMatch(queue::finish);
	}

	/** Removes an instance's heartbeat and waits until its timer has joined again. */
	private void dropHeartbeat(KeySpace keys, String instance) {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.zSetCommands().zRem(keys.instances(), bytes(instance));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> connection.zSetCommands().zScore(keys.instances(), bytes(instance)) != null);
		}
	}

	private static long number(ReservedJob job) {
		return job.token() % 10_000;
	}

	/** The holder of each job on the topic's RESERVED pages (null: none named). */
	private static Map<String, String> holders(RedisDelayQueue queue, String topic) {
		List<JobInfo> all = new ArrayList<>();
		String cursor = null;
		do {
			WaitingJobPage page = queue.waitingJobs(topic, JobState.RESERVED, cursor, 3, false);
			all.addAll(page.jobs());
			cursor = page.next();
		}
		while (cursor != null);
		Map<String, String> holders = new HashMap<>();
		all.forEach((job) -> holders.put(job.id(), job.reservedBy()));
		return holders;
	}

	/** Reserves {@code count} jobs, waiting for them to be READY. */
	private static List<ReservedJob> reserve(RedisDelayQueue queue, String topic, int count) {
		List<ReservedJob> held = new ArrayList<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			held.addAll(queue.reserve(topic, count - held.size(), Duration.ofMinutes(5)));
			return held.size() == count;
		});
		return held;
	}

	private static List<ScheduleRequest> requests(String topic, int count) {
		return IntStream.range(0, count).mapToObj((i) -> request(topic, "j" + i, "{}", Duration.ZERO)).toList();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
