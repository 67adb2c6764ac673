package io.github.delayqueue.rabbit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the RabbitMQ forwarder takes from the application's template, without a broker (a
 * caching connection factory connects on first use).
 */
class RabbitForwarderTests {

	record RefundCheck(String refundId) {

	}

	@Test
	void aJsonConvertersBodyContentTypeAndTypeHeaderAreKeptForTheMessage() {
		CachingConnectionFactory connections = new CachingConnectionFactory("localhost", 1);
		connections.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.CORRELATED);
		connections.setPublisherReturns(true);
		try {
			RabbitForwarder forwarder = new RabbitForwarder(connections, new JacksonJsonMessageConverter(), "refunds",
					"refund.check", Duration.ofSeconds(5));
			RabbitForwarder.ConvertedMessage message = forwarder.convert(new RefundCheck("r-7"));
			assertThat(new String(message.body(), StandardCharsets.UTF_8)).isEqualTo("{\"refundId\":\"r-7\"}");
			assertThat(message.contentType()).isEqualTo("application/json");
			assertThat(message.headers()).containsEntry("__TypeId__", RefundCheck.class.getName());
		}
		finally {
			connections.destroy();
		}
	}

}
