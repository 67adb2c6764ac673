package io.github.delayqueue.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.listener.JobOutcome;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The publishing side of {@link RedisJobOutcomeStream}: its one thread ends at stop after
 * publishing what waits, an outcome offered while stopped is dropped, and a restart publishes
 * again with one thread.
 */
@ExtendWith(OutputCaptureExtension.class)
class OutcomePublisherLifecycleTests {

	private static final String THREAD = "delayqueue-outcomes-publisher";

	private LettuceConnectionFactory factory;

	private RedisDelayQueue queue;

	private RedisJobOutcomeStream watcher;

	private final List<JobOutcome> heard = new CopyOnWriteArrayList<>();

	@BeforeEach
	void connect() {
		RedisTestServer server = RedisTestServers.shared();
		RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(server.host(), server.port());
		if (server.password() != null) {
			config.setPassword(server.password());
		}
		this.factory = new LettuceConnectionFactory(config);
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.queue = RedisDelayQueue.builder(this.factory).namespace("publisher-" + System.nanoTime()).buckets(1).build();
		this.queue.start();
		this.watcher = new RedisJobOutcomeStream(this.queue, false);
		this.watcher.start();
		this.watcher.subscribe(null, this.heard::add);
	}

	@AfterEach
	void close() {
		this.watcher.stop();
		this.queue.stop();
		this.factory.destroy();
	}

	private static JobOutcome outcome(String id) {
		return new JobOutcome("t", id, "success", 1, 3, "l", "i", null, Instant.ofEpochMilli(1_700_000_000_000L));
	}

	private static long threads() {
		return Thread.getAllStackTraces().keySet().stream().filter((t) -> t.getName().equals(THREAD) && t.isAlive()).count();
	}

	@Test
	void stopPublishesWhatWaitsEndsItsThreadAndARestartPublishesAgain(CapturedOutput output) {
		long before = threads();
		RedisJobOutcomeStream publisher = new RedisJobOutcomeStream(this.queue, true);
		publisher.start();
		for (int i = 0; i < 300; i++) {
			publisher.offer(outcome("a-" + i));
		}
		publisher.stop();
		assertThat(threads()).isEqualTo(before);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.heard).hasSize(300));
		assertThat(publisher.getDropped()).isZero();

		publisher.offer(outcome("while-stopped"));
		assertThat(publisher.getDropped()).isOne();
		assertThat(output).contains("the stream has stopped");

		publisher.start();
		assertThat(threads()).isEqualTo(before + 1);
		publisher.offer(outcome("b"));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.heard).extracting(JobOutcome::id).contains("b"));
		publisher.stop();
		assertThat(threads()).isEqualTo(before);
		assertThat(this.heard).extracting(JobOutcome::id).doesNotContain("while-stopped");
	}

	@Test
	void aPublishedBatchBorrowsOneConnection() {
		AtomicInteger borrowed = new AtomicInteger();
		RedisConnectionFactory counting = (RedisConnectionFactory) Proxy.newProxyInstance(
				getClass().getClassLoader(), new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection") && Thread.currentThread().getName().equals(THREAD)) {
						borrowed.incrementAndGet();
					}
					try {
						return method.invoke(this.factory, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		RedisDelayQueue queue = RedisDelayQueue.builder(counting).namespace(this.queue.getNamespace()).buckets(1).build();
		queue.start();
		RedisJobOutcomeStream publisher = new RedisJobOutcomeStream(queue, true);
		publisher.start();
		try {
			publisher.offer(outcome("first"));
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.heard).extracting(JobOutcome::id).contains("first"));
			borrowed.set(0);
			publisher.offer(outcome("second"));
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.heard).extracting(JobOutcome::id).contains("second"));
			assertThat(borrowed).hasValue(1);
		}
		finally {
			publisher.stop();
			queue.stop();
		}
	}

	@Test
	void theStreamStopsAndRestartsItsPublisher() {
		long before = threads();
		RedisJobOutcomeStream stream = new RedisJobOutcomeStream(this.queue, true);
		assertThat(stream.isPublishing()).isTrue();
		stream.start();
		assertThat(threads()).isEqualTo(before + 1);
		stream.stop();
		assertThat(threads()).isEqualTo(before);
		stream.start();
		stream.start();
		assertThat(threads()).isEqualTo(before + 1);
		stream.stop();
		stream.stop();
		assertThat(threads()).isEqualTo(before);
	}

}
