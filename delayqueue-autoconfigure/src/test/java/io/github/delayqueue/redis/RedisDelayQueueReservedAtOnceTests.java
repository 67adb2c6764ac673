package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A timer step that makes jobs due while a consumer of the same instance waits with an offer
 * ({@code awaitWork} with the arguments of its next reserve) reserves them for it at once:
 * no ready-list push and no take. Each test ends with the invariant check of
 * {@link RedisQueues}.
 */
class RedisDelayQueueReservedAtOnceTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	/** One bucket, a timer; only this test's calls and its timer run commands on the namespace. */
	private RedisDelayQueue start() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1));
		queue.limitRate("limited", new RateLimit(1000, Duration.ofSeconds(1)));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		return queue;
	}

	/** Waits on another thread with an offer, then reserves with the same arguments. */
	private static CompletableFuture<List<ReservedJob>> waitAndReserve(RedisDelayQueue queue, String topic, int max,
			boolean collect) {
		return waitThen(queue, topic, max, () -> collect ? queue.reserve(topic, max, null, null) : List.of());
	}

	/** Waits on another thread with an offer of the job's own TTR and attempts, then runs next there. */
	private static CompletableFuture<List<ReservedJob>> waitThen(RedisDelayQueue queue, String topic, int max,
			java.util.function.Supplier<List<ReservedJob>> next) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				assertThat(queue.awaitWork(topic, Duration.ofSeconds(10), max, null, null)).isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			return next.get();
		});
	}

	private static ScheduleRequest requestAt(String topic, String id, java.time.Instant due) {
		return new ScheduleRequest(topic, id, "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8), null, due, null,
				null, OnDuplicate.KEEP, Map.of(), null);
	}

	private static void awaitWaiting(RedisDelayQueue queue, String topic) {
		// the waiting thread's offer is registered before the job falls due
		await().atMost(Duration.ofSeconds(5))
			.until(() -> queue.offers.idleOffers(10).stream().anyMatch((o) -> o.topic.equals(topic)));
	}

	@Test
	void aJobThatFallsDueWhileAConsumerWaitsReachesItWithoutAReadyListOrATake() throws Exception {
		RedisDelayQueue queue = start();
		CompletableFuture<List<ReservedJob>> reserved = waitAndReserve(queue, "direct", 4, true);
		awaitWaiting(queue, "direct");
		long rpush = RedisDelayQueueReservationTests.calls(queue, "rpush");
		long lrange = RedisDelayQueueReservationTests.calls(queue, "lrange");
		queue.schedule(RedisDelayQueueLifecycleTests.request("direct", "1", "{\"n\":1}", Duration.ofMillis(200)));
		List<ReservedJob> jobs = reserved.get(10, TimeUnit.SECONDS);
		assertThat(jobs).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("1");
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(new String(job.payload())).isEqualTo("{\"n\":1}");
			assertThat(job.reservedUntil()).isEqualTo(job.deliveredAt().plus(job.ttr()));
		});
		JobInfo info = queue.find("direct", "1").orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.RESERVED);
		assertThat(info.reservedUntil()).isEqualTo(jobs.get(0).reservedUntil());
		// the job never was in a ready list, and no take read one
		assertThat(RedisDelayQueueReservationTests.calls(queue, "rpush")).isEqualTo(rpush);
		assertThat(RedisDelayQueueReservationTests.calls(queue, "lrange")).isEqualTo(lrange);
		// the timer's step reserved it for this instance's consumer: this instance holds it
		assertThat(queue.waitingJobs("direct", JobState.RESERVED, null, 10, false).jobs()).singleElement()
			.extracting(JobInfo::reservedBy)
			.isEqualTo(queue.getInstanceId());
		// counted RESERVED, as a take counts it
		assertThat(queue.stats().topics().get("direct")).satisfies((counts) -> {
			assertThat(counts.reserved()).isOne();
			assertThat(counts.delayed()).isZero();
			assertThat(counts.ready()).isZero();
		});
		assertThat(queue.finish(jobs.get(0))).isTrue();
	}

	@Test
	void switchedOffADueJobGoesToTheReadyListAndTheWaitingConsumerTakesIt() throws Exception {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).reserveForWaitingConsumers(false));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		CompletableFuture<List<ReservedJob>> reserved = waitAndReserve(queue, "taken", 4, true);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.offers.idleConsumers("taken") == 1);
		// switched off, a waiting consumer makes no offer
		assertThat(queue.offers.idleOffers(10)).isEmpty();
		assertThat(queue.offers.byWaiter.size()).isZero();
		long rpush = RedisDelayQueueReservationTests.calls(queue, "rpush");
		queue.schedule(RedisDelayQueueLifecycleTests.request("taken", "1", "{\"n\":1}", Duration.ofMillis(200)));
		List<ReservedJob> jobs = reserved.get(10, TimeUnit.SECONDS);
		assertThat(jobs).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("1");
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(new String(job.payload())).isEqualTo("{\"n\":1}");
		});
		// pushed to the ready list by the step, then taken
		assertThat(RedisDelayQueueReservationTests.calls(queue, "rpush")).isEqualTo(rpush + 1);
		assertThat(queue.finish(jobs.get(0))).isTrue();
	}

	@Test
	void jobsReservedForAConsumerThatDoesNotCollectThemAreGivenBackWithTheAttemptNotCounted() throws Exception {
		RedisDelayQueue queue = start();
		CompletableFuture<List<ReservedJob>> waited = waitAndReserve(queue, "forgotten", 4, false);
		awaitWaiting(queue, "forgotten");
		long rpush = RedisDelayQueueReservationTests.calls(queue, "rpush");
		java.time.Instant due = java.time.Instant.now().plusMillis(300);
		queue.scheduleAll(List.of(requestAt("forgotten", "1", due), requestAt("forgotten", "2", due),
				requestAt("forgotten", "3", due)));
		waited.get(10, TimeUnit.SECONDS);
		// reserved for the waiting thread, which never reserves: READY again after the handover
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			for (String id : List.of("1", "2", "3")) {
				assertThat(queue.find("forgotten", id).orElseThrow().state()).isEqualTo(JobState.READY);
			}
		});
		assertThat(queue.find("forgotten", "1").orElseThrow().attempt()).isZero();
		// they were reserved by the step (never pushed to the ready list), then given back
		assertThat(RedisDelayQueueReservationTests.calls(queue, "rpush")).isEqualTo(rpush);
		// in their order, as if they had gone to the ready list at once
		List<ReservedJob> again = queue.reserve("forgotten", 4, null);
		assertThat(again).extracting(ReservedJob::id).containsExactly("1", "2", "3");
		assertThat(again).extracting(ReservedJob::attempt).containsOnly(1);
		assertThat(queue.finishAndReserve(again, 0, null).stale()).isEmpty();
	}

	@Test
	void jobsReservedForAConsumerWhoseThreadDiesWithAnErrorAreReadyAgainAfterTheHandBack() throws Exception {
		RedisDelayQueue queue = start();
		Thread consumer = new Thread(() -> {
			try {
				queue.awaitWork("dying", Duration.ofSeconds(10), 4, null, null);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			throw new StackOverflowError("the handler failed before its reserve");
		});
		consumer.setUncaughtExceptionHandler((thread, error) -> {
		});
		consumer.start();
		awaitWaiting(queue, "dying");
		long rpush = RedisDelayQueueReservationTests.calls(queue, "rpush");
		queue.schedule(RedisDelayQueueLifecycleTests.request("dying", "1", "{}", Duration.ofMillis(200)));
		consumer.join(10_000);
		assertThat(consumer.isAlive()).isFalse();
		// reserved for the thread, which died holding it: READY again after the hand-back, not lost
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(queue.find("dying", "1").orElseThrow().state()).isEqualTo(JobState.READY));
		assertThat(RedisDelayQueueReservationTests.calls(queue, "rpush")).isEqualTo(rpush);
		assertThat(queue.offers.idleOffers(10)).isEmpty();
		List<ReservedJob> jobs = queue.reserve("dying", 4, null);
		assertThat(jobs).singleElement().extracting(ReservedJob::attempt).isEqualTo(1);
		assertThat(queue.finish(jobs.get(0))).isTrue();
	}

	@Test
	void aReserveWithOtherArgumentsThanTheOfferDoesNotCollectTheJobs() throws Exception {
		RedisDelayQueue queue = start();
		// another TTR than offered: the reserved job is not this reserve's
		CompletableFuture<List<ReservedJob>> mismatched = waitThen(queue, "other", 4,
				() -> queue.reserve("other", 4, Duration.ofMinutes(3)));
		awaitWaiting(queue, "other");
		queue.schedule(RedisDelayQueueLifecycleTests.request("other", "1", "{}", Duration.ofMillis(200)));
		assertThat(mismatched.get(10, TimeUnit.SECONDS)).isEmpty();
		// given back, then taken as usual, with the TTR asked for
		List<ReservedJob> taken = await().atMost(Duration.ofSeconds(5))
			.until(() -> queue.reserve("other", 4, Duration.ofMinutes(3)), (jobs) -> !jobs.isEmpty());
		assertThat(taken).singleElement().satisfies((job) -> {
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(job.ttr()).isEqualTo(Duration.ofMinutes(3));
		});
		assertThat(queue.finish(taken.get(0))).isTrue();
	}

	@Test
	void moreDueJobsThanTheConsumerTakesGoToTheReadyListAsBefore() throws Exception {
		RedisDelayQueue queue = start();
		CompletableFuture<List<ReservedJob>> reserved = waitAndReserve(queue, "crowd", 1, false);
		awaitWaiting(queue, "crowd");
		java.time.Instant due = java.time.Instant.now().plusMillis(300);
		queue.scheduleAll(List.of(requestAt("crowd", "1", due), requestAt("crowd", "2", due)));
		reserved.get(10, TimeUnit.SECONDS);
		// both READY: neither was reserved at once
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(queue.find("crowd", "1").orElseThrow().state()).isEqualTo(JobState.READY);
			assertThat(queue.find("crowd", "2").orElseThrow().state()).isEqualTo(JobState.READY);
		});
		List<ReservedJob> jobs = queue.reserve("crowd", 2, null);
		assertThat(jobs).extracting(ReservedJob::attempt).containsExactly(1, 1);
		assertThat(queue.finishAndReserve(jobs, 0, null).stale()).isEmpty();
	}

	@Test
	void aTopicWithARateLimitIsNotReservedAtOnce() throws Exception {
		RedisDelayQueue queue = start();
		CompletableFuture<List<ReservedJob>> waited = waitAndReserve(queue, "limited", 4, false);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.offers.idleConsumers("limited") == 1);
		// it waits, and no step gets an offer for it
		assertThat(queue.offers.idleOffers(10)).extracting((offering) -> offering.topic).doesNotContain("limited");
		queue.schedule(RedisDelayQueueLifecycleTests.request("limited", "1", "{}", Duration.ofMillis(200)));
		waited.get(10, TimeUnit.SECONDS);
		assertThat(queue.find("limited", "1").orElseThrow().state()).isEqualTo(JobState.READY);
		List<ReservedJob> jobs = queue.reserve("limited", 4, null);
		assertThat(jobs).singleElement().extracting(ReservedJob::attempt).isEqualTo(1);
		assertThat(queue.finish(jobs.get(0))).isTrue();
	}

	@Test
	void jobsReservedBeforeTheirTopicGotARateLimitAreGivenBackNotTaken() throws Exception {
		RedisDelayQueue queue = start();
		CompletableFuture<List<ReservedJob>> waited = waitThen(queue, "limited-later", 4, () -> {
			// the limit comes between the wait and the reserve that would collect the jobs
			queue.limitRate("limited-later", new RateLimit(1000, Duration.ofSeconds(1)));
			// the jobs wait for their hand-back, not for this thread (that its waits then no
			// longer return for them is ReadySignalsTests')
			return queue.reserve("limited-later", 4, null);
		});
		awaitWaiting(queue, "limited-later");
		queue.schedule(RedisDelayQueueLifecycleTests.request("limited-later", "1", "{}", Duration.ofMillis(200)));
		assertThat(waited.get(10, TimeUnit.SECONDS)).isEmpty();
		// given back: READY with the attempt not counted, then taken within the limit
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(queue.find("limited-later", "1").orElseThrow().state()).isEqualTo(JobState.READY));
		assertThat(queue.find("limited-later", "1").orElseThrow().attempt()).isZero();
		List<ReservedJob> jobs = queue.reserve("limited-later", 4, null);
		assertThat(jobs).singleElement().extracting(ReservedJob::attempt).isEqualTo(1);
		assertThat(queue.finish(jobs.get(0))).isTrue();
	}

}
