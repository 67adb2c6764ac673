package io.github.delayqueue.autoconfigure;

import java.util.Map;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.config.DelayedListenerConfigurer;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.kafka.DelayQueueKafkaAutoConfiguration;
import io.github.delayqueue.kafka.DelayedKafka;
import io.github.delayqueue.kafka.KafkaForwarder;
import io.github.delayqueue.rabbit.DelayQueueRabbitAutoConfiguration;
import io.github.delayqueue.rabbit.RabbitForwarder;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The forwarding auto-configuration: a forwarder per configured topic registered as a
 * listener container, nothing without a forwarded topic, and every bad setting a start-up
 * failure that names the property and the fix. No broker is needed: nothing is sent.
 */
class DelayQueueForwardingAutoConfigurationTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void runner() {
		RedisTestServer redis = RedisTestServers.shared();
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					KafkaAutoConfiguration.class, RabbitAutoConfiguration.class, DelayQueueAutoConfiguration.class,
					DelayedListenerAutoConfiguration.class, DelayQueueForwardingAutoConfiguration.class,
					DelayQueueKafkaAutoConfiguration.class, DelayQueueRabbitAutoConfiguration.class,
					DelayQueueEndpointAutoConfiguration.class))
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=fwd" + System.nanoTime(), "delayqueue.listener.auto-startup=false",
					"spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true");
	}

	@Test
	void eachForwardedTopicGetsAContainerAndDelayedKafkaAcceptsOnlyKafkaTopics() {
		this.runner
			.withPropertyValues("management.endpoints.jmx.exposure.include=delayqueue",
					"spring.jmx.enabled=true", "delayqueue.forward.order-events.kafka.topic=orders",
					"delayqueue.forward.order-events.concurrency=3", "delayqueue.forward.refunds.rabbit.exchange=ex",
					"delayqueue.forward.refunds.rabbit.routing-key=refund.due")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
				assertThat(registry.getListenerContainer(ForwardingEndpoint.ID_PREFIX + "order-events")).isNotNull();
				assertThat(registry.getListenerContainer(ForwardingEndpoint.ID_PREFIX + "refunds")).isNotNull();
				// the endpoint shows a forwarder as a listener of its topic
				assertThat(context.getBean(DelayQueueEndpoint.class).queue().topics().get("order-events").listeners())
					.singleElement()
					.satisfies((listener) -> {
						assertThat(listener.id()).isEqualTo("delayqueue-forward-order-events");
						assertThat(listener.concurrency()).isEqualTo(3);
					});
				DelayedKafka kafka = context.getBean(DelayedKafka.class);
				assertThat(kafka.record("order-events", "1", "k", "v")).isNotNull();
				assertThat(catchThrowable(() -> kafka.record("refunds", "1", "k", "v")))
					.hasMessage("topic 'refunds' is not forwarded to Kafka: set delayqueue.forward.refunds.kafka.topic"
							+ " (forwarded to Kafka: order-events)");
			});
	}

	@Test
	void withoutForwardedTopicsNoContainerIsMadeAndNoLibraryIsNeeded() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DelayedListenerEndpointRegistry.class).getListenerContainers()).isEmpty();
		});
		this.runner.withClassLoader(new FilteredClassLoader(KafkaTemplate.class, RabbitTemplate.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(DelayedKafka.class);
			});
	}

	@Test
	void badPropertiesFailStartUpNamingThePropertyAndTheFix() {
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.rabbit.exchange=ex" },
				"Property: delayqueue.forward[x]",
				"forwards to Kafka or to RabbitMQ, not both: remove the kafka.* or the rabbit.* properties");
		failsWith(new String[] { "delayqueue.forward.x.concurrency=2" }, "Property: delayqueue.forward[x]",
				"set kafka.topic (forward to Kafka) or rabbit.exchange (forward to RabbitMQ)");
		failsWith(new String[] { "delayqueue.forward.x.rabbit.routing-key=refund.due" },
				"Property: delayqueue.forward[x].rabbit.exchange",
				"must name the exchange the messages are published to (empty for the default exchange)");
		failsWith(new String[] { "delayqueue.forward.x.kafka.partition=1" }, "Property: delayqueue.forward[x].kafka.topic",
				"must name the Kafka topic the records are sent to");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=a topic" },
				"Property: delayqueue.forward[x].kafka.topic", "must be 1 to 249 letters, digits, '.', '_' or '-'");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.kafka.key-field=a..b" },
				"Property: delayqueue.forward[x].kafka.key-field", "must be a field name of the JSON payload");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.kafka.partition=-1" },
				"Property: delayqueue.forward[x].kafka.partition", "must be 0 or more");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.send-timeout=10ms" },
				"Property: delayqueue.forward[x].send-timeout", "must be at least 100ms");
		// the rule spans the listeners' properties: checked when both are mapped, the property named alike
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.send-timeout=20s" },
				"configuration property 'delayqueue.forward[x].send-timeout'",
				"must be shorter than delayqueue.listener.shutdown-timeout (20000ms)");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=.." }, "Property: delayqueue.forward[x].kafka.topic",
				"not '.' or '..'");
		failsWith(new String[] { "delayqueue.forward.x.rabbit.exchange=" },
				"Property: delayqueue.forward[x].rabbit.routing-key",
				"must name the queue when the exchange is the default (empty) one");
		failsWith(new String[] { "delayqueue.forward.x.rabbit.exchange=" + "e".repeat(256) },
				"Property: delayqueue.forward[x].rabbit.exchange", "must be at most 255 bytes in UTF-8");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.listener.shutdown-timeout=0s" },
				"configuration property 'delayqueue.forward[x].send-timeout'",
				"must be shorter than delayqueue.listener.shutdown-timeout (0ms)");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.concurrency=0" },
				"Property: delayqueue.forward[x].concurrency", "must be between 1 and 10000");
		failsWith(new String[] { "delayqueue.forward[a b].kafka.topic=orders" }, "Property: delayqueue.forward[a b]",
				"topic");
		failsWith(new String[] { "delayqueue.forward.x.kafka.topic=orders", "delayqueue.forward.x.concurency=3" },
				"delayqueue.forward.x.concurency", "");
	}

	@Test
	void settingsThatCannotWorkWithTheBrokerTemplatesFailStartUpNamingTheFix() {
		FailureAnalysis unknown = failure(this.runner, "delayqueue.forward.x.kafka.topic=orders",
				"delayqueue.forward.x.kafka.template=ordersTemplate");
		assertThat(unknown.getDescription()).isEqualTo("Forwarding of topic 'x' to Kafka topic 'orders' names"
				+ " KafkaTemplate bean 'ordersTemplate' in delayqueue.forward.x.kafka.template, which does not exist.");
		assertThat(unknown.getAction()).isEqualTo("Set it to one of [kafkaTemplate].");

		FailureAnalysis acks = failure(this.runner, "delayqueue.forward.x.kafka.topic=orders",
				"spring.kafka.producer.acks=0");
		assertThat(acks.getDescription()).isEqualTo("Forwarding of topic 'x' to Kafka topic 'orders' cannot start:"
				+ " its producer has acks=0, so Kafka acknowledges nothing and a forwarded job could be lost.");
		assertThat(acks.getAction()).isEqualTo("Set spring.kafka.producer.acks to all (the default) or 1.");

		// Spring Boot's own template backs off when the application defines any
		FailureAnalysis maxBlock = failure(this.runner, "delayqueue.forward.x.kafka.topic=orders",
				"spring.kafka.producer.properties.max.block.ms=1m");
		assertThat(maxBlock.getDescription()).isEqualTo("Forwarding of topic 'x' to Kafka topic 'orders' cannot start:"
				+ " its producer's max.block.ms is '1m', not a number of milliseconds.");
		assertThat(maxBlock.getAction()).isEqualTo("Set spring.kafka.producer.properties.max.block.ms to one.");

		FailureAnalysis twoTemplates = failure(
				this.runner
					.withBean("ordersTemplate", KafkaTemplate.class,
							() -> new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of())))
					.withBean("eventsTemplate", KafkaTemplate.class,
							() -> new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of()))),
				"delayqueue.forward.x.kafka.topic=orders");
		assertThat(twoTemplates.getDescription()).isEqualTo("Forwarding of topic 'x' to Kafka topic 'orders' finds 2"
				+ " KafkaTemplate beans [eventsTemplate, ordersTemplate].");
		assertThat(twoTemplates.getAction())
			.isEqualTo("Set delayqueue.forward.x.kafka.template to the name of the one to use.");

		FailureAnalysis confirms = failure(this.runner.withPropertyValues("spring.rabbitmq.publisher-confirm-type=none"),
				"delayqueue.forward.x.rabbit.exchange=ex");
		assertThat(confirms.getDescription()).isEqualTo("Forwarding of topic 'x' to RabbitMQ exchange 'ex' cannot"
				+ " start: the connection factory has no correlated publisher confirms, so no send could be known to"
				+ " have arrived.");
		assertThat(confirms.getAction()).startsWith("Set spring.rabbitmq.publisher-confirm-type=correlated");

		FailureAnalysis returns = failure(this.runner.withPropertyValues("spring.rabbitmq.publisher-returns=false"),
				"delayqueue.forward.x.rabbit.exchange=ex");
		assertThat(returns.getDescription()).contains("has no publisher returns");
		assertThat(returns.getAction()).startsWith("Set spring.rabbitmq.publisher-returns=true");

		FailureAnalysis noKafka = failure(this.runner.withClassLoader(new FilteredClassLoader(KafkaForwarder.class)),
				"delayqueue.forward.x.kafka.topic=orders");
		assertThat(noKafka.getDescription()).isEqualTo(
				"Forwarding of topic 'x' to Kafka needs the module delayqueue-kafka, which is not on the class path.");
		assertThat(noKafka.getAction()).isEqualTo("Add io.github.delayqueue:delayqueue-kafka.");

		FailureAnalysis noRabbit = failure(this.runner.withClassLoader(new FilteredClassLoader(RabbitForwarder.class)),
				"delayqueue.forward.x.rabbit.exchange=ex");
		assertThat(noRabbit.getDescription())
			.contains("needs the module delayqueue-rabbit, which is not on the class path");
	}

	@Test
	void aForwardedTopicWithAListenerOfItsOwnFailsStartUp() {
		FailureAnalysis shared = failure(this.runner.withBean(DelayedListenerConfigurer.class,
				() -> (registrar) -> registrar.registerEndpoint(new SimpleDelayedListenerEndpoint<>("mine", "order-events",
						String.class, (job) -> {
						}))),
				"delayqueue.forward.order-events.kafka.topic=orders");
		assertThat(shared.getDescription()).contains("shares topic 'order-events' with")
			.contains("Forwarding of topic 'order-events' to Kafka topic 'orders'")
			.contains("must be the topic's only listener");
		assertThat(shared.getAction()).isEqualTo("Give one of them another topic.");
		// also when the registrar wraps every endpoint (a validator, argument resolvers)
		FailureAnalysis wrapped = failure(this.runner.withBean(DelayedListenerConfigurer.class, () -> (registrar) -> {
			registrar.setValidator(new Validator() {

				@Override
				public boolean supports(Class<?> type) {
					return false;
				}

				@Override
				public void validate(Object target, Errors errors) {
				}

			});
			registrar.registerEndpoint(new SimpleDelayedListenerEndpoint<>("mine", "order-events", String.class, (job) -> {
			}));
		}), "delayqueue.forward.order-events.kafka.topic=orders");
		assertThat(wrapped.getDescription()).contains("must be the topic's only listener");
	}

	@Test
	void theForwardingContainerFactoryIsNotTheOneInjectedByType() {
		this.runner.withPropertyValues("delayqueue.forward.order-events.kafka.topic=orders").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DelayedListenerContainerFactory.class))
				.isSameAs(context.getBean(DelayedListenerEndpointRegistrar.DEFAULT_CONTAINER_FACTORY_BEAN_NAME));
			assertThat(context.getBean(ForwardingEndpoint.CONTAINER_FACTORY_BEAN_NAME)).isNotNull();
		});
	}

	@Test
	void theBrokerModulesCanBeLookedFor() {
		RuntimeHints hints = new RuntimeHints();
		new UnknownPropertiesBindHandlerAdvisor.ForwardingModulesRuntimeHints().registerHints(hints,
				getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection().onType(KafkaForwarder.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(RabbitForwarder.class)).accepts(hints);
	}

	private void failsWith(String[] properties, String property, String rule) {
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription()).contains(property)
				.contains(rule);
		});
	}

	private static FailureAnalysis failure(ApplicationContextRunner runner, String... properties) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			analysis[0] = FailureAnalyses.of(context.getStartupFailure());
		});
		return analysis[0];
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
		new UnknownPropertiesBindHandlerAdvisor.ForwardingModulesRuntimeHints().registerHints(hints,
				getClass().getClassLoader());
		// UnknownPropertiesBindHandlerAdvisor asks ClassUtils.isPresent("...forward.ForwardingEndpoint")
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
