package io.github.delayqueue.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the Kafka forwarder takes from the application's producer factory, without a broker
 * (nothing is sent: a producer connects on its first send).
 */
class KafkaForwarderTests {

	private static Map<String, Object> settings() {
		Map<String, Object> settings = new HashMap<>();
		settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
		settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
		settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
		return settings;
	}

	record Event(String orderId) {

	}

	@Test
	void aJsonSerializersTypeHeaderIsKeptWithTheRecord() {
		DefaultKafkaProducerFactory<String, Object> factory = new DefaultKafkaProducerFactory<>(settings(),
				new StringSerializer(), new JacksonJsonSerializer<>());
		KafkaForwarder forwarder = new KafkaForwarder(factory, "orders", null, null, Duration.ofSeconds(5));
		try {
			KafkaForwarder.SerializedRecord record = forwarder.serialize("k-1", new Event("o-1"));
			assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("k-1");
			assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("{\"orderId\":\"o-1\"}");
			assertThat(record.headers()).containsEntry("__TypeId__", Event.class.getName());
			assertThat(forwarder.serialize(null, new Event("o-2")).key()).isNull();
		}
		finally {
			forwarder.destroy();
		}
	}

	/** A serializer that counts how often it is configured and closed. */
	static final class Counting implements Serializer<Object> {

		static final AtomicInteger configured = new AtomicInteger();

		static final AtomicInteger closed = new AtomicInteger();

		@Override
		public void configure(Map<String, ?> configs, boolean isKey) {
			configured.incrementAndGet();
		}

		@Override
		public byte[] serialize(String topic, Object data) {
			return data.toString().getBytes(StandardCharsets.UTF_8);
		}

		@Override
		public void close() {
			closed.incrementAndGet();
		}

	}

	@Test
	void aSerializerFromASupplierIsConfiguredAndClosedByTheForwarderAndTheFactorysOwnInstanceIsNot() {
		Counting.configured.set(0);
		Counting.closed.set(0);
		DefaultKafkaProducerFactory<String, Object> supplied = new DefaultKafkaProducerFactory<>(settings());
		supplied.setValueSerializerSupplier(Counting::new);
		KafkaForwarder forwarder = new KafkaForwarder(supplied, "orders", null, null, Duration.ofSeconds(5));
		forwarder.destroy();
		// one made and used (configured, then closed), one made to tell a supplier from an instance
		assertThat(Counting.configured).hasValue(1);
		assertThat(Counting.closed).hasValue(2);

		Counting.configured.set(0);
		Counting.closed.set(0);
		DefaultKafkaProducerFactory<String, Object> shared = new DefaultKafkaProducerFactory<>(settings(),
				new StringSerializer(), new Counting());
		// the factory configures its instance for each producer it makes, so does the forwarder
		new KafkaForwarder(shared, "orders", null, null, Duration.ofSeconds(5)).destroy();
		assertThat(Counting.configured).hasValue(1);
		assertThat(Counting.closed).hasValue(0);
	}

	@Test
	void aSerializerThatCannotBeMadeFailsNamingThePropertyAndClosesWhatWasMade() {
		Counting.configured.set(0);
		Counting.closed.set(0);
		Map<String, Object> app = settings();
		app.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, Counting.class);
		app.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "com.example.MissingSerializer");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new KafkaForwarder(new DefaultKafkaProducerFactory<>(app), "orders", null, null,
					Duration.ofSeconds(5)))
			.withMessageStartingWith("the value serializer 'com.example.MissingSerializer' of the KafkaTemplate's"
					+ " producer factory cannot be made")
			.withMessageEndingWith(": check spring.kafka.producer.value-serializer");
		assertThat(Counting.configured).hasValue(1);
		assertThat(Counting.closed).hasValue(1);
	}

	@Test
	void theProducerWaitsNoLongerThanTheSendTimeoutAndGivesUpWhatItStoppedWaitingFor() {
		Map<String, Object> app = settings();
		app.put(ProducerConfig.CLIENT_ID_CONFIG, "shop");
		Map<String, Object> settings = KafkaForwarder.settings(new DefaultKafkaProducerFactory<>(app), "order-events",
				Duration.ofSeconds(5));
		assertThat(settings).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0)
			.containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000L)
			.containsEntry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)
			.containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5_000)
			.containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "shop-delayqueue-forward-order-events")
			.doesNotContainKeys(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
					ProducerConfig.TRANSACTIONAL_ID_CONFIG);
		// a linger of the application's would let the producer send after the forwarder gave up
		app.put(ProducerConfig.LINGER_MS_CONFIG, "20");
		app.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
		assertThat(KafkaForwarder.settings(new DefaultKafkaProducerFactory<>(app), "t", Duration.ofSeconds(5)))
			.containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0)
			.containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5_000);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> KafkaForwarder.settings(new DefaultKafkaProducerFactory<>(Map.of()), "t",
					Duration.ofSeconds(5)))
			.withMessageStartingWith("its producer factory names no bootstrap.servers");
	}

}
