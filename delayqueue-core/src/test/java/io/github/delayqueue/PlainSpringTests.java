package io.github.delayqueue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A plain Spring application, without Spring Boot (not on this module's class path), schedules
 * and consumes with delayqueue-core alone.
 */
class PlainSpringTests {

	private static final String NAMESPACE = "plain-" + UUID.randomUUID();

	@Test
	void aPlainSpringApplicationSchedulesAndConsumes() {
		assertThat(ClassUtils.isPresent("org.springframework.boot.SpringApplication", null)).as("Spring Boot absent")
			.isFalse();
		RedisTestServer redis = RedisTestServers.shared();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Application.class)) {
			DelayedJobOperations jobs = context.getBean(DelayedJobOperations.class);
			jobs.schedule("order-close", "order-1", "close order 1", Duration.ofMillis(300));
			assertThat(jobs.find("order-close", "order-1")).hasValueSatisfying(
					(job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));

			OrderCloser closer = context.getBean(OrderCloser.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> !closer.closed.isEmpty());
			assertThat(closer.closed).containsExactly("close order 1");
			await().atMost(Duration.ofSeconds(5)).until(() -> jobs.find("order-close", "order-1").isEmpty());
		}
		QueueInvariant.assertHolds(redis, NAMESPACE);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayedListeners
	static class Application {

		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			RedisTestServer redis = RedisTestServers.shared();
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.host(), redis.port());
			configuration.setPassword(redis.password());
			return new LettuceConnectionFactory(configuration);
		}

		@Bean
		RedisDelayQueue delayQueue(LettuceConnectionFactory redis) {
			return RedisDelayQueue.builder(redis).namespace(NAMESPACE).build();
		}

		@Bean
		JobPayloadConverter jobPayloadConverter() {
			return new JacksonJobPayloadConverter(JsonMapper.builder().build());
		}

		@Bean
		DelayedJobTemplate delayedJobTemplate(DelayQueueOperations queue, JobPayloadConverter converter) {
			return new DelayedJobTemplate(queue, converter);
		}

		@Bean
		DefaultDelayedListenerContainerFactory delayedListenerContainerFactory(DelayQueueOperations queue,
				JobPayloadConverter converter) {
			return new DefaultDelayedListenerContainerFactory(queue, converter);
		}

		@Bean
		OrderCloser orderCloser() {
			return new OrderCloser();
		}

	}

	static class OrderCloser {

		final List<String> closed = new CopyOnWriteArrayList<>();

		@DelayedListener(topic = "order-close")
		void close(String payload) {
			this.closed.add(payload);
		}

	}

}
