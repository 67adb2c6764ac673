package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A write of this instance wakes its own consumers from the script's reply, before the call
 * returns, whether or not the event subscription listens; the channel is for the other
 * instances. The READY jobs of a timer step are announced on the channel only when this
 * instance's idle consumers cannot take them all ({@link RedisTimerBackend}).
 */
class RedisDelayQueueWakeUpTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void aJobMadeReadyHereIsAwaitedAndReservedHereAsSoonAsTheScheduleReturns() throws InterruptedException {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.timerEnabled(false));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		// the topic is known and every bucket was found empty
		assertThat(queue.reserve("wake", 10, null)).isEmpty();
		scheduleWakesAndReserves(queue);
	}

	@Test
	void aJobMadeReadyHereWakesTheConsumersHereWhileTheSubscriptionIsDown() throws InterruptedException {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.timerEnabled(false));
		assertThat(queue.reserve("wake", 10, null)).isEmpty();
		TimerSteps.halt(queue);
		assertThat(queue.isSubscribed()).isFalse();
		scheduleWakesAndReserves(queue);
	}

	/**
	 * A queue whose timer runs the one bucket and another instance without a timer, both
	 * subscribed, with the guard an hour away, and both knowing topic "step" to be empty.
	 */
	private Instances timerHereAndAnotherInstance() {
		RedisDelayQueue here = this.queues.start((builder) -> builder.buckets(1).guardInterval(Duration.ofHours(1)));
		RedisDelayQueue other = this.queues
			.start((builder) -> builder.buckets(1).timerEnabled(false).guardInterval(Duration.ofHours(1)));
		await().atMost(Duration.ofSeconds(5)).until(() -> here.isSubscribed() && other.isSubscribed());
		assertThat(here.reserve("step", 10, null)).isEmpty();
		assertThat(other.reserve("step", 10, null)).isEmpty();
		return new Instances(here, other);
	}

	private record Instances(RedisDelayQueue here, RedisDelayQueue other) {
	}

	@Test
	void aTimerStepsJobThatAnIdleConsumerHereTakesWakesNoOtherConsumer() throws InterruptedException {
		Instances instances = timerHereAndAnotherInstance();
		RedisDelayQueue queue = instances.here();
		RedisDelayQueue other = instances.other();
		for (String id : List.of("1", "2", "3")) {
			queue.schedule(request("step", id, "x", Duration.ofMillis(100)));
			// this thread is the idle consumer when the step runs
			assertThat(queue.awaitWork("step", Duration.ofSeconds(5))).isTrue();
			List<ReservedJob> jobs = queue.reserve("step", 10, null);
			assertThat(jobs).extracting(ReservedJob::id).containsExactly(id);
			// nothing was published: no echo wakes a second take here, no other instance wakes
			assertThat(queue.awaitWork("step", Duration.ofMillis(200))).isFalse();
			assertThat(other.awaitWork("step", Duration.ofMillis(200))).isFalse();
			assertThat(queue.finish(jobs.get(0))).isTrue();
		}
	}

	@Test
	void aTimerStepsJobThatNoConsumerHereWaitsForWakesTheOtherInstances() throws InterruptedException {
		Instances instances = timerHereAndAnotherInstance();
		RedisDelayQueue queue = instances.here();
		RedisDelayQueue other = instances.other();
		queue.schedule(request("step", "1", "x", Duration.ofMillis(100)));
		assertThat(other.awaitWork("step", Duration.ofSeconds(5))).isTrue();
		assertThat(other.reserve("step", 10, null)).extracting(ReservedJob::id).containsExactly("1");
	}

	@Test
	void aJobLeftToAConsumerHereThatDoesNotTakeItIsHandedOverToTheOtherInstances() throws Exception {
		Instances instances = timerHereAndAnotherInstance();
		RedisDelayQueue queue = instances.here();
		RedisDelayQueue other = instances.other();
		// a consumer here waits when the step runs, and then does not reserve (paused, stopped)
		CompletableFuture<Boolean> wokenHere = CompletableFuture.supplyAsync(() -> {
			try {
				return queue.awaitWork("step", Duration.ofSeconds(5));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.offers.idleConsumers("step") == 1);
		long scheduled = System.nanoTime();
		queue.schedule(request("step", "1", "x", Duration.ofMillis(100)));
		assertThat(other.awaitWork("step", Duration.ofSeconds(5))).isTrue();
		long wokenThere = System.nanoTime();
		assertThat(wokenHere.get(5, TimeUnit.SECONDS)).isTrue();
		// told once the handover passed after the job came due, not by the step itself (nor
		// by the guard, an hour away)
		assertThat(Duration.ofNanos(wokenThere - scheduled))
			.isGreaterThanOrEqualTo(Duration.ofMillis(100).plus(RedisTimerBackend.HANDOVER).minusMillis(5));
		assertThat(other.reserve("step", 10, null)).extracting(ReservedJob::id).containsExactly("1");
	}

	/**
	 * A queue without a timer that knows topic "orphan" to be empty, and a timer step run by
	 * hand, as by an instance that is gone, which made job 1 (due in 50 ms) READY and left
	 * announcing it to its own consumers.
	 */
	private QueueScripts jobOneLeftToAnInstanceThatIsGone(RedisDelayQueue queue) throws InterruptedException {
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		assertThat(queue.reserve("orphan", 10, null)).isEmpty();
		QueueScripts scripts = new QueueScripts(new ScriptRunner(this.queues.connectionFactory()),
				new KeySpace(this.queues.namespace, 1), "test");
		queue.schedule(request("orphan", "1", "x", Duration.ofMillis(50)));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> scripts.promote(0, 100, false, true, List.of()).unannounced(), (left) -> left.containsKey("orphan"));
		assertThat(queue.awaitWork("orphan", Duration.ZERO)).isFalse();
		return scripts;
	}

	@Test
	void aGuardReCheckReAnnouncesATopicWhoseListHadReadyJobsAlsoWhenItPushesMoreToIt() throws InterruptedException {
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.buckets(1).timerEnabled(false).guardInterval(Duration.ofHours(1)));
		queue.schedule(request("orphan", "2", "x", Duration.ofMillis(400)));
		QueueScripts scripts = jobOneLeftToAnInstanceThatIsGone(queue);
		// the next owner's first step, a guard re-check, pushes job 2 onto the list that holds job 1
		long due = queue.find("orphan", "2").orElseThrow().dueAt().toEpochMilli();
		await().atMost(Duration.ofSeconds(5)).until(() -> redisMillis(queue) > due);
		assertThat(scripts.promote(0, 100, true, true, List.of()).promotion().moved()).isOne();
		assertThat(queue.awaitWork("orphan", Duration.ofSeconds(5))).isTrue();
		assertThat(queue.reserve("orphan", 10, null)).extracting(ReservedJob::id).containsExactly("1", "2");
	}

	@Test
	void aGuardReCheckReAnnouncesATopicWhoseListHoldsOnlyTombstones() throws InterruptedException {
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.buckets(1).timerEnabled(false).guardInterval(Duration.ofHours(1)));
		QueueScripts scripts = jobOneLeftToAnInstanceThatIsGone(queue);
		// cancelled: the list holds a tombstone, and a job pushed onto it later is not announced
		// as a list that got its first entry
		assertThat(queue.cancel("orphan", "1")).isTrue();
		assertThat(queue.awaitWork("orphan", Duration.ZERO)).isFalse();
		scripts.promote(0, 100, true, true, List.of());
		assertThat(queue.awaitWork("orphan", Duration.ofSeconds(5))).isTrue();
		// the take clears the tombstone away
		assertThat(queue.reserve("orphan", 10, null)).isEmpty();
	}

	private static long redisMillis(RedisDelayQueue queue) {
		try (var connection = queue.getConnectionFactory().getConnection()) {
			return connection.serverCommands().time();
		}
	}

	@Test
	void aTimerStepWakesTheConsumersHereWhileTheSubscriptionIsDown() throws InterruptedException {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).guardInterval(Duration.ofHours(1)));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		assertThat(queue.reserve("step", 10, null)).isEmpty();
		queue.subscriber.stop();
		assertThat(queue.isSubscribed()).isFalse();
		queue.schedule(request("step", "1", "x", Duration.ofMillis(100)));
		assertThat(queue.awaitWork("step", Duration.ofSeconds(5))).isTrue();
		assertThat(queue.reserve("step", 10, null)).extracting(ReservedJob::id).containsExactly("1");
	}

	/**
	 * With no READY job known, a schedule of a job due now makes {@code awaitWork} return at
	 * once and the job reservable, as soon as the schedule returns.
	 */
	private static void scheduleWakesAndReserves(RedisDelayQueue queue) throws InterruptedException {
		assertThat(queue.awaitWork("wake", Duration.ZERO)).isFalse();
		queue.schedule(request("wake", "1", "x", Duration.ZERO));
		assertThat(queue.awaitWork("wake", Duration.ZERO)).isTrue();
		List<ReservedJob> jobs = queue.reserve("wake", 10, null);
		assertThat(jobs).extracting(ReservedJob::id).containsExactly("1");
		assertThat(queue.finish(jobs.get(0))).isTrue();
	}

}
