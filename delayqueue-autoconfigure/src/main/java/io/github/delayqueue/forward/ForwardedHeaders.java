package io.github.delayqueue.forward;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.listener.DelayQueueHeaders;

/**
 * The headers a forwarded message carries: the job's own headers, then the job's id, topic,
 * due time (ISO-8601) and attempt under the queue's header names, so that a consumer of the
 * broker can deduplicate by {@link DelayQueueHeaders#TOPIC} and {@link DelayQueueHeaders#ID}.
 */
public final class ForwardedHeaders {

	/**
	 * The header a job scheduled by {@link DelayedKafka} keeps its record key in (Base64 of
	 * the serialized key); not forwarded as a header.
	 */
	public static final String KAFKA_KEY = DelayQueueHeaders.PREFIX + "forwardKey";

	/**
	 * The header a job scheduled by {@link DelayedRabbit} keeps its message's content type in;
	 * not forwarded as a header (it is the message's content type).
	 */
	public static final String RABBIT_CONTENT_TYPE = DelayQueueHeaders.PREFIX + "forwardContentType";

	private ForwardedHeaders() {
	}

	/**
	 * The headers of the message a job is forwarded as.
	 * @param job the job
	 * @return the headers, in a stable order
	 */
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
