package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.ReactiveDelayedJobTemplate;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(RedisTestExtension.class)
class DelayQueueReactiveAutoConfigurationTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayQueueReactiveAutoConfiguration.class))
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=reactive" + System.nanoTime());
	}

	@Test
	void withReactorTheReactiveTemplateWrapsTheTemplate() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(ReactiveDelayedJobTemplate.class);
			ReactiveDelayedJobTemplate reactive = context.getBean(ReactiveDelayedJobTemplate.class);
			assertThat(reactive.cancel("orders", "none").block()).isFalse();
			assertThat(context.getBean(DelayedJobOperations.class).find("orders", "none")).isEmpty();
		});
	}

	@Test
	void withoutReactorThereIsNone() {
		this.runner.withClassLoader(new FilteredClassLoader(Mono.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ReactiveDelayedJobTemplate.class));
	}

}
