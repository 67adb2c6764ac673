package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import org.junit.jupiter.api.Test;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;

class RedisDelayQueueDuplicateTests extends AbstractRedisDelayQueueTests {

	@Test
	void duplicateIsKeptByDefault() {
		ScheduleResult first = this.queue.schedule(request("dup", "1", "first", Duration.ofMinutes(10)));
		ScheduleResult second = this.queue.schedule(request("dup", "1", "second", Duration.ofMinutes(20)));
		assertThat(first.created()).isTrue();
		assertThat(second.created()).isFalse();
		assertThat(second.state()).isEqualTo(JobState.DELAYED);
		assertThat(second.dueAt()).isEqualTo(first.dueAt());
		JobInfo job = this.queue.find("dup", "1").orElseThrow();
		assertThat(job.payloadAsString()).isEqualTo("first");
		assertThat(job.dueAt()).isEqualTo(first.dueAt());
		assertThat(this.queue.stats().topics().get("dup").delayed()).isEqualTo(1);
	}

	@Test
	void duplicateIsReplacedWhenAsked() {
		ScheduleResult first = this.queue.schedule(request("dup", "2", "first", Duration.ofMinutes(10)));
		ScheduleResult replaced = this.queue.schedule(new ScheduleRequest("dup", "2", "second".getBytes(),
				Duration.ZERO, null, Duration.ofSeconds(9), 7, OnDuplicate.REPLACE, Map.of(), null));
		assertThat(replaced.created()).isTrue();
		assertThat(replaced.state()).isEqualTo(JobState.READY);
		assertThat(replaced.dueAt()).isBefore(first.dueAt());
		JobInfo job = this.queue.find("dup", "2").orElseThrow();
		assertThat(job.payloadAsString()).isEqualTo("second");
		assertThat(job.maxAttempts()).isEqualTo(7);
		assertThat(job.ttr()).isEqualTo(Duration.ofSeconds(9));
		assertThat(this.queue.stats().topics().get("dup")).satisfies((stats) -> {
			assertThat(stats.delayed()).isZero();
			assertThat(stats.ready()).isEqualTo(1);
		});
	}

	@Test
	void aBulkCallWithTheSameJobTwiceKeepsTheFirst() {
		List<ScheduleResult> results = this.queue.scheduleAll(List.of(request("dup", "3", "first", Duration.ofMinutes(10)),
				request("dup", "3", "second", Duration.ZERO), request("dup", "4", "other", Duration.ZERO)));
		assertThat(results).extracting(ScheduleResult::created).containsExactly(true, false, true);
		assertThat(results.get(1).state()).isEqualTo(JobState.DELAYED);
		assertThat(results.get(1).dueAt()).isEqualTo(results.get(0).dueAt());
		assertThat(this.queue.find("dup", "3").orElseThrow().payloadAsString()).isEqualTo("first");
		assertThat(this.queue.stats().topics().get("dup")).satisfies((stats) -> {
			assertThat(stats.delayed()).isEqualTo(1);
			assertThat(stats.ready()).isEqualTo(1);
		});
		assertThat(this.queue.reserve("dup", 10, null)).extracting(ReservedJob::id).containsExactly("4");
	}

	@Test
	void aBulkCallThatReplacesAJobItCreatedLeavesOnlyTheReplacement() {
		List<ScheduleResult> results = this.queue.scheduleAll(List.of(request("dup", "5", "first", Duration.ofMinutes(10)),
				replacing("dup", "5", "second", Duration.ZERO), request("other", "1", "x", Duration.ZERO),
				replacing("dup", "5", "third", Duration.ZERO), request("dup", "6", "later", Duration.ofMinutes(5))));
		assertThat(results).extracting(ScheduleResult::created).containsExactly(true, true, true, true, true);
		assertThat(results).extracting(ScheduleResult::state)
			.containsExactly(JobState.DELAYED, JobState.READY, JobState.READY, JobState.READY, JobState.DELAYED);
		assertThat(this.queue.find("dup", "5").orElseThrow().payloadAsString()).isEqualTo("third");
		assertThat(this.queue.stats().topics().get("dup")).satisfies((stats) -> {
			assertThat(stats.delayed()).isEqualTo(1);
			assertThat(stats.ready()).isEqualTo(1);
		});
		// listed twice in the ready list, handed out once
		List<ReservedJob> reserved = this.queue.reserve("dup", 10, null);
		assertThat(reserved).extracting(ReservedJob::id).containsExactly("5");
		assertThat(new String(reserved.get(0).payload(), StandardCharsets.UTF_8)).isEqualTo("third");
		assertThat(this.queue.reserve("other", 10, null)).extracting(ReservedJob::id).containsExactly("1");
		// the first version's delay-queue entry went with it: cancelling the later job empties the bucket's queue
		assertThat(this.queue.cancel("dup", "6")).isTrue();
		assertThat(this.queue.stats().topics().get("dup").delayed()).isZero();
		assertThat(this.queues.snapshot().keySet()).noneMatch((key) -> key.endsWith(":delayed"));
	}

	@Test
	void aBulkCallThatReplacesAnExistingJobMovesItsDueTime() {
		ScheduleResult first = this.queue.schedule(request("dup", "7", "first", Duration.ofMinutes(10)));
		List<ScheduleResult> results = this.queue.scheduleAll(
				List.of(request("dup", "8", "new", Duration.ofMinutes(1)), replacing("dup", "7", "second", Duration.ofMinutes(2)),
						request("dup", "7", "ignored", Duration.ZERO)));
		assertThat(results).extracting(ScheduleResult::created).containsExactly(true, true, false);
		assertThat(results.get(1).dueAt()).isBefore(first.dueAt());
		assertThat(results.get(2).dueAt()).isEqualTo(results.get(1).dueAt());
		JobInfo job = this.queue.find("dup", "7").orElseThrow();
		assertThat(job.payloadAsString()).isEqualTo("second");
		assertThat(job.dueAt()).isEqualTo(results.get(1).dueAt());
		assertThat(this.queue.stats().topics().get("dup").delayed()).isEqualTo(2);
	}

	private static ScheduleRequest replacing(String topic, String id, String payload, Duration delay) {
		return new ScheduleRequest(topic, id, payload.getBytes(StandardCharsets.UTF_8), delay, null, null, null,
				OnDuplicate.REPLACE, Map.of(), null);
	}

	@Test
	void eightThreadsSchedulingTheSameIdCreateExactlyOneJob() throws Exception {
		int threads = 8;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 20; round++) {
				String id = "race-" + round;
				CyclicBarrier barrier = new CyclicBarrier(threads);
				List<Future<ScheduleResult>> futures = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					String payload = "thread-" + t;
					Callable<ScheduleResult> call = () -> {
						barrier.await();
						return this.queue.schedule(request("race", id, payload, Duration.ofMinutes(5)));
					};
					futures.add(executor.submit(call));
				}
				int created = 0;
				for (Future<ScheduleResult> future : futures) {
					created += future.get().created() ? 1 : 0;
				}
				assertThat(created).as("round %d", round).isEqualTo(1);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(this.queue.stats().topics().get("race").delayed()).isEqualTo(20);
	}

}
