package io.github.delayqueue.rabbit;

import java.util.Map;

import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.forward.ForwardedHeaders;

import org.springframework.util.Assert;

/**
 * Schedules RabbitMQ messages for later: "publish this message in 30 minutes". The body is
 * converted now, by the message converter of the application's {@code RabbitTemplate} that
 * the topic's forwarding uses (a JSON converter writes the JSON, its content type and type
 * header), and kept in the job; at its due time the forwarding container publishes it to the
 * topic's exchange and routing key, with the job's headers, and finishes the job once RabbitMQ
 * confirmed it. Until then {@link DelayedJobOperations#cancel} cancels it by its id:
 *
 * <pre class="code">
 * // delayqueue.forward.refund-checks.rabbit.exchange=refunds
 * delayedRabbit.message("refund-checks", "refund-7", new RefundCheck("r-7"))
 *     .delay(Duration.ofHours(24))
 *     .schedule();
 * </pre>
 *
 * Only topics forwarded to RabbitMQ ({@code delayqueue.forward.<topic>.rabbit.*}) are
 * accepted. Thread-safe.
 */
public class DelayedRabbit {

	private final DelayedJobOperations jobs;

	private final Map<String, RabbitForwarder> forwarders;

	/**
	 * Creates the helper.
	 * @param jobs schedules the jobs
	 * @param forwarders the RabbitMQ forwarders by forwarded topic
	 */
	public DelayedRabbit(DelayedJobOperations jobs, Map<String, RabbitForwarder> forwarders) {
		Assert.notNull(jobs, "jobs must not be null");
		Assert.notNull(forwarders, "forwarders must not be null");
		this.jobs = jobs;
		this.forwarders = Map.copyOf(forwarders);
	}

	/**
	 * Starts a job that publishes one message: set its delay or due time (and any other
	 * option, headers included), then {@link JobBuilder#schedule()}.
	 * @param topic the forwarded topic (the queue's topic)
	 * @param id the job id, unique within the topic; also the message id
	 * @param body the message body, converted by the RabbitTemplate's message converter
	 * @return the job's builder, its payload and content type set
	 * @throws IllegalArgumentException when the topic is not forwarded to RabbitMQ, the body is
	 * null, or the converter sets a header a job cannot keep
	 */
	public JobBuilder message(String topic, String id, Object body) {
		RabbitForwarder forwarder = ForwardedHeaders.forwarder(this.forwarders, topic, "RabbitMQ", "rabbit.exchange");
		Assert.notNull(body, "body must not be null");
		RabbitForwarder.ConvertedMessage message = forwarder.convert(body);
		try {
			JobConstraints.headers(message.headers());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("the RabbitTemplate's message converter set a header a job cannot keep ("
					+ ex.getMessage() + ")", ex);
		}
		JobBuilder job = this.jobs.job(topic, id).payload(message.body());
		message.headers().forEach(job::header);
		if (message.contentType() != null) {
			job.header(ForwardedHeaders.RABBIT_CONTENT_TYPE, message.contentType());
		}
		return job;
	}

}
