package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.support.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JobBuilder#scheduleAsync()}: one job per call, written in
 * batches, with the same results and errors as the blocking call.
 */
class DelayedJobTemplateAsyncTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private final List<DelayedJobTemplate> templates = new ArrayList<>();

	@AfterEach
	void closeTemplates() {
		this.templates.forEach(DelayedJobTemplate::close);
	}

	private DelayedJobTemplate template(RedisDelayQueue queue) {
		DelayedJobTemplate template = new DelayedJobTemplate(queue,
				new JacksonJobPayloadConverter(JsonMapper.builder().build()));
		this.templates.add(template);
		return template;
	}

	@Test
	void oneThreadSchedulingAJobPerCallIsWrittenInBatchesWithNothingLost() {
		RedisDelayQueue queue = this.queues.start();
		DelayedJobTemplate template = template(queue);
		long scriptCallsBefore = scriptCalls();
		List<CompletableFuture<ScheduleResult>> futures = new ArrayList<>();
		for (int i = 0; i < 5_000; i++) {
			futures.add(template.job("async", "job-" + i).payload(Map.of("n", i)).delay(Duration.ofMinutes(5))
				.scheduleAsync());
		}
		// the same ids again: kept, as the blocking call would keep them
		for (int i = 0; i < 100; i++) {
			futures.add(template.job("async", "job-" + i).payload("again").delay(Duration.ZERO).scheduleAsync());
		}
		List<ScheduleResult> results = futures.stream().map(CompletableFuture::join).toList();
		assertThat(results.subList(0, 5_000)).allSatisfy((result) -> {
			assertThat(result.created()).isTrue();
			assertThat(result.state()).isEqualTo(JobState.DELAYED);
		});
		assertThat(results.subList(5_000, 5_100)).allSatisfy((result) -> {
			assertThat(result.created()).isFalse();
			assertThat(result.state()).isEqualTo(JobState.DELAYED);
		});
		assertThat(queue.stats().topics().get("async").delayed()).isEqualTo(5_000);
		assertThat(queue.find("async", "job-7").orElseThrow().payloadAsString()).isEqualTo("{\"n\":7}");
		long scriptCalls = scriptCalls() - scriptCallsBefore;
		assertThat(scriptCalls).as("script calls for 5,100 jobs").isLessThan(1_000);
	}

	@Test
	void aBrokenJobIsRefusedAtTheCallAndNothingIsQueued() {
		RedisDelayQueue queue = this.queues.create((builder) -> builder);
		DelayedJobTemplate template = template(queue);
		Map<String, String> before = this.queues.bucketSnapshot();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> template.job("a:b", "1").payload("x").delay(Duration.ZERO).scheduleAsync())
			.withMessageContaining("topic");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> template.job("t", " ").payload("x").delay(Duration.ZERO).scheduleAsync())
			.withMessageContaining("id");
		assertThatIllegalArgumentException().isThrownBy(() -> template.job("t", "1").payload("x").scheduleAsync())
			.withMessageContaining("delay or dueAt");
		template.close();
		assertThat(this.queues.bucketSnapshot()).as("Redis after refused calls").isEqualTo(before);
		// a rule only the queue knows fails that job's future alone
		queue = this.queues.create((builder) -> builder.maxPayloadSize(DataSize.ofBytes(100)));
		DelayedJobTemplate limited = template(queue);
		CompletableFuture<ScheduleResult> small = limited.job("t", "small").payload("x").delay(Duration.ofMinutes(1))
			.scheduleAsync();
		CompletableFuture<ScheduleResult> big = limited.job("t", "big").payload("x".repeat(101))
			.delay(Duration.ofMinutes(1))
			.scheduleAsync();
		CompletableFuture<ScheduleResult> other = limited.job("t", "other").payload("y").delay(Duration.ofMinutes(1))
			.scheduleAsync();
		assertThat(small.join().created()).isTrue();
		assertThat(other.join().created()).isTrue();
		assertThatThrownBy(big::join).isInstanceOf(CompletionException.class)
			.cause()
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("payload");
		assertThat(queue.find("t", "big")).isEmpty();
		assertThat(queue.stats().topics().get("t").delayed()).isEqualTo(2);
	}

	@Test
	void anUnreachableRedisFailsTheFuture() {
		LettuceConnectionFactory factory = TestConnections.unreachable();
		try {
			// a count of its own: without one, building fails fast on an unreachable Redis
			DelayedJobTemplate template = template(RedisDelayQueue.builder(factory).buckets(16).build());
			CompletableFuture<ScheduleResult> result = template.job("t", "1").payload("x").delay(Duration.ZERO)
				.scheduleAsync();
			assertThatThrownBy(result::join).cause().isInstanceOf(DelayQueueConnectionException.class);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void closeWritesWhatWasSubmittedThenRefusesMore() {
		RedisDelayQueue queue = this.queues.start();
		DelayedJobTemplate template = template(queue);
		List<CompletableFuture<ScheduleResult>> futures = new ArrayList<>();
		for (int i = 0; i < 3_000; i++) {
			futures.add(template.job("closing", "job-" + i).payload("x").delay(Duration.ofMinutes(5)).scheduleAsync());
		}
		template.close();
		assertThat(futures).allSatisfy((future) -> assertThat(future).isCompleted());
		assertThat(futures).allSatisfy((future) -> assertThat(future.join().created()).isTrue());
		assertThat(queue.stats().topics().get("closing").delayed()).isEqualTo(3_000);
		assertThatIllegalStateException()
			.isThrownBy(() -> template.job("closing", "late").payload("x").delay(Duration.ZERO).scheduleAsync())
			.withMessageContaining("closed");
		assertThat(template.schedule("closing", "blocking", "x", Duration.ZERO)).isTrue();
	}

	private long scriptCalls() {
		return RedisStats.commandStat(this.queues.connectionFactory(), "evalsha", "calls");
	}

}
