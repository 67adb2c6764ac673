package io.github.delayqueue.kafka;

import java.util.Base64;
import java.util.Map;

import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.forward.ForwardedHeaders;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Schedules Kafka records for later: "send this record to the topic in 30 minutes". The key
 * and value are serialized now, by the serializers of the application's {@code KafkaTemplate}
 * that the topic's forwarding uses, and kept in the job with the headers the serializers add
 * (such as a JSON serializer's type header); at its due time the forwarding
 * container sends them, with the job's headers, and finishes the job once Kafka acknowledged
 * the record. Until then {@link DelayedJobOperations#cancel} cancels it by its id:
 *
 * <pre class="code">
 * // delayqueue.forward.order-events.kafka.topic=orders
 * delayedKafka.record("order-events", "close-42", orderId, new OrderClosed(orderId))
 *     .delay(Duration.ofMinutes(30))
 *     .header("tenant", "acme")
 *     .schedule();
 * </pre>
 *
 * Only topics forwarded to Kafka ({@code delayqueue.forward.<topic>.kafka.*}) are accepted.
 * Thread-safe.
 */
public class DelayedKafka {

	/** The longest serialized key: its Base64 must fit in one job header. */
	public static final int MAX_KEY_BYTES = JobConstraints.MAX_HEADER_VALUE_LENGTH / 4 * 3;

	private final DelayedJobOperations jobs;

	private final Map<String, KafkaForwarder> forwarders;

	/**
	 * Creates the helper.
	 * @param jobs schedules the jobs
	 * @param forwarders the Kafka forwarders by forwarded topic
	 */
	public DelayedKafka(DelayedJobOperations jobs, Map<String, KafkaForwarder> forwarders) {
		Assert.notNull(jobs, "jobs must not be null");
		Assert.notNull(forwarders, "forwarders must not be null");
		this.jobs = jobs;
		this.forwarders = Map.copyOf(forwarders);
	}

	/**
	 * Starts a job that sends one record: set its delay or due time (and any other option,
	 * headers included), then {@link JobBuilder#schedule()}.
	 * @param topic the forwarded topic (the queue's topic, not Kafka's)
	 * @param id the job id, unique within the topic: cancel, find and duplicates use it
	 * @param key the record key, or {@code null} for the forwarding's own key (a payload
	 * field, else the job id)
	 * @param value the record value, not null
	 * @return the job's builder, its payload and key set
	 * @throws IllegalArgumentException when the topic is not forwarded to Kafka, the value is
	 * null or serializes to null, the serialized key is longer than {@value #MAX_KEY_BYTES}
	 * bytes, or a serializer adds a header that is not UTF-8 text; the serializer's own
	 * exception when it cannot serialize
	 */
	public JobBuilder record(String topic, String id, @Nullable Object key, Object value) {
		KafkaForwarder forwarder = ForwardedHeaders.forwarder(this.forwarders, topic, "Kafka", "kafka.topic");
		Assert.notNull(value, "value must not be null");
		KafkaForwarder.SerializedRecord record = forwarder.serialize(key, value);
		JobBuilder job = this.jobs.job(topic, id).payload(record.value());
		// a serializer's own headers (such as a JSON serializer's type header) travel with it
		try {
			JobConstraints.headers(record.headers());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("the KafkaTemplate's serializers added a header a job cannot keep ("
					+ ex.getMessage() + "); configure them not to add it, or schedule the record's bytes yourself", ex);
		}
		record.headers().forEach(job::header);
		if (record.key() != null) {
			if (record.key().length > MAX_KEY_BYTES) {
				throw new IllegalArgumentException("key must serialize to at most " + MAX_KEY_BYTES + " bytes, was "
						+ record.key().length);
			}
			job.header(ForwardedHeaders.KAFKA_KEY, Base64.getEncoder().encodeToString(record.key()));
		}
		return job;
	}

}
