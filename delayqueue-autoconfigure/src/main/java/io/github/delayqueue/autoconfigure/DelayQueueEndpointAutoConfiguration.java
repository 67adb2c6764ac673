package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpointWebExtension;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.redis.RedisDelayQueue;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code delayqueue} Actuator endpoint. Like every endpoint it is
 * reachable over the web only when exposed ({@code management.endpoints.web.exposure.include});
 * {@code management.endpoint.delayqueue.access=read-only} keeps the reads and refuses the
 * write operations.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(DelayQueueOperations.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueEndpointAutoConfiguration {

	// a nested class: its condition's class exists only with Actuator, checked above
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DelayQueueEndpoint delayQueueEndpoint(DelayQueueOperations operations,
				ObjectProvider<DelayedListenerEndpointRegistry> registry, ObjectProvider<RedisDelayQueue> queue,
				DelayQueueProperties properties) {
			return new DelayQueueEndpoint(operations, ListenerContainers.of(registry),
					ListenerContainers.instanceId(queue), properties.getEndpoint().isShowPayloads());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(DelayQueueEndpoint.class)
		@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
		DelayQueueEndpointWebExtension delayQueueEndpointWebExtension(DelayQueueEndpoint endpoint) {
			return new DelayQueueEndpointWebExtension(endpoint);
		}

	}

}
