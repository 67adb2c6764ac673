package io.github.delayqueue.sample;

import java.time.Duration;

import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest
class SampleApplicationTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisTestServer redis = RedisTestServers.shared();
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("delayqueue.namespace", () -> "sample-test");
	}

	@Autowired
	private ReminderListener listener;

	@Test
	void theThreeRemindersScheduledAtStartUpAreDelivered() {
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(this.listener.handled()).isEqualTo(3));
	}

}
