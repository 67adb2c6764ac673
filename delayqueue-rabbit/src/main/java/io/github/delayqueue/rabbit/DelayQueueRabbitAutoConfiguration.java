package io.github.delayqueue.rabbit;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueForwardingAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueForwardProperties;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.autoconfigure.Forwarders;
import io.github.delayqueue.core.DelayedJobOperations;

import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of forwarding to RabbitMQ ({@code delayqueue.forward.<topic>.rabbit.*}): the
 * due jobs of a forwarded topic are sent on the connection factory of the application's
 * {@code RabbitTemplate} by a listener container each, in the container
 * factory of {@link DelayQueueForwardingAutoConfiguration};
 * {@link DelayedRabbit} schedules RabbitMQ messages for later.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
		DelayQueueForwardingAutoConfiguration.class },
		afterName = "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration")
@ConditionalOnClass(RabbitTemplate.class)
@ConditionalOnBean(DelayedJobOperations.class)
public final class DelayQueueRabbitAutoConfiguration {

	@Bean
	@SuppressWarnings("NullAway") // the forwards taken have their rabbit.*, whose exchange the rules checked
	Forwarders<RabbitForwarder> delayQueueRabbitForwarders(DelayQueueForwardProperties properties,
			ListableBeanFactory beans) {
		return new Forwarders<>(properties, (forward) -> forward.rabbit() != null, (topic, forward) -> {
			DelayQueueForwardProperties.Forward.Rabbit rabbit = forward.rabbit();
			String forwarding = Forwarders.forwarding(topic, "RabbitMQ exchange '" + rabbit.exchange() + "'");
			RabbitTemplate template = Forwarders.bean(beans, RabbitTemplate.class, rabbit.template(),
					"delayqueue.forward." + topic + ".rabbit.template", forwarding,
					"set spring.rabbitmq.host (Spring Boot then defines a RabbitTemplate) or define one");
			try {
				return new RabbitForwarder(template.getConnectionFactory(), template.getMessageConverter(),
						rabbit.exchange(), rabbit.routingKey(), forward.sendTimeout());
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
