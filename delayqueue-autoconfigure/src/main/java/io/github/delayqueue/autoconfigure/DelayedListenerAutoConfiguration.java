package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.annotation.DelayedListenerBootstrapConfiguration;
import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.listener.DelayedJobErrorHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import io.github.delayqueue.listener.DelayedJobRecoverer;
import io.github.delayqueue.listener.JobOutcomeStream;
import io.github.delayqueue.micrometer.DelayedListenerObservationConvention;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.RedisJobOutcomeStream;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * Auto-configuration of {@code @DelayedListener}: the default container factory (configured
 * by a {@link DelayedListenerContainerFactoryConfigurer}), listener detection, and the
 * namespace's {@link JobOutcomeStream}.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass({ MessageHandlerMethodFactory.class, EnableDelayedListeners.class })
@ConditionalOnBean({ DelayQueueOperations.class, JobPayloadConverter.class })
public final class DelayedListenerAutoConfiguration {

	@Bean
	DelayedListenerContainerFactoryConfigurer delayedListenerContainerFactoryConfigurer(
			DelayQueueProperties properties, ObjectProvider<DelayedJobRecoverer> recoverer,
			ObjectProvider<DelayedJobErrorHandler> errorHandler, ObjectProvider<DelayedJobInterceptor> interceptors,
			ObjectProvider<DelayQueueObserver> observers, Environment environment,
			ApplicationEventPublisher eventPublisher, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayedListenerObservationConvention> observationConvention) {
		return new DelayedListenerContainerFactoryConfigurer(properties.listener(), recoverer.getIfUnique(),
				errorHandler.getIfUnique(), interceptors.orderedStream().toList(), observers.orderedStream().toList(),
				Threading.VIRTUAL.isActive(environment), eventPublisher, observationRegistry.getIfUnique(),
				observationConvention.getIfUnique());
	}

	@Bean(name = DelayedListenerEndpointRegistrar.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	@ConditionalOnMissingBean(name = DelayedListenerEndpointRegistrar.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	DefaultDelayedListenerContainerFactory delayedListenerContainerFactory(DelayQueueOperations operations,
			JobPayloadConverter converter, DelayedListenerContainerFactoryConfigurer configurer) {
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(operations,
				converter);
		configurer.configure(factory);
		return factory;
	}

	@Bean
	@ConditionalOnMissingBean(JobOutcomeStream.class)
	@ConditionalOnBean(RedisDelayQueue.class)
	RedisJobOutcomeStream delayQueueJobOutcomeStream(RedisDelayQueue queue, DelayQueueProperties properties) {
		return new RedisJobOutcomeStream(queue, properties.listener().outcomeStream());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayedListeners
	@ConditionalOnMissingBean(name = DelayedListenerBootstrapConfiguration.POST_PROCESSOR_BEAN_NAME)
	static class EnableDelayedListenersConfiguration {

	}

}
