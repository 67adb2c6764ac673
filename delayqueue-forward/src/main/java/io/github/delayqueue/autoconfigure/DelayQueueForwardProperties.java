package io.github.delayqueue.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

import io.github.delayqueue.core.JobConstraints;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of forwarding ({@code delayqueue.forward.*}), bound at the
 * {@code delayqueue} root beside {@link DelayQueueProperties} and checked when they are bound;
 * the send timeout's rule against the listeners' shutdown timeout is checked by
 * {@link DelayQueueForwardingAutoConfiguration}.
 *
 * @param forward Topics whose due jobs are sent to a message broker instead of a listener, such
 * as 'delayqueue.forward.order-events.kafka.topic=orders'.
 */
@ConfigurationProperties("delayqueue")
public record DelayQueueForwardProperties(@DefaultValue Map<String, Forward> forward) implements Validator {

	private static final Pattern KAFKA_TOPIC = Pattern.compile("(?!\\.\\.?$)[A-Za-z0-9._-]{1,249}");

	private static final Pattern KEY_FIELD = Pattern.compile("[^.\\s]+(\\.[^.\\s]+)*");

	@Override
	public boolean supports(Class<?> type) {
		return DelayQueueForwardProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		DelayQueuePropertiesRules rules = new DelayQueuePropertiesRules(errors);
		((DelayQueueForwardProperties) target).forward()
			.forEach((topic, forward) -> validate(rules, "forward[" + topic + "]", topic, forward));
	}

	@SuppressWarnings("NullAway") // past the first checks, the forward has its kafka or its rabbit
	private static void validate(DelayQueuePropertiesRules rules, String field, String topic, Forward forward) {
		rules.check(field, null, () -> JobConstraints.topic("topic", topic));
		rules.check(field, forward, () -> JobConstraints.concurrency(forward.concurrency()));
		rules.duration(field + ".send-timeout", forward.sendTimeout(), Duration.ofMillis(100), Duration.ofHours(1));
		Forward.Kafka kafka = forward.kafka();
		Forward.Rabbit rabbit = forward.rabbit();
		if (kafka != null && rabbit != null) {
			rules.reject(field,
					"forwards to Kafka or to RabbitMQ, not both: remove the kafka.* or the rabbit.* properties");
			return;
		}
		if (kafka == null && rabbit == null) {
			rules.reject(field, "set kafka.topic (forward to Kafka) or rabbit.exchange (forward to RabbitMQ)");
			return;
		}
		if (kafka != null) {
			if (kafka.topic() == null || kafka.topic().isBlank()) {
				rules.reject(field + ".kafka.topic", "must name the Kafka topic the records are sent to");
			}
			else if (!KAFKA_TOPIC.matcher(kafka.topic()).matches()) {
				rules.reject(field + ".kafka.topic",
						"must be 1 to 249 letters, digits, '.', '_' or '-', not '.' or '..'");
			}
			if (kafka.partition() != null && kafka.partition() < 0) {
				rules.reject(field + ".kafka.partition", "must be 0 or more");
			}
			if (kafka.keyField() != null && !KEY_FIELD.matcher(kafka.keyField()).matches()) {
				rules.reject(field + ".kafka.key-field", "must be a field name of the JSON payload, dots between nested"
						+ " names (such as 'order.customerId')");
			}
		}
		else if (rabbit.exchange() == null) {
			rules.reject(field + ".rabbit.exchange",
					"must name the exchange the messages are published to (empty for the default exchange)");
		}
		else if (rabbit.exchange().getBytes(StandardCharsets.UTF_8).length > 255) {
			rules.reject(field + ".rabbit.exchange", "must be at most 255 bytes in UTF-8");
		}
		else if (rabbit.routingKey() == null || rabbit.routingKey().getBytes(StandardCharsets.UTF_8).length > 255) {
			rules.reject(field + ".rabbit.routing-key", "must be at most 255 bytes in UTF-8");
		}
		else if (rabbit.exchange().isEmpty() && rabbit.routingKey().isEmpty()) {
			rules.reject(field + ".rabbit.routing-key",
					"must name the queue when the exchange is the default (empty) one");
		}
	}

	/**
	 * Where the due jobs of one topic are sent: a Kafka topic or a RabbitMQ exchange.
	 *
	 * @param concurrency sends at once; each waits for the broker's acknowledgement
	 * @param sendTimeout how long a send may wait for the broker's acknowledgement before it
	 * is retried; shorter than 'delayqueue.listener.shutdown-timeout'
	 * @param kafka forwarding to Kafka
	 * @param rabbit forwarding to RabbitMQ
	 */
	public record Forward(@DefaultValue("4") int concurrency, @DefaultValue("10s") Duration sendTimeout,
			@Nullable Kafka kafka, @Nullable Rabbit rabbit) {

		/**
		 * A Kafka destination.
		 *
		 * @param topic the Kafka topic the records are sent to
		 * @param template bean name of the KafkaTemplate whose producer settings the forwarder
		 * uses. Default: the only KafkaTemplate
		 * @param keyField the record key: a field of the JSON payload, dots for nested fields
		 * (such as 'order.customerId'). Default: the job id (or the key given to DelayedKafka)
		 * @param partition the partition. Default: the producer's partitioner chooses by key
		 */
		public record Kafka(@Nullable String topic, @Nullable String template, @Nullable String keyField,
				@Nullable Integer partition) {

		}

		/**
		 * A RabbitMQ destination; the connection factory needs publisher confirms and returns.
		 *
		 * @param exchange the exchange the messages are published to; empty for the default
		 * exchange
		 * @param routingKey the routing key. Default: none (empty), as fanout exchanges need
		 * @param template the bean name of the RabbitTemplate to publish with. Default: the
		 * only RabbitTemplate
		 */
		public record Rabbit(@Nullable String exchange, @DefaultValue("") String routingKey,
				@Nullable String template) {

		}

	}

}
