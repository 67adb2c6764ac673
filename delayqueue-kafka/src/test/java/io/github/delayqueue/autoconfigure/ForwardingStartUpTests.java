package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.kafka.DelayQueueKafkaAutoConfiguration;
import io.github.delayqueue.rabbit.DelayQueueRabbitAutoConfiguration;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** What start-up refuses and binds with the broker modules present, lazy initialization too. */
class ForwardingStartUpTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void runner() {
		RedisTestServer redis = RedisTestServers.shared();
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					KafkaAutoConfiguration.class, RabbitAutoConfiguration.class, DelayQueueAutoConfiguration.class,
					DelayedListenerAutoConfiguration.class, DelayQueueForwardingAutoConfiguration.class,
					DelayQueueKafkaAutoConfiguration.class, DelayQueueRabbitAutoConfiguration.class))
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=startup" + System.nanoTime(),
					"delayqueue.listener.auto-startup=false");
	}

	private ApplicationContextRunner lazy() {
		// what spring.main.lazy-initialization=true does in a SpringApplication
		return this.runner.withInitializer(
				(context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()));
	}

	@Test
	void underLazyInitializationTheForwardRulesRefuse() {
		lazy().withPropertyValues("delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.concurrency=0")
			.run((context) -> assertThat(context).hasFailed());
	}

	@Test
	void underLazyInitializationASendTimeoutNotShorterThanTheShutdownTimeoutIsRefused() {
		// eager: refused (the existing test)
		this.runner.withPropertyValues("delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.send-timeout=20s")
			.run((context) -> assertThat(context).hasFailed());
		// lazy: was refused when the rule was part of DelayQueueProperties' validation
		lazy().withPropertyValues("delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.send-timeout=20s")
			.run((context) -> assertThat(context).as("send-timeout 20s = shutdown-timeout 20s under lazy init")
				.hasFailed());
	}

	@Test
	void theDefaultsBind() {
		this.runner.withPropertyValues("spring.rabbitmq.publisher-confirm-type=correlated",
				"spring.rabbitmq.publisher-returns=true", "delayqueue.forward.x.rabbit.exchange=ex",
				"delayqueue.forward.y.kafka.topic=t")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayQueueForwardProperties properties = context.getBean(DelayQueueForwardProperties.class);
				DelayQueueForwardProperties.Forward x = properties.forward().get("x");
				assertThat(x.concurrency()).isEqualTo(4);
				assertThat(x.sendTimeout()).isEqualTo(java.time.Duration.ofSeconds(10));
				assertThat(x.rabbit().routingKey()).isEmpty();
				assertThat(x.kafka()).isNull();
				assertThat(properties.forward().get("y").kafka().topic()).isEqualTo("t");
			});
	}

	@Test
	void aNativeImageCanLookForForwardingItself() {
		RuntimeHints hints = new RuntimeHints();
		new ForwardingModules.ForwardingModulesRuntimeHints().registerHints(hints, getClass().getClassLoader());
		// ForwardingModules asks ClassUtils.isPresent("...forward.ForwardingEndpoint")
		assertThat(RuntimeHintsPredicates.reflection().onType(ForwardingEndpoint.class)).accepts(hints);
	}

	@Test
	void aMisspeltNameInsideAForwardIsCorrected() {
		this.runner.withPropertyValues("delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.kafka.key-feild=a")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("did you mean delayqueue.forward.x.kafka.key-field?");
			});
	}

}
