package io.github.delayqueue.forward;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.core.ReservedJob;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Sends jobs to a Kafka topic as records and waits for each record's acknowledgement (as the
 * producer's {@code acks} asks; {@code acks=0} is refused, since nothing would be
 * acknowledged). The record's value is the job's payload bytes, its key the key given to
 * {@link DelayedKafka}, else a field of the JSON payload, else the job id (UTF-8), its headers
 * {@link ForwardedHeaders}.
 *
 * <p>It sends with a producer of its own, made from the producer settings of the
 * application's {@link KafkaTemplate} (servers, acks, security, idempotence) with byte-array
 * serializers, without a transactional id, and with {@code max.block.ms} no longer than the
 * send timeout. {@link #destroy()} closes it.
 */
public final class KafkaForwarder implements JobForwarder, DisposableBean {

	private final DefaultKafkaProducerFactory<byte[], byte[]> producers;

	private final KafkaTemplate<byte[], byte[]> template;

	private final String topic;

	private final @Nullable Integer partition;

	private final String @Nullable [] keyField;

	private final Duration sendTimeout;

	private final JsonMapper json = JsonMapper.builder().build();

	private final Serializer<Object> keySerializer;

	private final Serializer<Object> valueSerializer;

	/**
	 * Creates a forwarder.
	 * @param factory the application's producer factory, whose settings it copies
	 * @param topic the Kafka topic
	 * @param partition the partition, or {@code null} for the partitioner's choice
	 * @param keyField the payload field the key is read from (dots between nested names), or
	 * {@code null} for the job id
	 * @param sendTimeout how long a send waits for its acknowledgement
	 * @throws IllegalArgumentException when the producer settings have {@code acks=0} or a
	 * serializer cannot be made, the message saying the problem, then after ": " the fix
	 */
	public KafkaForwarder(ProducerFactory<?, ?> factory, String topic, @Nullable Integer partition,
			@Nullable String keyField, Duration sendTimeout) {
		Assert.notNull(factory, "factory must not be null");
		Assert.hasText(topic, "topic must not be empty");
		Assert.isTrue(sendTimeout != null && !sendTimeout.isNegative() && !sendTimeout.isZero(),
				"sendTimeout must be positive");
		this.producers = new DefaultKafkaProducerFactory<>(settings(factory, sendTimeout), new ByteArraySerializer(),
				new ByteArraySerializer());
		this.template = new KafkaTemplate<>(this.producers);
		this.topic = topic;
		this.partition = partition;
		this.keyField = (keyField != null) ? keyField.split("\\.") : null;
		this.sendTimeout = sendTimeout;
		this.keySerializer = serializer(factory, true);
		this.valueSerializer = serializer(factory, false);
	}

	@SuppressWarnings("unchecked")
	private static Serializer<Object> serializer(ProducerFactory<?, ?> factory, boolean key) {
		Serializer<?> serializer = key ? factory.getKeySerializerSupplier().get()
				: factory.getValueSerializerSupplier().get();
		if (serializer != null) {
			return (Serializer<Object>) serializer;
		}
		Map<String, Object> settings = factory.getConfigurationProperties();
		Object type = settings.get(key ? ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG
				: ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
		if (type == null) {
			return (topic, data) -> {
				throw new IllegalStateException("The KafkaTemplate's producer factory names no "
						+ (key ? "key" : "value") + " serializer");
			};
		}
		try {
			Class<?> serializerClass = (type instanceof Class<?> c) ? c
					: ClassUtils.forName(type.toString().trim(), KafkaForwarder.class.getClassLoader());
			Serializer<Object> made = (Serializer<Object>) BeanUtils.instantiateClass(serializerClass);
			made.configure(settings, key);
			return made;
		}
		catch (ClassNotFoundException | LinkageError | RuntimeException ex) {
			throw new IllegalArgumentException("the " + (key ? "key" : "value") + " serializer '" + type
					+ "' of the KafkaTemplate's producer factory cannot be made (" + ex.getMessage() + "): check"
					+ " spring.kafka.producer." + (key ? "key" : "value") + "-serializer", ex);
		}
	}

	/**
	 * Serializes a record key as the application's KafkaTemplate would.
	 * @param key the key
	 * @return its bytes ({@code null} for a {@code null} key, as serializers answer)
	 */
	byte @Nullable [] serializeKey(Object key) {
		return this.keySerializer.serialize(this.topic, key);
	}

	/**
	 * Serializes a record value as the application's KafkaTemplate would.
	 * @param value the value
	 * @return its bytes
	 */
	byte @Nullable [] serializeValue(Object value) {
		return this.valueSerializer.serialize(this.topic, value);
	}

	static Map<String, Object> settings(ProducerFactory<?, ?> factory, Duration sendTimeout) {
		Map<String, Object> settings = new HashMap<>(factory.getConfigurationProperties());
		settings.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
		settings.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
		settings.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
		Object acks = settings.get(ProducerConfig.ACKS_CONFIG);
		if (acks != null && "0".equals(acks.toString().trim())) {
			throw new IllegalArgumentException("its producer has acks=0, so Kafka acknowledges nothing and a forwarded"
					+ " job could be lost: set spring.kafka.producer.acks to all (the default) or 1");
		}
		Object clientId = settings.get(ProducerConfig.CLIENT_ID_CONFIG);
		if (clientId != null && !clientId.toString().isEmpty()) {
			settings.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-delayqueue-forward");
		}
		long maxBlock = sendTimeout.toMillis();
		Object configured = settings.get(ProducerConfig.MAX_BLOCK_MS_CONFIG);
		if (configured != null) {
			maxBlock = Math.min(maxBlock, Long.parseLong(configured.toString().trim()));
		}
		settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlock);
		return settings;
	}

	@Override
	public void forward(ReservedJob job) throws Exception {
		ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(this.topic, this.partition, null, key(job),
				job.payload(), headers(job));
		try {
			this.template.send(record).get(this.sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException | KafkaException ex) {
			// Kafka's own error (such as "Topic orders not present in metadata after 500 ms"),
			// not the template's "Send failed" around it, is what the DEAD job shows
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
			if (cause instanceof Exception exception) {
				throw exception;
			}
			throw ex;
		}
		catch (TimeoutException ex) {
			throw new TimeoutException("Kafka did not acknowledge the record for topic '" + this.topic + "' within "
					+ this.sendTimeout.toMillis() + " ms (it may still arrive, and arrive again on the retry)");
		}
	}

	private byte[] key(ReservedJob job) {
		String given = job.headers().get(ForwardedHeaders.KAFKA_KEY);
		if (given != null) {
			return Base64.getDecoder().decode(given);
		}
		if (this.keyField == null) {
			return job.id().getBytes(StandardCharsets.UTF_8);
		}
		String path = String.join(".", this.keyField);
		JsonNode node;
		try {
			node = this.json.readTree(job.payload());
		}
		catch (JacksonException ex) {
			throw new UnforwardableJobException("The record key is read from payload field '" + path
					+ "', but the payload is not JSON: " + ex.getOriginalMessage());
		}
		for (String name : this.keyField) {
			node = (node != null && node.isObject()) ? node.get(name) : null;
		}
		if (node == null || node.isNull() || node.isContainer()) {
			throw new UnforwardableJobException("The record key is read from payload field '" + path
					+ "', which the payload " + ((node == null || node.isNull()) ? "lacks" : "holds no single value in"));
		}
		return node.asString().getBytes(StandardCharsets.UTF_8);
	}

	private static List<Header> headers(ReservedJob job) {
		List<Header> headers = new ArrayList<>();
		ForwardedHeaders.of(job)
			.forEach((name, value) -> headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8))));
		return headers;
	}

	@Override
	public String destination() {
		return "Kafka topic '" + this.topic + "'";
	}

	@Override
	public void destroy() {
		try {
			this.keySerializer.close();
			this.valueSerializer.close();
		}
		finally {
			this.producers.destroy();
		}
	}

}
