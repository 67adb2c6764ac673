package io.github.delayqueue.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.forward.ForwardedHeaders;
import io.github.delayqueue.forward.JobForwarder;
import io.github.delayqueue.forward.UnforwardableJobException;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
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
 * serializers, without a transactional id, with {@code linger.ms=0} (each send is waited for
 * before its handler takes the next job, so lingering only delays it), and with
 * {@code max.block.ms}, {@code request.timeout.ms} and {@code delivery.timeout.ms} no longer
 * than the send timeout, which bounds each whole send. {@link #destroy()} closes it.
 */
public final class KafkaForwarder implements JobForwarder, DisposableBean {

	private final DefaultKafkaProducerFactory<byte[], byte[]> producers;

	private final KafkaTemplate<byte[], byte[]> template;

	private final String topic;

	private final @Nullable Integer partition;

	private final String @Nullable [] keyField;

	private final Duration sendTimeout;

	private final JsonMapper json = JsonMapper.builder().build();

	private final OwnSerializer keySerializer;

	private final OwnSerializer valueSerializer;

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
		this.producers = new DefaultKafkaProducerFactory<>(settings(factory, topic, sendTimeout), new ByteArraySerializer(),
				new ByteArraySerializer());
		this.template = new KafkaTemplate<>(this.producers);
		this.topic = topic;
		this.partition = partition;
		this.keyField = (keyField != null) ? keyField.split("\\.") : null;
		this.sendTimeout = sendTimeout;
		OwnSerializer keySerializer = null;
		try {
			keySerializer = serializer(factory, true);
			this.valueSerializer = serializer(factory, false);
		}
		catch (RuntimeException ex) {
			if (keySerializer != null && keySerializer.own()) {
				keySerializer.serializer().close();
			}
			this.producers.destroy();
			throw ex;
		}
		this.keySerializer = keySerializer;
	}

	/** A serializer and whether the forwarder made it (and so closes it). */
	private record OwnSerializer(Serializer<Object> serializer, boolean own) {

	}

	// NullAway: a serializer was supplied, so there is a supplier
	@SuppressWarnings({"unchecked", "NullAway"})
	private static OwnSerializer serializer(ProducerFactory<?, ?> factory, boolean key) {

		Map<String, Object> settings = factory.getConfigurationProperties();
		Supplier<? extends Serializer<?>> supplier = key ? factory.getKeySerializerSupplier()
				: factory.getValueSerializerSupplier();
		Serializer<?> supplied = (supplier != null) ? supplier.get() : null;
		if (supplied != null) {
			// configured as the factory configures it for each producer it makes (a configured
			// Spring serializer ignores a second configure)
			boolean configure = !(factory instanceof DefaultKafkaProducerFactory<?, ?> defaults)
					|| defaults.isConfigureSerializers();
			if (configure) {
				supplied.configure(settings, key);
			}
			// a supplier that answers the same instance twice hands out the factory's own
			// serializer, used and not closed here; one that makes a new one each time made
			// this one for the forwarder, which closes it (and the second, made to tell)
			Serializer<?> again = supplier.get();
			if (again == supplied) {
				return new OwnSerializer((Serializer<Object>) supplied, false);
			}
			if (again != null) {
				again.close();
			}
			return new OwnSerializer((Serializer<Object>) supplied, true);
		}
		Object type = settings.get(key ? ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG
				: ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
		if (type == null) {
			return new OwnSerializer((topic, data) -> {
				throw new IllegalStateException("The KafkaTemplate's producer factory names no "
						+ (key ? "key" : "value") + " serializer");
			}, false);
		}
		try {
			Class<?> serializerClass = (type instanceof Class<?> c) ? c
					: ClassUtils.forName(type.toString().trim(), KafkaForwarder.class.getClassLoader());
			Serializer<Object> made = (Serializer<Object>) BeanUtils.instantiateClass(serializerClass);
			made.configure(settings, key);
			return new OwnSerializer(made, true);
		}
		catch (ClassNotFoundException | LinkageError | RuntimeException ex) {
			throw new IllegalArgumentException("the " + (key ? "key" : "value") + " serializer '" + type
					+ "' of the KafkaTemplate's producer factory cannot be made (" + ex.getMessage() + "): check"
					+ " spring.kafka.producer." + (key ? "key" : "value") + "-serializer", ex);
		}
	}

	/**
	 * A record serialized as the application's KafkaTemplate would serialize it.
	 * @param key the key's bytes, or {@code null}
	 * @param value the value's bytes
	 * @param headers the headers the serializers added (such as a JSON serializer's type
	 * header), as text
	 */
	record SerializedRecord(byte @Nullable [] key, byte[] value, Map<String, String> headers) {

	}

	/**
	 * Serializes a record as the application's KafkaTemplate would, headers included.
	 * @param key the key, or {@code null} for none
	 * @param value the value
	 * @return the bytes and headers
	 * @throws IllegalArgumentException when the value serializes to {@code null} or a
	 * serializer adds a header whose value is not UTF-8 text (a job keeps text headers only)
	 */
	SerializedRecord serialize(@Nullable Object key, Object value) {
		RecordHeaders headers = new RecordHeaders();
		byte[] keyBytes = (key != null) ? this.keySerializer.serializer().serialize(this.topic, headers, key) : null;
		byte[] valueBytes = this.valueSerializer.serializer().serialize(this.topic, headers, value);
		if (valueBytes == null) {
			throw new IllegalArgumentException("value serialized to null");
		}
		Map<String, String> text = new LinkedHashMap<>();
		for (Header header : headers) {
			String decoded = utf8(header.value());
			if (decoded == null) {
				throw new IllegalArgumentException("the serializers added header '" + header.key()
						+ "' with a value that is not UTF-8 text, which a job cannot keep");
			}
			text.put(header.key(), decoded);
		}
		return new SerializedRecord(keyBytes, valueBytes, text);
	}

	private static @Nullable String utf8(byte @Nullable [] bytes) {
		if (bytes == null) {
			return "";
		}
		try {
			return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
		}
		catch (CharacterCodingException ex) {
			return null;
		}
	}

	static Map<String, Object> settings(ProducerFactory<?, ?> factory, String topic, Duration sendTimeout) {
		Map<String, Object> settings = new HashMap<>(factory.getConfigurationProperties());
		if (settings.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
			throw new IllegalArgumentException("its producer factory names no bootstrap.servers (a ProducerFactory"
					+ " whose getConfigurationProperties() is empty cannot be copied): set"
					+ " spring.kafka.bootstrap-servers, or give the factory its settings as a map");
		}
		settings.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
		settings.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
		settings.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
		Object acks = settings.get(ProducerConfig.ACKS_CONFIG);
		if (acks != null && "0".equals(acks.toString().trim())) {
			throw new IllegalArgumentException("its producer has acks=0, so Kafka acknowledges nothing and a forwarded"
					+ " job could be lost: set spring.kafka.producer.acks to all (the default) or 1");
		}
		Object clientId = settings.get(ProducerConfig.CLIENT_ID_CONFIG);
		settings.put(ProducerConfig.CLIENT_ID_CONFIG,
				((clientId != null && !clientId.toString().isEmpty()) ? clientId + "-" : "") + "delayqueue-forward-"
						+ topic);
		// each send is waited for on its own: lingering for more records to batch only delays it
		settings.put(ProducerConfig.LINGER_MS_CONFIG, 0);
		long timeout = sendTimeout.toMillis();
		settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG,
				Math.min(timeout, millis(settings, ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout)));
		// a record the forwarder stopped waiting for is given up by the producer too, rather than
		// sent later beside the retry's copy (Kafka needs delivery >= linger + request)
		long request = Math.min(millis(settings, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000), timeout);
		settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) request);
		settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, timeout));
		return settings;
	}

	private static long millis(Map<String, Object> settings, String name, long otherwise) {
		Object value = settings.get(name);
		if (value == null) {
			return otherwise;
		}
		try {
			return Long.parseLong(value.toString().trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("its producer's " + name + " is '" + value + "', not a number of"
					+ " milliseconds: set spring.kafka.producer.properties." + name + " to one");
		}
	}

	@Override
	public void forward(ReservedJob job) throws Exception {
		ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(this.topic, this.partition, null, key(job),
				job.payload(), headers(job));
		// the whole send, waiting for metadata included, within the send timeout
		long deadline = System.nanoTime() + this.sendTimeout.toNanos();
		try {
			CompletableFuture<?> sent = this.template.send(record);
			sent.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
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
			try {
				return Base64.getDecoder().decode(given);
			}
			catch (IllegalArgumentException ex) {
				throw new UnforwardableJobException("Header " + ForwardedHeaders.KAFKA_KEY
						+ " holds no Base64 record key: " + ex.getMessage());
			}
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
			if (this.keySerializer.own()) {
				this.keySerializer.serializer().close();
			}
			if (this.valueSerializer.own()) {
				this.valueSerializer.serializer().close();
			}
		}
		finally {
			this.producers.destroy();
		}
	}

}
