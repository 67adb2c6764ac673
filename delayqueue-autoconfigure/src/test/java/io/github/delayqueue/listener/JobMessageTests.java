package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;

import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.MessageBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The message a handler method gets for a job.
 */
class JobMessageTests {

	@Test
	void aJobsMessageCarriesItsPayloadItsOwnHeadersAndTheQueuesHeaders() {
		Instant due = Instant.parse("2026-11-25T10:00:00Z");
		ReservedJob job = new ReservedJob("orders", "42", "{}".getBytes(), 2, 5, due, due.minusSeconds(60),
				due.plusMillis(3), due.plusSeconds(33), Duration.ofSeconds(30), 7L,
				Map.of("traceparent", "00-abc-def-01", "tenant", "acme"));
		Message<byte[]> message = JobInvoker.message(job);
		assertThat(message.getPayload()).isEqualTo("{}".getBytes());
		Map<String, Object> headers = new HashMap<>(message.getHeaders());
		assertThat(headers.remove(MessageHeaders.ID)).isNotNull();
		assertThat(headers.remove(MessageHeaders.TIMESTAMP)).isNotNull();
		assertThat(headers).containsOnly(Map.entry("traceparent", "00-abc-def-01"), Map.entry("tenant", "acme"),
				Map.entry(DelayedJobArgumentResolver.JOB_HEADER, job), Map.entry(DelayQueueHeaders.TOPIC, "orders"),
				Map.entry(DelayQueueHeaders.ID, "42"), Map.entry(DelayQueueHeaders.ATTEMPT, 2),
				Map.entry(DelayQueueHeaders.MAX_ATTEMPTS, 5), Map.entry(DelayQueueHeaders.DUE_AT, due),
				Map.entry(DelayQueueHeaders.CREATED_AT, due.minusSeconds(60)),
				Map.entry(DelayQueueHeaders.DELIVERED_AT, due.plusMillis(3)),
				Map.entry(DelayQueueHeaders.RESERVED_UNTIL, due.plusSeconds(33)),
				Map.entry(DelayQueueHeaders.TTR, Duration.ofSeconds(30)),
				Map.entry(DelayQueueHeaders.RESERVATION_TOKEN, 7L));
	}

	/**
	 * The headers a {@code MessageBuilder} made, before the message was built without it: the
	 * same, whatever the job holds (here also an own header of a queue header's name, which an
	 * older version's payload could carry and which a job that lacks that time drops).
	 */
	@Test
	void theHeadersAreTheOnesAMessageBuilderMade() {
		Instant due = Instant.parse("2026-11-25T10:00:00Z");
		for (ReservedJob job : List.of(
				new ReservedJob("orders", "42", "{}".getBytes(), 2, 5, due, due.minusSeconds(60), due.plusMillis(3),
						due.plusSeconds(33), Duration.ofSeconds(30), 7L, Map.of("tenant", "acme")),
				new ReservedJob("orders", "43", new byte[0], 1, 3, null, null, null, null, null, 1L,
						Map.of(DelayQueueHeaders.TTR, "30s", "tenant", "acme")),
				new ReservedJob("orders", "44", new byte[0], 1, 3, null, null, null, null, null, 1L, Map.of()))) {
			MessageBuilder<byte[]> builder = MessageBuilder.withPayload(job.payload());
			job.headers().forEach(builder::setHeader);
			Message<byte[]> built = builder.setHeader(DelayedJobArgumentResolver.JOB_HEADER, job)
				.setHeader(DelayQueueHeaders.TOPIC, job.topic())
				.setHeader(DelayQueueHeaders.ID, job.id())
				.setHeader(DelayQueueHeaders.ATTEMPT, job.attempt())
				.setHeader(DelayQueueHeaders.MAX_ATTEMPTS, job.maxAttempts())
				.setHeader(DelayQueueHeaders.DUE_AT, job.dueAt())
				.setHeader(DelayQueueHeaders.CREATED_AT, job.createdAt())
				.setHeader(DelayQueueHeaders.DELIVERED_AT, job.deliveredAt())
				.setHeader(DelayQueueHeaders.RESERVED_UNTIL, job.reservedUntil())
				.setHeader(DelayQueueHeaders.TTR, job.ttr())
				.setHeader(DelayQueueHeaders.RESERVATION_TOKEN, job.token())
				.build();
			assertThat(withoutIdAndTimestamp(JobInvoker.message(job))).as(job.id())
				.isEqualTo(withoutIdAndTimestamp(built));
		}
	}

	private static Map<String, Object> withoutIdAndTimestamp(Message<?> message) {
		Map<String, Object> headers = new HashMap<>(message.getHeaders());
		headers.remove(MessageHeaders.ID);
		headers.remove(MessageHeaders.TIMESTAMP);
		return headers;
	}

	@Test
	void theTimesAJobLacksAreNoHeaders() {
		ReservedJob job = new ReservedJob("orders", "43", new byte[0], 1, 3, null, null, null, null, null, 1L, Map.of());
		MessageHeaders headers = JobInvoker.message(job).getHeaders();
		assertThat(headers).doesNotContainKeys(DelayQueueHeaders.DUE_AT, DelayQueueHeaders.CREATED_AT,
				DelayQueueHeaders.DELIVERED_AT, DelayQueueHeaders.RESERVED_UNTIL, DelayQueueHeaders.TTR);
		assertThat(headers).containsEntry(DelayQueueHeaders.ATTEMPT, 1).containsEntry(DelayQueueHeaders.ID, "43");
		// two messages of one job are two messages
		assertThat(JobInvoker.message(job).getHeaders().getId()).isNotEqualTo(headers.getId());
	}

}
