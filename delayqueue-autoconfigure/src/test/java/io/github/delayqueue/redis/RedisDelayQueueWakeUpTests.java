package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A write of this instance wakes its own consumers from the script's reply, before the call
 * returns, whether or not the event subscription listens; the channel is for the other
 * instances.
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
		queue.halt();
		assertThat(queue.isSubscribed()).isFalse();
		scheduleWakesAndReserves(queue);
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
