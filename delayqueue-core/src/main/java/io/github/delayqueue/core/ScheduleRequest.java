package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One job to schedule, its payload serialized. The constructor checks every rule of
 * {@link JobConstraints} except the payload size, which the queue checks.
 *
 * @param topic the topic
 * @param id the job's id, unique within its topic
 * @param payload the serialized payload (not copied)
 * @param delay the delay from Redis's current time, or {@code null} when {@code dueAt} is given
 * @param dueAt the absolute due time, or {@code null} when {@code delay} is given
 * @param ttr the time-to-run, or {@code null} for the queue's default
 * @param maxAttempts the most deliveries, or {@code null} for the queue's default
 * @param onDuplicate what to do when the job exists
 * @param headers the job's own headers, empty for none
 * @param priority the job's priority, or {@code null} for {@value JobConstraints#DEFAULT_PRIORITY}
 */
public record ScheduleRequest(String topic, String id, byte[] payload, @Nullable Duration delay,
		@Nullable Instant dueAt, @Nullable Duration ttr, @Nullable Integer maxAttempts, OnDuplicate onDuplicate,
		Map<String, String> headers, @Nullable Integer priority) {

	public ScheduleRequest {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		JobConstraints.notNull("payload", payload);
		JobConstraints.delayOrDueAt(delay, dueAt);
		if (ttr != null) {
			JobConstraints.ttr(ttr);
		}
		if (maxAttempts != null) {
			JobConstraints.maxAttempts(maxAttempts);
		}
		JobConstraints.notNull("onDuplicate", onDuplicate);
		headers = JobConstraints.headers(headers);
		if (priority != null) {
			JobConstraints.priority(priority);
		}
	}

	/** The job's priority, the default when the request names none. */
	public int effectivePriority() {
		return (this.priority != null) ? this.priority : JobConstraints.DEFAULT_PRIORITY;
	}

	@Override
	public String toString() {
		return "ScheduleRequest[topic=" + this.topic + ", id=" + this.id + ", payload=" + this.payload.length
				+ " bytes, delay=" + this.delay + ", dueAt=" + this.dueAt + ", ttr=" + this.ttr + ", maxAttempts="
				+ this.maxAttempts + ", onDuplicate=" + this.onDuplicate + ", headers=" + this.headers.keySet()
				+ ((this.priority != null) ? ", priority=" + this.priority : "") + "]";
	}

}
