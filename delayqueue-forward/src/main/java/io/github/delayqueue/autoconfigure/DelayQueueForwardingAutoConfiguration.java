package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.micrometer.DelayedListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * Auto-configuration of forwarding ({@code delayqueue.forward.<topic>.*}): its properties and
 * the container factory the forwarders of the broker modules run in.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
@ConditionalOnClass({ MessageHandlerMethodFactory.class, EnableDelayedListeners.class })
@ConditionalOnBean(DelayedJobOperations.class)
@EnableConfigurationProperties(DelayQueueForwardProperties.class)
public final class DelayQueueForwardingAutoConfiguration {

	// nothing injects the check: made under spring.main.lazy-initialization too
	@Bean
	static LazyInitializationExcludeFilter delayQueueForwardingTimeoutsNotLazy() {
		return LazyInitializationExcludeFilter.forBeanTypes(ForwardingTimeouts.class);
	}

	@Bean
	static ForwardingTimeouts delayQueueForwardingTimeouts(DelayQueueForwardProperties forward,
			DelayQueueProperties properties) {
		Duration shutdownTimeout = properties.listener().shutdownTimeout();
		forward.forward().forEach((topic, settings) -> {
			if (settings.sendTimeout().compareTo(shutdownTimeout) >= 0) {
				throw new InvalidConfigurationPropertyValueException("delayqueue.forward[" + topic + "].send-timeout",
						DelayQueuePropertiesRules.format(settings.sendTimeout()),
						"must be shorter than delayqueue.listener.shutdown-timeout (" + shutdownTimeout.toMillis()
								+ "ms), or a send still waiting at shutdown is interrupted and counted as a failed"
								+ " attempt although the broker may take it");
			}
		});
		return new ForwardingTimeouts();
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

	/**
	 * The check that no send timeout reaches the listeners' shutdown timeout (two properties
	 * objects), made a bean.
	 */
	static final class ForwardingTimeouts {

	}

}
