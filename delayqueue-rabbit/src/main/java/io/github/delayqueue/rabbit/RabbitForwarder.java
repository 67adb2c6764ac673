package io.github.delayqueue.rabbit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.forward.ForwardedHeaders;
import io.github.delayqueue.forward.JobForwarder;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.ReturnedMessage;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.amqp.support.converter.SimpleMessageConverter;
import org.springframework.util.Assert;

/**
 * Publishes jobs to a RabbitMQ exchange and waits for each message's publisher confirm. The
 * message's body is the job's payload bytes, its message id the job id, its headers
 * {@link ForwardedHeaders}; it is persistent and mandatory: a message no queue takes is
 * returned by the broker, and that counts as a failed send (retried, then DEAD with the
 * broker's reply), not as a success. A negative confirm fails the send too.
 *
 * <p>The wait for the confirm is bounded by the send timeout, the publish itself is not: a
 * broker that blocks publishers (a resource alarm) or a host that does not answer (up to
 * {@code spring.rabbitmq.connection-timeout}) can hold it longer, and the job is then sent
 * again once its reservation runs out. The body goes out with the content type
 * {@code application/octet-stream}.
 *
 * <p>It publishes through a template of its own (on the publisher connection) on the
 * application's connection factory, which must have correlated publisher confirms and publisher returns
 * ({@code spring.rabbitmq.publisher-confirm-type=correlated},
 * {@code spring.rabbitmq.publisher-returns=true}).
 */
public final class RabbitForwarder implements JobForwarder {

	private final RabbitTemplate template;

	private final String exchange;

	private final String routingKey;

	private final Duration sendTimeout;

	private final MessageConverter converter;

	/**
	 * Creates a forwarder.
	 * @param connectionFactory the application's connection factory
	 * @param exchange the exchange, empty for the default exchange
	 * @param routingKey the routing key
	 * @param sendTimeout how long a publish waits for its confirm
	 * @throws IllegalArgumentException when the connection factory has no correlated
	 * publisher confirms or no publisher returns, the message saying the problem, then after
	 * ": " the properties that turn them on
	 */
	public RabbitForwarder(ConnectionFactory connectionFactory, String exchange, String routingKey,
			Duration sendTimeout) {
		this(connectionFactory, new SimpleMessageConverter(), exchange, routingKey, sendTimeout);
	}

	/**
	 * Creates a forwarder that converts {@link DelayedRabbit}'s message bodies with a
	 * converter.
	 * @param connectionFactory the application's connection factory
	 * @param converter the application's RabbitTemplate's message converter
	 * @param exchange the exchange, empty for the default exchange
	 * @param routingKey the routing key
	 * @param sendTimeout how long a publish waits for its confirm
	 * @throws IllegalArgumentException when the connection factory has no correlated
	 * publisher confirms or no publisher returns, the message saying the problem, then after
	 * ": " the properties that turn them on
	 */
	public RabbitForwarder(ConnectionFactory connectionFactory, MessageConverter converter, String exchange,
			String routingKey, Duration sendTimeout) {
		Assert.notNull(converter, "converter must not be null");
		this.converter = converter;
		Assert.notNull(connectionFactory, "connectionFactory must not be null");
		Assert.notNull(exchange, "exchange must not be null");
		Assert.notNull(routingKey, "routingKey must not be null");
		Assert.isTrue(sendTimeout != null && !sendTimeout.isNegative() && !sendTimeout.isZero(),
				"sendTimeout must be positive");
		if (!connectionFactory.isPublisherConfirms()) {
			throw new IllegalArgumentException("the connection factory has no correlated publisher confirms, so no"
					+ " send could be known to have arrived: set spring.rabbitmq.publisher-confirm-type=correlated"
					+ " (or CachingConnectionFactory.setPublisherConfirmType(ConfirmType.CORRELATED))");
		}
		if (!connectionFactory.isPublisherReturns()) {
			throw new IllegalArgumentException("the connection factory has no publisher returns, so a message no"
					+ " queue takes would be dropped as if sent: set spring.rabbitmq.publisher-returns=true (or"
					+ " CachingConnectionFactory.setPublisherReturns(true))");
		}
		this.template = new RabbitTemplate(connectionFactory);
		this.template.setMandatory(true);
		// a publish that blocks (the broker's resource alarm) holds no consumer's connection
		this.template.setUsePublisherConnection(true);
		this.exchange = exchange;
		this.routingKey = routingKey;
		this.sendTimeout = sendTimeout;
	}

	@Override
	public void forward(ReservedJob job) throws Exception {
		MessageProperties properties = new MessageProperties();
		properties.setMessageId(job.id());
		properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
		String contentType = job.headers().get(ForwardedHeaders.RABBIT_CONTENT_TYPE);
		if (contentType != null) {
			properties.setContentType(contentType);
		}
		ForwardedHeaders.of(job).forEach(properties::setHeader);
		CorrelationData correlation = new CorrelationData(UUID.randomUUID().toString());
		try {
			this.template.send(this.exchange, this.routingKey, new Message(job.payload(), properties), correlation);
			CorrelationData.Confirm confirm = correlation.getFuture()
				.get(this.sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
			ReturnedMessage returned = correlation.getReturned();
			if (returned != null) {
				throw new AmqpException("RabbitMQ returned the message: " + returned.getReplyCode() + " "
						+ returned.getReplyText() + " (exchange '" + returned.getExchange() + "', routing key '"
						+ returned.getRoutingKey() + "')");
			}
			if (!confirm.ack()) {
				// RabbitMQ acknowledges a message no queue takes after returning it; other
				// brokers (Qpid Broker-J) refuse it instead
				throw new AmqpException("The broker refused the message to exchange '" + this.exchange
						+ "' with routing key '" + this.routingKey + "' (negative confirm"
						+ ((confirm.reason() != null) ? ": " + confirm.reason() : "") + ")");
			}
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw (cause instanceof Exception exception) ? exception : ex;
		}
		catch (TimeoutException ex) {
			throw new TimeoutException("RabbitMQ did not confirm the message to exchange '" + this.exchange
					+ "' within " + this.sendTimeout.toMillis()
					+ " ms (it may still arrive, and arrive again on the retry)");
		}
	}

	/**
	 * A message body converted as the application's RabbitTemplate would convert it.
	 * @param body the body's bytes
	 * @param contentType its content type, or {@code null}
	 * @param headers the headers the converter set (such as a JSON converter's type header),
	 * as text
	 */
	record ConvertedMessage(byte[] body, @Nullable String contentType, Map<String, String> headers) {

	}

	/**
	 * Converts a message body as the application's RabbitTemplate's converter would.
	 * @param body the body object
	 * @return the bytes, content type and headers
	 * @throws IllegalArgumentException when the converter sets a header whose value is not
	 * text, a number or a boolean
	 */
	ConvertedMessage convert(Object body) {
		Message message = this.converter.toMessage(body, new MessageProperties());
		Map<String, String> headers = new LinkedHashMap<>();
		message.getMessageProperties().getHeaders().forEach((name, value) -> {
			if (!(value instanceof CharSequence || value instanceof Number || value instanceof Boolean)) {
				throw new IllegalArgumentException("the RabbitTemplate's message converter set header '" + name
						+ "' to a " + ((value != null) ? value.getClass().getName() : "null")
						+ ", which a job cannot keep (text, numbers and booleans only)");
			}
			headers.put(name, value.toString());
		});
		return new ConvertedMessage(message.getBody(), message.getMessageProperties().getContentType(), headers);
	}

	@Override
	public String destination() {
		return "RabbitMQ exchange '" + this.exchange + "' with routing key '" + this.routingKey + "'";
	}

}
