package io.github.delayqueue.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReactiveDelayedJobTemplate;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.support.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ReactiveDelayedJobTemplate}: the blocking template's results and errors as signals,
 * with no Redis call on a non-blocking (event loop) thread.
 */
class ReactiveDelayedJobTemplateTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private DelayedJobTemplate template;

	/** The template's methods called on a thread that must not block. */
	private final Set<String> calledOnNonBlockingThread = ConcurrentHashMap.newKeySet();

	@AfterEach
	void closeTemplate() {
		if (this.template != null) {
			this.template.close();
		}
	}

	private ReactiveDelayedJobTemplate reactive(RedisDelayQueue queue) {
		this.template = new DelayedJobTemplate(queue, new JacksonJobPayloadConverter(JsonMapper.builder().build()));
		DelayedJobOperations watched = (DelayedJobOperations) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayedJobOperations.class }, (proxy, method, arguments) -> {
					if (Schedulers.isInNonBlockingThread() && !method.getName().equals("job")) {
						this.calledOnNonBlockingThread.add(method.getName());
					}
					try {
						return method.invoke(this.template, arguments);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		return new ReactiveDelayedJobTemplate(watched);
	}

	/** Subscribes on a non-blocking thread, as a WebFlux handler does, and waits here. */
	private static <T> T onEventLoop(Mono<T> mono) {
		return mono.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30));
	}

	@Test
	void everyCallWorksFromANonBlockingThreadWithoutBlockingIt() {
		RedisDelayQueue queue = this.queues.start();
		ReactiveDelayedJobTemplate reactive = reactive(queue);
		byte[] payload = { 0, (byte) 0xff, 'x', 10 };
		assertThat(onEventLoop(reactive.schedule("orders", "1", payload, Duration.ofMinutes(5)))).isTrue();
		assertThat(onEventLoop(reactive.schedule("orders", "1", "again", Duration.ZERO))).isFalse();
		ScheduleResult result = onEventLoop(reactive.schedule(reactive.job("orders", "2").payload("two")
			.delay(Duration.ofMinutes(5)).header("tenant", "a")));
		assertThat(result.created()).isTrue();
		assertThat(result.state()).isEqualTo(JobState.DELAYED);
		assertThat(onEventLoop(reactive.find("orders", "1")).payload()).isEqualTo(payload);
		assertThat(onEventLoop(reactive.find("orders", "2")).headers()).containsEntry("tenant", "a");
		assertThat(onEventLoop(reactive.find("orders", "none"))).isNull();
		assertThat(onEventLoop(reactive.reschedule("orders", "2", Duration.ofMinutes(1))))
			.isEqualTo(RescheduleResult.RESCHEDULED);
		List<ScheduleResult> all = onEventLoop(reactive.scheduleAll(List.of(
				reactive.job("orders", "3").payload("3").delay(Duration.ofMinutes(5)),
				reactive.job("orders", "4").payload("4").delay(Duration.ofMinutes(5)))));
		assertThat(all).extracting(ScheduleResult::created).containsExactly(true, true);
		assertThat(onEventLoop(reactive.cancel("orders", "3"))).isTrue();
		assertThat(onEventLoop(reactive.cancel("orders", "3"))).isFalse();
		assertThat(queue.stats().topics().get("orders").delayed()).isEqualTo(3);
		assertThat(this.calledOnNonBlockingThread).isEmpty();
		this.queues.assertInvariant();
	}

	@Test
	void manyConcurrentSchedulesAreAllWritten() {
		RedisDelayQueue queue = this.queues.start();
		ReactiveDelayedJobTemplate reactive = reactive(queue);
		List<Boolean> created = Flux.range(0, 2_000)
			.flatMap((i) -> reactive.schedule("burst", "job-" + i, Map.of("n", i), Duration.ofMinutes(5)), 256)
			.collectList()
			.block(Duration.ofSeconds(60));
		assertThat(created).hasSize(2_000).containsOnly(true);
		assertThat(queue.stats().topics().get("burst").delayed()).isEqualTo(2_000);
		this.queues.assertInvariant();
	}

	@Test
	void badInputIsSignalledAsTheBlockingCallsErrorAndWritesNothing() {
		RedisDelayQueue queue = this.queues.start();
		ReactiveDelayedJobTemplate reactive = reactive(queue);
		Map<String, String> before = this.queues.bucketSnapshot();
		Mono<Boolean> badTopic = reactive.schedule("a:b", "1", "x", Duration.ZERO);
		assertThatIllegalArgumentException().isThrownBy(() -> onEventLoop(badTopic)).withMessageContaining("topic");
		Mono<Boolean> badId = reactive.cancel("orders", "");
		assertThatIllegalArgumentException().isThrownBy(() -> onEventLoop(badId)).withMessageContaining("id");
		assertThat(this.queues.bucketSnapshot()).isEqualTo(before);
		this.queues.assertInvariant();
	}

	@Test
	void anUnreachableRedisIsSignalledAsAConnectionError() {
		this.queues.skipInvariant("no Redis here");
		LettuceConnectionFactory factory = TestConnections.unreachable();
		try {
			// a count of its own: without one, building fails fast on an unreachable Redis
			ReactiveDelayedJobTemplate reactive = reactive(RedisDelayQueue.builder(factory).buckets(16).build());
			Mono<Boolean> schedule = reactive.schedule("t", "1", "x", Duration.ZERO);
			Mono<Boolean> cancel = reactive.cancel("t", "1");
			assertThatThrownBy(() -> onEventLoop(schedule)).isInstanceOf(DelayQueueConnectionException.class);
			assertThatThrownBy(() -> onEventLoop(cancel)).isInstanceOf(DelayQueueConnectionException.class);
			assertThat(this.calledOnNonBlockingThread).isEmpty();
		}
		finally {
			factory.destroy();
		}
	}

}
