package io.github.delayqueue.autoconfigure;

import java.util.List;

import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.InvalidDelayedListenerException;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.forward.DelayedKafka;
import io.github.delayqueue.forward.DelayedRabbit;
import io.github.delayqueue.forward.KafkaForwarder;
import io.github.delayqueue.forward.RabbitForwarder;
import io.github.delayqueue.micrometer.DelayedListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of forwarding ({@code delayqueue.forward.<topic>.*}): the due jobs of a
 * forwarded topic are sent to Kafka (with the producer settings of the application's
 * {@code KafkaTemplate}) or RabbitMQ (on the connection factory of its
 * {@code RabbitTemplate}) by a listener container each; {@link DelayedKafka} schedules
 * Kafka records and {@link DelayedRabbit} RabbitMQ messages. The forwarders run in a container factory of their own
 * ({@link ForwardingEndpoint#CONTAINER_FACTORY_BEAN_NAME}). Nothing is configured for a
 * broker whose Spring library is not on the class path; a topic forwarded to it fails
 * start-up, naming the library to add.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class },
		afterName = { "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
				"org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration" })
@ConditionalOnClass({ MessageHandlerMethodFactory.class, EnableDelayedListeners.class })
@ConditionalOnBean(DelayedJobOperations.class)
@ImportRuntimeHints(DelayQueueForwardingAutoConfiguration.ForwardingRuntimeHints.class)
public final class DelayQueueForwardingAutoConfiguration {

	private static final String KAFKA_TEMPLATE = "org.springframework.kafka.core.KafkaTemplate";

	private static final String RABBIT_TEMPLATE = "org.springframework.amqp.rabbit.core.RabbitTemplate";

	@Bean
	static ForwardingLibraries delayQueueForwardingLibraries(DelayQueueProperties properties,
			ResourceLoader resourceLoader) {
		ClassLoader loader = resourceLoader.getClassLoader();
		properties.getForward().forEach((topic, forward) -> {
			if (forward.getKafka() != null && !ClassUtils.isPresent(KAFKA_TEMPLATE, loader)) {
				throw new InvalidDelayedListenerException(forwarding(topic, "Kafka"),
						"needs Spring for Apache Kafka, which is not on the class path",
						"add org.springframework.kafka:spring-kafka (or spring-boot-starter-kafka)", null);
			}
			if (forward.getRabbit() != null
					&& !ClassUtils.isPresent(RABBIT_TEMPLATE, loader)) {
				throw new InvalidDelayedListenerException(forwarding(topic, "RabbitMQ"),
						"needs Spring AMQP, which is not on the class path",
						"add org.springframework.amqp:spring-rabbit (or spring-boot-starter-amqp)", null);
			}
		});
		return new ForwardingLibraries();
	}

	// not injected by type: applications that inject "the" container factory keep getting theirs
	@Bean(name = ForwardingEndpoint.CONTAINER_FACTORY_BEAN_NAME, autowireCandidate = false)
	@ConditionalOnMissingBean(name = ForwardingEndpoint.CONTAINER_FACTORY_BEAN_NAME)
	DefaultDelayedListenerContainerFactory delayQueueForwardingContainerFactory(DelayQueueOperations operations,
			JobPayloadConverter converter, DelayQueueProperties properties, ObjectProvider<DelayQueueObserver> observers,
			Environment environment, ApplicationEventPublisher eventPublisher,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayedListenerObservationConvention> observationConvention) {
		// the listener settings, not the application's interceptors, error handler or recoverer
		DelayedListenerContainerFactoryConfigurer configurer = new DelayedListenerContainerFactoryConfigurer(
				properties.getListener(), null, null, List.of(), observers.orderedStream().toList(),
				Threading.VIRTUAL.isActive(environment), eventPublisher, observationRegistry.getIfUnique(),
				observationConvention.getIfUnique());
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(operations,
				converter);
		configurer.configure(factory);
		return factory;
	}

	private static String forwarding(String topic, String broker) {
		return "Forwarding of topic '" + topic + "' to " + broker;
	}

	/** The check that every forwarded topic's broker library is present, made a bean. */
	static final class ForwardingLibraries {

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(KafkaTemplate.class)
	static class KafkaForwardingConfiguration {

		@Bean
		@SuppressWarnings("NullAway") // the forwards taken have their kafka.*, whose topic the rules checked
		Forwarders<KafkaForwarder> delayQueueKafkaForwarders(DelayQueueProperties properties,
				ListableBeanFactory beans) {
			return new Forwarders<>(properties, (forward) -> forward.getKafka() != null, (topic, forward) -> {
				DelayQueueProperties.Forward.Kafka kafka = forward.getKafka();
				String forwarding = forwarding(topic, "Kafka topic '" + kafka.getTopic() + "'");
				KafkaTemplate<?, ?> template = Forwarders.bean(beans, KafkaTemplate.class, kafka.getTemplate(),
						"delayqueue.forward." + topic + ".kafka.template", forwarding,
						"set spring.kafka.bootstrap-servers (Spring Boot then defines a KafkaTemplate) or define one");
				try {
					return new KafkaForwarder(template.getProducerFactory(), kafka.getTopic(), kafka.getPartition(),
							kafka.getKeyField(), forward.getSendTimeout());
				}
				catch (IllegalArgumentException ex) {
					throw Forwarders.invalid(forwarding, ex);
				}
			});
		}

		@Bean
		@ConditionalOnMissingBean
		DelayedKafka delayedKafka(DelayedJobOperations jobs, Forwarders<KafkaForwarder> forwarders) {
			return new DelayedKafka(jobs, forwarders.forwarders());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RabbitTemplate.class)
	static class RabbitForwardingConfiguration {

		@Bean
		@SuppressWarnings("NullAway") // the forwards taken have their rabbit.*, whose exchange the rules checked
		Forwarders<RabbitForwarder> delayQueueRabbitForwarders(DelayQueueProperties properties,
				ListableBeanFactory beans) {
			return new Forwarders<>(properties, (forward) -> forward.getRabbit() != null, (topic, forward) -> {
				DelayQueueProperties.Forward.Rabbit rabbit = forward.getRabbit();
				String forwarding = forwarding(topic, "RabbitMQ exchange '" + rabbit.getExchange() + "'");
				RabbitTemplate template = Forwarders.bean(beans, RabbitTemplate.class, rabbit.getTemplate(),
						"delayqueue.forward." + topic + ".rabbit.template", forwarding,
						"set spring.rabbitmq.host (Spring Boot then defines a RabbitTemplate) or define one");
				try {
					return new RabbitForwarder(template.getConnectionFactory(), template.getMessageConverter(),
							rabbit.getExchange(), rabbit.getRoutingKey(), forward.getSendTimeout());
				}
				catch (IllegalArgumentException ex) {
					throw Forwarders.invalid(forwarding, ex);
				}
			});
		}

		@Bean
		@ConditionalOnMissingBean
		DelayedRabbit delayedRabbit(DelayedJobOperations jobs, Forwarders<RabbitForwarder> forwarders) {
			return new DelayedRabbit(jobs, forwarders.forwarders());
		}

	}

	/**
	 * The broker libraries' types that the check of the forwarded topics looks for on the
	 * class path at run time, for a native image.
	 */
	static class ForwardingRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			hints.reflection().registerTypeIfPresent(classLoader, KAFKA_TEMPLATE);
			hints.reflection().registerTypeIfPresent(classLoader, RABBIT_TEMPLATE);
		}

	}

}
