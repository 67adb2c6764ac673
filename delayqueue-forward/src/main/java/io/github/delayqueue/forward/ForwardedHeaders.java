package io.github.delayqueue.forward;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.listener.DelayQueueHeaders;

/**
 * The headers a forwarded message carries: the job's own, then its id, topic, due time and
 * attempt under the queue's header names; and the topic lookup the broker modules share.
 */
public final class ForwardedHeaders {

	/** The header a job scheduled for Kafka keeps its record key in (Base64); not forwarded. */
	public static final String KAFKA_KEY = DelayQueueHeaders.PREFIX + "forwardKey";

	/** The header a job scheduled for RabbitMQ keeps its content type in; not forwarded. */
	public static final String RABBIT_CONTENT_TYPE = DelayQueueHeaders.PREFIX + "forwardContentType";

	private ForwardedHeaders() {
	}

	/**
	 * The forwarder of a topic, for the helpers that schedule broker messages.
	 * @param <F> the forwarder type
	 * @param forwarders the forwarders of one broker, by forwarded topic
	 * @param topic the topic
	 * @param broker the broker's name, for the message
	 * @param property the property that forwards a topic there, after the topic
	 * @return the forwarder
	 * @throws IllegalArgumentException when the topic is not forwarded there
	 */
	public static <F> F forwarder(Map<String, F> forwarders, String topic, String broker, String property) {
		F forwarder = forwarders.get(topic);
		if (forwarder == null) {
			throw new IllegalArgumentException("topic '" + topic + "' is not forwarded to " + broker + ": set"
					+ " delayqueue.forward." + topic + "." + property + (forwarders.isEmpty() ? ""
							: " (forwarded to " + broker + ": "
									+ String.join(", ", forwarders.keySet().stream().sorted().toList()) + ")"));
		}
		return forwarder;
	}

	/**
	 * The headers of the message a job is forwarded as.
	 * @param job the job
	 * @return the headers, in a stable order
	 */
	@SuppressWarnings("NullAway") // a forwarded job comes from a reserve, which sets its due time
	public static Map<String, String> of(ReservedJob job) {
		Map<String, String> headers = new LinkedHashMap<>();
		job.headers().forEach((name, value) -> {
			if (!name.equals(KAFKA_KEY) && !name.equals(RABBIT_CONTENT_TYPE)) {
				headers.put(name, value);
			}
		});
		headers.put(DelayQueueHeaders.ID, job.id());
		headers.put(DelayQueueHeaders.TOPIC, job.topic());
		headers.put(DelayQueueHeaders.DUE_AT, job.dueAt().toString());
		headers.put(DelayQueueHeaders.ATTEMPT, Integer.toString(job.attempt()));
		return headers;
	}

}
