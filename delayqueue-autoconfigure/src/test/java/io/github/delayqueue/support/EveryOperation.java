package io.github.delayqueue.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.redis.RedisDelayQueue;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every operation of the queue, each of its Lua scripts, once, through an application with
 * the starter: for the tests that change how Redis is reached (password, ACL, TLS, Cluster)
 * and must show that nothing breaks.
 */
public final class EveryOperation {

	/** The topic the listener consumes. */
	public static final String TOPIC = "every-op";

	private EveryOperation() {
	}

	/**
	 * An application with the queue, the listeners and {@link Listener}.
	 * @param namespace the namespace
	 * @param buckets the number of buckets
	 * @return the runner; add the {@code spring.data.redis.*} properties
	 */
	public static ApplicationContextRunner runner(String namespace, int buckets) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class))
			.withBean(Listener.class)
			.withPropertyValues("delayqueue.namespace=" + namespace, "delayqueue.buckets=" + buckets,
					"delayqueue.timer.lease-ttl=2s", "delayqueue.listener.back-off.initial-interval=100ms",
					"delayqueue.listener.back-off.jitter=0ms", "spring.data.redis.timeout=5s",
					"delayqueue.retention." + TOPIC + "-manual.completed=10",
					"delayqueue.retention." + TOPIC + "-manual.failed=1",
					"delayqueue.listener.rate-limit." + TOPIC + "-manual=1000/1s");
	}

	/**
	 * Consumes {@link #TOPIC}; a job whose payload has {@code "fail": true} fails its first
	 * attempt.
	 */
	public static class Listener {

		final BlockingQueue<DelayedJob<Map<String, Object>>> received = new LinkedBlockingQueue<>();

		@DelayedListener(topic = TOPIC, concurrency = "2")
		void handle(DelayedJob<Map<String, Object>> job) {
			if (Boolean.TRUE.equals(job.payload().get("fail")) && job.attempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			this.received.add(job);
		}

	}

	/**
	 * Schedules (one and many), consumes with a retry, cancels, reschedules, finds, touches,
	 * releases, kills, reads dead jobs and replays them, reads the figures, and waits for the
	 * timer to own every bucket.
	 * @param context the running application
	 * @throws InterruptedException when interrupted
	 */
	/**
	 * The first delivery whose id starts with a prefix, skipping others (10 s at most).
	 */
	private static DelayedJob<Map<String, Object>> awaitDelivery(Listener listener, String idPrefix)
			throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < end) {
			DelayedJob<Map<String, Object>> job = listener.received.poll(end - System.nanoTime(), TimeUnit.NANOSECONDS);
			if (job != null && job.id().startsWith(idPrefix)) {
				return job;
			}
		}
		return null;
	}

	public static void exercise(AssertableApplicationContext context) throws InterruptedException {
		assertThat(context).hasNotFailed();
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayQueueOperations operations = template.getOperations();
		Listener listener = context.getBean(Listener.class);

		template.schedule(TOPIC, "one", Map.of("n", 1), Duration.ofMillis(200));
		template.scheduleAll(List.of(template.job(TOPIC, "two").payload(Map.of("n", 2)).delay(Duration.ZERO),
				template.job(TOPIC, "flaky").payload(Map.of("fail", true)).delay(Duration.ZERO)));
		template.schedule(TOPIC, "cancelled", Map.of("n", 3), Duration.ofHours(1));
		assertThat(template.cancel(TOPIC, "cancelled")).isTrue();
		template.schedule(TOPIC, "moved", Map.of("n", 4), Duration.ofHours(1));
		assertThat(template.reschedule(TOPIC, "moved", Duration.ZERO)).isEqualTo(RescheduleResult.RESCHEDULED);

		Set<String> ids = new TreeSet<>();
		for (int i = 0; i < 4; i++) {
			DelayedJob<Map<String, Object>> job = listener.received.poll(10, TimeUnit.SECONDS);
			assertThat(job).as("delivery " + i).isNotNull();
			ids.add(job.id());
			if (job.id().equals("flaky")) {
				assertThat(job.attempt()).isEqualTo(2);
			}
		}
		assertThat(ids).containsExactly("flaky", "moved", "one", "two");
		assertThat(template.find(TOPIC, "cancelled")).isEmpty();

		// the consumer API on another topic: touch, release, kill, dead jobs and a replay
		String manual = TOPIC + "-manual";
		template.job(manual, "m").payload("x").delay(Duration.ZERO).maxAttempts(3).schedule();
		ReservedJob held = reserveOne(operations, manual);
		assertThat(operations.touch(held, Duration.ofMinutes(5))).isPresent();
		assertThat(operations.release(held)).isTrue();
		held = reserveOne(operations, manual);
		// the RESERVED page names the holder (its numbers live in the coordination slot)
		assertThat(operations.waitingJobs(manual, JobState.RESERVED, null, 10, false).jobs()).singleElement()
			.extracting(JobInfo::reservedBy)
			.isEqualTo(context.getBean(RedisDelayQueue.class).getInstanceId());
		assertThat(operations.kill(held, "boom")).isEqualTo(FailResult.DEAD);
		assertThat(template.find(manual, "m").get().state()).isEqualTo(JobState.DEAD);
		DeadJobPage page = operations.deadJobs(manual, null, 10, true);
		assertThat(page.jobs()).hasSize(1);
		assertThat(page.next()).isNull();
		assertThat(operations.repair(false).isClean()).as("repair, counting only").isTrue();
		assertThat(operations.replayDeadJobs(manual, 10).count()).isEqualTo(1);
		held = reserveOne(operations, manual);
		assertThat(operations.finish(held)).isTrue();
		// the topic keeps its finished jobs, and takes permits of its rate limit, in slots of its own
		assertThat(template.find(manual, "m").get().state()).isEqualTo(JobState.COMPLETED);
		assertThat(operations.completedJobs(manual, null, 10, true).total()).isEqualTo(1);
		assertThat(operations.stats().completed()).containsEntry(manual, 1L);
		template.job(manual, "d").payload("x").delay(Duration.ZERO).schedule();
		operations.kill(reserveOne(operations, manual), "boom again");
		assertThat(operations.replayDead(manual, "d")).isTrue();
		assertThat(operations.stats().topics().get(manual).ready()).isEqualTo(1);
		operations.finish(reserveOne(operations, manual));
		// the topic keeps the DEAD jobs of its last death only: the earlier one is deleted
		template.job(manual, "e").payload("x").delay(Duration.ZERO).schedule();
		assertThat(operations.kill(reserveOne(operations, manual), "boom e")).isEqualTo(FailResult.DEAD);
		template.job(manual, "f").payload("x").delay(Duration.ZERO).schedule();
		assertThat(operations.kill(reserveOne(operations, manual), "boom f")).isEqualTo(FailResult.DEAD);
		assertThat(template.find(manual, "e")).isEmpty();
		assertThat(template.find(manual, "f").get().state()).isEqualTo(JobState.DEAD);
		assertThat(template.cancel(manual, "f")).isTrue();

		// priorities: three jobs of one bucket, each of another priority; the lists of the other
		// priorities and their marker (written, rewritten and removed), a release in front of it
		RedisDelayQueue queue = context.getBean(RedisDelayQueue.class);
		List<String> sameBucket = OneBucket.ids(queue, manual, 3);
		template.job(manual, sameBucket.get(0)).payload("x").delay(Duration.ZERO).priority(8).schedule();
		template.job(manual, sameBucket.get(1)).payload("x").delay(Duration.ZERO).schedule();
		template.job(manual, sameBucket.get(2)).payload("x").delay(Duration.ZERO).priority(2).schedule();
		ReservedJob urgent = reserveOne(operations, manual);
		assertThat(urgent.id()).isEqualTo(sameBucket.get(0));
		ReservedJob plain = reserveOne(operations, manual);
		assertThat(plain.id()).isEqualTo(sameBucket.get(1));
		assertThat(operations.release(plain)).isTrue();
		assertThat(operations.finish(urgent)).isTrue();
		List<String> rest = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			ReservedJob job = reserveOne(operations, manual);
			rest.add(job.id());
			assertThat(operations.finish(job)).isTrue();
		}
		assertThat(rest).containsExactly(sameBucket.get(1), sameBucket.get(2));
		assertThat(template.find(manual, sameBucket.get(2)).get().priority()).isEqualTo(2);

		// recurring jobs: put, fired by the timer, paused, triggered, resumed, listed, deleted
		RecurringJobs recurring = context.getBean(RecurringJobs.class);
		recurring.put(RecurringJob.builder("every-op-beat")
			.topic(TOPIC)
			.every(Duration.ofSeconds(1))
			.payload("{\"n\":5}")
			.build());
		assertThat(awaitDelivery(listener, "every-op-beat@")).isNotNull();
		assertThat(recurring.pause("every-op-beat")).isTrue();
		String triggered = recurring.trigger("every-op-beat").orElseThrow();
		assertThat(awaitDelivery(listener, triggered)).isNotNull();
		assertThat(recurring.resume("every-op-beat")).isTrue();
		assertThat(recurring.list()).extracting(RecurringJobInfo::name).contains("every-op-beat");
		assertThat(recurring.delete("every-op-beat")).isTrue();

		// the timer coordinated and owns every bucket
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.getTimer().ownedBuckets() == queue.getBuckets());
		assertThat(queue.isSubscribed()).isTrue();
	}

	private static ReservedJob reserveOne(DelayQueueOperations operations, String topic) {
		return await().atMost(Duration.ofSeconds(5))
			.until(() -> operations.reserve(topic, 1, null), (jobs) -> !jobs.isEmpty())
			.get(0);
	}

}
