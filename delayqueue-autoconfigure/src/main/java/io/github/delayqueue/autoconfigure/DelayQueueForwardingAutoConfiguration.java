package io.github.delayqueue.autoconfigure;

import java.util.List;

import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.InvalidDelayedListenerException;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.micrometer.DelayedListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of forwarding ({@code delayqueue.forward.<topic>.*}): the container
 * factory the forwarders run in; a forward whose broker module is missing fails start-up.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
@ConditionalOnClass({ MessageHandlerMethodFactory.class, EnableDelayedListeners.class })
@ConditionalOnBean(DelayedJobOperations.class)
@ImportRuntimeHints(DelayQueueForwardingAutoConfiguration.ForwardingRuntimeHints.class)
public final class DelayQueueForwardingAutoConfiguration {

	private static final String KAFKA_FORWARDER = "io.github.delayqueue.kafka.KafkaForwarder";

	private static final String RABBIT_FORWARDER = "io.github.delayqueue.rabbit.RabbitForwarder";

	@Bean
	static ForwardingLibraries delayQueueForwardingLibraries(DelayQueueProperties properties,
			ResourceLoader resourceLoader) {
		ClassLoader loader = resourceLoader.getClassLoader();
		properties.forward().forEach((topic, forward) -> {
			if (forward.kafka() != null && !ClassUtils.isPresent(KAFKA_FORWARDER, loader)) {
				throw new InvalidDelayedListenerException(Forwarders.forwarding(topic, "Kafka"),
						"needs the module delayqueue-kafka, which is not on the class path",
						"add io.github.delayqueue:delayqueue-kafka", null);
			}
			if (forward.rabbit() != null && !ClassUtils.isPresent(RABBIT_FORWARDER, loader)) {
				throw new InvalidDelayedListenerException(Forwarders.forwarding(topic, "RabbitMQ"),
						"needs the module delayqueue-rabbit, which is not on the class path",
						"add io.github.delayqueue:delayqueue-rabbit", null);
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
				properties.listener(), null, null, List.of(), observers.orderedStream().toList(),
				Threading.VIRTUAL.isActive(environment), eventPublisher, observationRegistry.getIfUnique(),
				observationConvention.getIfUnique());
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(operations,
				converter);
		configurer.configure(factory);
		return factory;
	}

	/** The check that every forwarded topic's broker module is present, made a bean. */
	static final class ForwardingLibraries {

	}

	/** The broker modules' forwarder types, for a native image. */
	static class ForwardingRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			hints.reflection().registerTypeIfPresent(classLoader, KAFKA_FORWARDER);
			hints.reflection().registerTypeIfPresent(classLoader, RABBIT_FORWARDER);
		}

	}

}
