package io.github.delayqueue.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobOperations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Tells a partner's webhook that an order was closed, with delayqueue's retries: the partner
 * here is simulated and can be switched down, so a delivery fails, is retried with back-off,
 * and ends DEAD after {@code sample.webhook.max-attempts}; replaying it from
 * {@code /actuator/delayqueue/webhook} once the partner is up delivers it.
 */
@Service
class WebhookService {

	static final String TOPIC = "webhook";

	private static final Log logger = LogFactory.getLog(WebhookService.class);

	private final DelayedJobOperations template;

	private final Set<String> notified = ConcurrentHashMap.newKeySet();

	private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

	private volatile boolean receiverUp = true;

	private final int maxAttempts;

	WebhookService(DelayedJobOperations template, @Value("${sample.webhook.max-attempts}") int maxAttempts) {
		this.template = template;
		this.maxAttempts = maxAttempts;
	}

	/**
	 * Schedules the webhook of a closed order, once per order.
	 * @return {@code true} the first time
	 */
	boolean notifyOnce(Order order) {
		if (!this.notified.add(order.id())) {
			return false;
		}
		this.template.job(TOPIC, order.id())
			.payload(new Event("order.closed", order.id(), order.settledAt()))
			.delay(Duration.ZERO)
			.maxAttempts(this.maxAttempts)
			.schedule();
		return true;
	}

	@DelayedListener(topic = TOPIC, id = "webhook-sender", backOffInitial = "${sample.webhook.back-off}")
	void send(Event event, DelayedJob<Event> job) {
		if (!this.receiverUp) {
			logger.info("Webhook for " + event.orderId() + " failed on attempt " + job.attempt() + " of "
					+ job.maxAttempts());
			throw new IllegalStateException("partner answered 503 Service Unavailable");
		}
		this.deliveries.add(new Delivery(event, job.attempt(), Instant.now()));
		logger.info("Webhook for " + event.orderId() + " delivered on attempt " + job.attempt());
	}

	void setReceiverUp(boolean up) {
		this.receiverUp = up;
		logger.info("Simulated webhook receiver is " + (up ? "up" : "down"));
	}

	boolean isReceiverUp() {
		return this.receiverUp;
	}

	List<Delivery> deliveries() {
		return List.copyOf(this.deliveries);
	}

	/**
	 * What the partner is told.
	 *
	 * @param type the event type
	 * @param orderId the order
	 * @param at when it happened
	 */
	record Event(String type, String orderId, Instant at) {

	}

	/**
	 * A webhook the partner received.
	 *
	 * @param event the event
	 * @param attempt the attempt that got through
	 * @param deliveredAt when
	 */
	record Delivery(Event event, int attempt, Instant deliveredAt) {

	}

}
