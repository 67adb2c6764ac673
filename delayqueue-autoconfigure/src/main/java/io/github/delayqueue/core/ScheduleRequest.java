package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * One job to schedule, with its payload already serialized. The constructor checks every
 * rule of {@link JobConstraints} except the payload size, which the queue checks against
 * its configured limit.
 *
 * @param topic the topic
 * @param id the job's id, unique within its topic
 * @param payload the serialized payload (not copied: do not change it afterwards)
 * @param delay the delay from Redis's current time, or {@code null} when {@code dueAt} is given
 * @param dueAt the absolute due time, or {@code null} when {@code delay} is given
 * @param ttr the time-to-run, or {@code null} for the queue's default
 * @param maxAttempts the most deliveries, or {@code null} for the queue's default
 * @param onDuplicate what to do when the job exists
 * @param headers the job's own headers (see {@link JobConstraints#headers}), stored with it
 * and given to its listener; empty for none (a job without headers stores nothing for them)
 */
public record ScheduleRequest(String topic, String id, byte[] payload, Duration delay, Instant dueAt, Duration ttr,
		Integer maxAttempts, OnDuplicate onDuplicate, Map<String, String> headers) {

	/**
	 * A request without headers.
	 * @param topic the topic
	 * @param id the job's id, unique within its topic
	 * @param payload the serialized payload (not copied: do not change it afterwards)
	 * @param delay the delay from Redis's current time, or {@code null} when {@code dueAt} is given
	 * @param dueAt the absolute due time, or {@code null} when {@code delay} is given
	 * @param ttr the time-to-run, or {@code null} for the queue's default
	 * @param maxAttempts the most deliveries, or {@code null} for the queue's default
	 * @param onDuplicate what to do when the job exists
	 */
	public ScheduleRequest(String topic, String id, byte[] payload, Duration delay, Instant dueAt, Duration ttr,
			Integer maxAttempts, OnDuplicate onDuplicate) {
		this(topic, id, payload, delay, dueAt, ttr, maxAttempts, onDuplicate, Map.of());
	}

	public ScheduleRequest {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		JobConstraints.notNull("payload", payload);
		if ((delay == null) == (dueAt == null)) {
			throw new IllegalArgumentException("exactly one of delay and dueAt must be given");
		}
		if (delay != null) {
			JobConstraints.delay(delay);
		}
		else {
			JobConstraints.dueAt(dueAt);
		}
		if (ttr != null) {
			JobConstraints.ttr(ttr);
		}
		if (maxAttempts != null) {
			JobConstraints.maxAttempts(maxAttempts);
		}
		JobConstraints.notNull("onDuplicate", onDuplicate);
		headers = JobConstraints.headers(headers);
	}

	@Override
	public String toString() {
		return "ScheduleRequest[topic=" + this.topic + ", id=" + this.id + ", payload=" + this.payload.length
				+ " bytes, delay=" + this.delay + ", dueAt=" + this.dueAt + ", ttr=" + this.ttr + ", maxAttempts="
				+ this.maxAttempts + ", onDuplicate=" + this.onDuplicate + ", headers=" + this.headers.keySet() + "]";
	}

}
