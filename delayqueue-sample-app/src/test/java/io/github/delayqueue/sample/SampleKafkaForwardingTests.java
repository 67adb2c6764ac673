package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample with its kafka profile, against spring-kafka-test's embedded KRaft broker: an
 * unpaid order's payment reminder arrives on the Kafka topic, a paid order's never does.
 */
@SpringBootTest(properties = { "sample.embedded-redis.enabled=false", "sample.demo-order=false",
		"sample.order.reminder-after=500ms", "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}",
		"delayqueue.http.enabled=false" })
@ActiveProfiles("kafka")
@EmbeddedKafka(partitions = 1, topics = "shop.payment-reminders")
@AutoConfigureTestRedis
class SampleKafkaForwardingTests {

	@Autowired
	private OrderService orders;

	@Autowired
	private EmbeddedKafkaBroker kafka;

	@Test
	void anUnpaidOrdersReminderReachesKafkaAndAPaidOnesNever() {
		String paid = this.orders.place("pen", new BigDecimal("2")).id();
		this.orders.pay(paid);
		String unpaid = this.orders.place("book", new BigDecimal("12.50")).id();

		List<ConsumerRecord<String, String>> records = new ArrayList<>();
		Map<String, Object> settings = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.kafka.getBrokersAsString(),
				ConsumerConfig.GROUP_ID_CONFIG, "sample-" + UUID.randomUUID(),
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings, new StringDeserializer(),
				new StringDeserializer())) {
			consumer.subscribe(List.of("shop.payment-reminders"));
			await().atMost(Duration.ofSeconds(30))
				.until(() -> {
					consumer.poll(Duration.ofMillis(200)).forEach(records::add);
					return !records.isEmpty();
				});
			// the paid order's reminder was due at the same time: a second poll window shows none
			consumer.poll(Duration.ofSeconds(1)).forEach(records::add);
		}
		assertThat(records).singleElement().satisfies((record) -> {
			assertThat(record.key()).isEqualTo(OrderService.reminderId(unpaid));
			assertThat(record.value()).contains("\"orderId\":\"" + unpaid + "\"").contains("\"item\":\"book\"");
			assertThat(new String(record.headers().lastHeader(DelayQueueHeaders.TOPIC).value(), StandardCharsets.UTF_8))
				.isEqualTo("order-events");
		});
	}

}
