package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With only the starter and {@code spring.main.lazy-initialization}, start-up still refuses a
 * forward that cannot work, as it refuses the other settings' rules.
 */
@ExtendWith(RedisTestExtension.class)
class ForwardingModulesLazyInitializationTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class))
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=lazy" + System.nanoTime())
			.withInitializer((context) -> context
				.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()));
	}

	@Test
	void theOtherSettingsRulesRefuse() {
		this.runner.withPropertyValues("delayqueue.metrics.sample-interval=1ms")
			.run((context) -> assertThat(context).hasFailed());
	}

	@Test
	void aForwardThatNamesNoBrokerIsRefused() {
		this.runner.withPropertyValues("delayqueue.forward.x.concurrency=3")
			.run((context) -> assertThat(context).as("forward naming no broker, only the starter, lazy").hasFailed());
	}

	@Test
	void aForwardWithoutItsModuleIsRefused() {
		this.runner.withPropertyValues("delayqueue.forward.x.kafka.topic=orders")
			.run((context) -> assertThat(context).as("kafka forward, only the starter, lazy").hasFailed());
	}

}
