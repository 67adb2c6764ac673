package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.actuate.DelayQueueSampler;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.redis.RedisDelayQueue;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of the {@code delayqueue} health indicator, with the metrics'
 * {@link DelayQueueSampler} when lag thresholds are set.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
		DelayQueueMetricsAutoConfiguration.class })
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
		DelayQueueHealthIndicator delayqueueHealthIndicator(ObjectProvider<RedisDelayQueue> queue,
				ObjectProvider<RedisConnectionFactory> connectionFactory,
				ObjectProvider<DelayedListenerEndpointRegistry> registry, ObjectProvider<DelayQueueSampler> sampler,
				DelayQueueProperties properties) {
			DelayQueueProperties.Health health = properties.health();
			RedisDelayQueue redisQueue = queue.getIfAvailable();
			RedisConnectionFactory redis = (redisQueue != null) ? redisQueue.getConnectionFactory()
					: connectionFactory.getIfUnique();
			return new DelayQueueHealthIndicator(redis, redisQueue, (redisQueue != null) ? redisQueue.getTimer() : null,
					ListenerContainers.of(registry), sampler.getIfAvailable(),
					health.timeout(), health.maxStall(), health.maxOverdue());
		}

		@Configuration(proxyBeanMethods = false)
		@Conditional(OnMaxOverdueCondition.class)
		@Import(DelayQueueMetricsAutoConfiguration.SamplerConfiguration.class)
		static class LagThresholdsConfiguration {

		}

	}

	/**
	 * Whether any {@code delayqueue.health.max-overdue.<topic>} threshold is set.
	 */
	static class OnMaxOverdueCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			Map<String, Duration> thresholds = Binder.get(context.getEnvironment())
				.bind("delayqueue.health.max-overdue", Bindable.mapOf(String.class, Duration.class))
				.orElse(Map.of());
			return thresholds.isEmpty() ? ConditionOutcome.noMatch("no delayqueue.health.max-overdue thresholds")
					: ConditionOutcome.match("delayqueue.health.max-overdue thresholds for " + thresholds.keySet());
		}

	}

}
