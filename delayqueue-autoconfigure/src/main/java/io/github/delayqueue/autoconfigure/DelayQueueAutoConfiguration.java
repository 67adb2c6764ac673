package io.github.delayqueue.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.DelayedJobTemplateObservationConvention;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobOutbox;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.RedisDelayQueueBuilder;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.delayqueue.autoconfigure.DelayQueuePropertiesRules.property;

/**
 * Auto-configuration of the delay queue: the Redis engine with this instance's share of
 * the bucket timers, the payload converter and {@link DelayedJobTemplate}. Needs a single
 * {@link RedisConnectionFactory} (Spring Boot's Data Redis auto-configuration provides one
 * from {@code spring.data.redis.*}); off with {@code delayqueue.enabled=false}.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration" })
@ConditionalOnClass({ RedisConnectionFactory.class, JsonMapper.class })
@ConditionalOnBooleanProperty(name = "delayqueue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DelayQueueProperties.class)
@ImportRuntimeHints(UnknownPropertiesBindHandlerAdvisor.ForwardingModulesRuntimeHints.class)
public final class DelayQueueAutoConfiguration {

	@Bean
	static UnknownPropertiesBindHandlerAdvisor delayQueueUnknownPropertiesBindHandlerAdvisor() {
		return new UnknownPropertiesBindHandlerAdvisor();
	}

	@Bean
	@ConditionalOnMissingBean(DelayQueueOperations.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	RedisDelayQueue delayQueue(RedisConnectionFactory connectionFactory, DelayQueueProperties properties,
			ObjectProvider<DelayQueueBuilderCustomizer> customizers, ObjectProvider<DelayQueueObserver> observers) {
		RedisDelayQueueBuilder builder = RedisDelayQueue.builder(connectionFactory);
		PropertyMapper map = PropertyMapper.get();
		DelayQueueProperties.Timer timer = properties.timer();
		DelayQueueProperties.Redis redis = properties.redis();
		map.from(properties::namespace).to(property("delayqueue.namespace", builder::namespace));
		map.from(properties::buckets).to(property("delayqueue.buckets", builder::buckets));
		map.from(properties::maxPayloadSize).to(property("delayqueue.max-payload-size", builder::maxPayloadSize));
		map.from(properties::defaultTtr).to(property("delayqueue.default-ttr", builder::defaultTtr));
		map.from(properties::defaultMaxAttempts).to(property("delayqueue.default-max-attempts", builder::defaultMaxAttempts));
		map.from(properties::instanceId).to(builder::instanceId);
		map.from(timer::enabled).to(builder::timerEnabled);
		map.from(timer::batchSize).to(property("delayqueue.timer.batch-size", builder::batchSize));
		map.from(timer::guardInterval).to(property("delayqueue.timer.guard-interval", builder::guardInterval));
		map.from(timer::leaseTtl).to(property("delayqueue.timer.lease-ttl", builder::leaseTtl));
		map.from(timer::reserveForWaitingConsumers).to(builder::reserveForWaitingConsumers);
		map.from(redis::waitReplicas).to(property("delayqueue.redis.wait-replicas", builder::waitReplicas));
		map.from(redis::waitTimeout).to(property("delayqueue.redis.wait-timeout", builder::waitTimeout));
		map.from(redis::failFast).to(builder::failFast);
		properties.retention().forEach((topic, retention) -> builder.retention(topic, retention.toRetention()));
		observers.orderedStream().forEach(builder::observer);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		RedisDelayQueue queue = builder.build();
		properties.listener().rateLimit().forEach((topic, limit) -> queue.limitRate(topic, RateLimit.parse(limit)));
		return queue;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisDelayQueue.class)
	RecurringJobs recurringJobs(RedisDelayQueue queue) {
		return queue.getRecurringJobs();
	}

	/** Puts the declared recurring jobs; an observer of the queue, to put them again when Redis lost them. */
	@Bean
	@ConditionalOnBean(RecurringJobs.class)
	RecurringJobsReconciler recurringJobsReconciler(ObjectProvider<RecurringJobs> recurringJobs,
			DelayQueueProperties properties) {
		Map<String, RecurringJob> declared = new LinkedHashMap<>();
		properties.recurring().forEach((name, recurring) -> declared.put(name, recurring.toJob(name)));
		return new RecurringJobsReconciler(recurringJobs, declared, properties.removeUndeclaredRecurringJobs());
	}

	@Bean
	@ConditionalOnMissingBean(JobPayloadConverter.class)
	JacksonJobPayloadConverter delayQueuePayloadConverter(ObjectProvider<JsonMapper> jsonMapper) {
		return new JacksonJobPayloadConverter(jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()));
	}

	@Bean
	@ConditionalOnMissingBean(DelayedJobOperations.class)
	@ConditionalOnBean(DelayQueueOperations.class)
	DelayedJobTemplate delayedJobTemplate(DelayQueueOperations operations, JobPayloadConverter converter,
			DelayQueueProperties properties, ObjectProvider<JobOutbox> outbox,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayedJobTemplateObservationConvention> observationConvention, Environment environment) {
		DelayedJobTemplate template = new DelayedJobTemplate(operations, converter);
		template.setAfterCommit(properties.template().afterCommit());
		JobOutbox jobOutbox = outbox.getIfUnique();
		if (jobOutbox == null && environment.getProperty("delayqueue.outbox.enabled", Boolean.class, false)) {
			throw new IllegalStateException("delayqueue.outbox.enabled=true needs spring-jdbc on the class path and a"
					+ " single DataSource bean (the one the application's transactions use), or a JobOutbox bean");
		}
		template.setOutbox(jobOutbox);
		if (properties.template().observationEnabled()) {
			observationRegistry.ifUnique(template::setObservationRegistry);
		}
		template.setObservationConvention(observationConvention.getIfUnique());
		return template;
	}

}
