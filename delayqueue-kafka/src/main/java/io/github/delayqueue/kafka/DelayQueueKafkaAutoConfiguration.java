package io.github.delayqueue.kafka;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueForwardingAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueForwardProperties;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.autoconfigure.Forwarders;
import io.github.delayqueue.core.DelayedJobOperations;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Auto-configuration of forwarding to Kafka ({@code delayqueue.forward.<topic>.kafka.*}): the
 * due jobs of a forwarded topic are sent with the producer settings of the application's
 * {@code KafkaTemplate} by a listener container each, in the container
 * factory of {@link DelayQueueForwardingAutoConfiguration};
 * {@link DelayedKafka} schedules Kafka records for later.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
		DelayQueueForwardingAutoConfiguration.class },
		afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass(KafkaTemplate.class)
@ConditionalOnBean(DelayedJobOperations.class)
public final class DelayQueueKafkaAutoConfiguration {

	@Bean
	@SuppressWarnings("NullAway") // the forwards taken have their kafka.*, whose topic the rules checked
	Forwarders<KafkaForwarder> delayQueueKafkaForwarders(DelayQueueForwardProperties properties,
			ListableBeanFactory beans) {
		return new Forwarders<>(properties, (forward) -> forward.kafka() != null, (topic, forward) -> {
			DelayQueueForwardProperties.Forward.Kafka kafka = forward.kafka();
			String forwarding = Forwarders.forwarding(topic, "Kafka topic '" + kafka.topic() + "'");
			KafkaTemplate<?, ?> template = Forwarders.bean(beans, KafkaTemplate.class, kafka.template(),
					"delayqueue.forward." + topic + ".kafka.template", forwarding,
					"set spring.kafka.bootstrap-servers (Spring Boot then defines a KafkaTemplate) or define one");
			try {
				return new KafkaForwarder(template.getProducerFactory(), kafka.topic(), kafka.partition(),
						kafka.keyField(), forward.sendTimeout());
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
