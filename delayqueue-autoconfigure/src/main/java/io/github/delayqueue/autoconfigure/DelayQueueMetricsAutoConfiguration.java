package io.github.delayqueue.autoconfigure;

import java.util.Map;

import io.github.delayqueue.actuate.DelayQueueMeterBinder;
import io.github.delayqueue.actuate.DelayQueueMetrics;
import io.github.delayqueue.actuate.DelayQueueSampler;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of delayqueue's Micrometer meters: {@link DelayQueueMetrics} and the
 * sampled gauges of {@link DelayQueueMeterBinder}. Needs a {@link MeterRegistry} bean.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, DelayQueueOperations.class })
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueMetricsAutoConfiguration {

	/** Help text of the meters Micrometer's observation handler registers without one. */
	private static final Map<String, String> OBSERVATION_METERS = Map.of(
			"delayqueue.template", "Duration of DelayedJobTemplate writes: schedule, cancel, reschedule",
			"delayqueue.template.active", "DelayedJobTemplate writes in progress",
			"delayqueue.listener.active", "@DelayedListener handler calls in progress");

	/**
	 * Gives the observations' meters their help text and leaves the {@code delayqueue.listener}
	 * timer to {@link DelayQueueMetrics}.
	 * @return the filter
	 */
	@Bean
	static MeterFilter delayQueueObservationMeters() {
		return new MeterFilter() {

			@Override
			public MeterFilterReply accept(Meter.Id id) {
				boolean listenerObservation = id.getName().equals("delayqueue.listener")
						&& id.getTag("delayqueue.topic") != null;
				return listenerObservation ? MeterFilterReply.DENY : MeterFilterReply.NEUTRAL;
			}

			@Override
			public Meter.Id map(Meter.Id id) {
				String description = OBSERVATION_METERS.get(id.getName());
				return (description == null || id.getDescription() != null) ? id
						: new Meter.Id(id.getName(), Tags.of(id.getTags()), id.getBaseUnit(), description, id.getType());
			}

		};
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueMetrics delayQueueMetrics(MeterRegistry registry, DelayQueueProperties properties) {
		return new DelayQueueMetrics(registry, properties.metrics().maxTopics());
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueMeterBinder delayQueueMeterBinder(DelayQueueSampler sampler, ObjectProvider<RedisDelayQueue> queue,
			DelayQueueProperties properties) {
		RedisDelayQueue redisQueue = queue.getIfAvailable();
		return new DelayQueueMeterBinder(sampler, (redisQueue != null) ? redisQueue.getTimer() : null,
				properties.metrics().maxTopics());
	}

	/** The one sampler, of the gauges and of the health lag thresholds. */
	@Configuration(proxyBeanMethods = false)
	static class SamplerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DelayQueueSampler delayQueueSampler(DelayQueueOperations operations, DelayQueueProperties properties) {
			return new DelayQueueSampler(operations, properties.metrics().sampleInterval());
		}

	}

}
