package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.redis.RedisDelayQueue;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code delayqueue} health indicator; off with
 * {@code management.health.delayqueue.enabled=false}.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(DelayQueueOperations.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueHealthContributorAutoConfiguration {

	// a nested class: its condition's class exists only with spring-boot-health, checked above
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("delayqueue")
	static class HealthIndicatorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "delayqueueHealthIndicator")
		DelayQueueHealthIndicator delayqueueHealthIndicator(DelayQueueOperations operations,
				ObjectProvider<RedisDelayQueue> queue, ObjectProvider<DelayedListenerEndpointRegistry> registry,
				DelayQueueProperties properties) {
			DelayQueueProperties.Health health = properties.getHealth();
			return new DelayQueueHealthIndicator(operations, ListenerContainers.timer(queue),
					ListenerContainers.of(registry), health.getMaxOverdue(), health.getMaxStall());
		}

	}

}
