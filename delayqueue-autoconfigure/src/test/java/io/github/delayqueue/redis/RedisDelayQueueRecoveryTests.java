package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.DelayQueueConnectionException;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueRecoveryTests {

	private RedisTestServer redis;

	private RedisQueues queues;

	@BeforeEach
	void setUp() {
		this.redis = RedisTestServers.local().appendOnly().start();
		this.queues = new RedisQueues(this.redis);
		this.queues.commandTimeout = Duration.ofMillis(500);
	}

	@AfterEach
	void tearDown() {
		this.queues.close();
		this.redis.close();
	}

	@Test
	void redisRestartUnderARunningTimerLosesNoScheduledJob() throws Exception {
		RedisDelayQueue queue = this.queues.start();
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			// some due while Redis is down, some after it is back
			requests.add(request("restart", "job-" + i, "x", Duration.ofMillis(500 + i * 10)));
		}
		try (Consumer consumer = new Consumer(queue, "restart", 2, 20)) {
			queue.scheduleAll(requests);
			this.redis.stop();
			assertThatExceptionOfType(DelayQueueConnectionException.class)
				.isThrownBy(() -> queue.schedule(request("restart", "while-down", "x", Duration.ZERO)))
				.withMessageContaining("Redis unreachable during schedule")
				.withCauseInstanceOf(DataAccessException.class);
			// the timer loop fails, backs off and keeps going
			await().atMost(Duration.ofSeconds(10)).until(() -> queue.getTimer().lastError() != null);
			this.redis.start();
			await().atMost(Duration.ofSeconds(15)).until(() -> queue.getTimer().lastError() == null);
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(300));
			// scheduling and delivery resume without restarting the application
			queue.schedule(request("restart", "after", "x", Duration.ofMillis(200)));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.deliveries).containsKey("after"));
		}
		assertThat(queue.getTimer().lastError()).isNull();
	}

	@Test
	void scriptFlushDoesNotStopSchedulingOrDelivery() throws Exception {
		RedisDelayQueue queue = this.queues.start();
		try (Consumer consumer = new Consumer(queue, "flush", 1, 10)) {
			queue.schedule(request("flush", "before", "x", Duration.ofMillis(300)));
			await().atMost(Duration.ofSeconds(5)).until(() -> consumer.deliveries.containsKey("before"));
			try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
				connection.scriptingCommands().scriptFlush();
			}
			List<ScheduleRequest> requests = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				requests.add(request("flush", "bulk-" + i, "x", Duration.ofMillis(300)));
			}
			queue.schedule(request("flush", "after", "x", Duration.ofMillis(300)));
			try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
				connection.scriptingCommands().scriptFlush();
			}
			assertThat(queue.scheduleAll(requests)).allMatch((result) -> result.created());
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(52));
			assertThat(consumer.errors).isEmpty();
		}
	}

}
