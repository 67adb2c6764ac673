package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.sample.Order.Status;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Service;

/**
 * The shop: orders kept in memory (a real shop has a database), the {@code order-close} job
 * scheduled when an order is placed and cancelled when it is paid.
 */
@Service
class OrderService {

	static final String CLOSE_TOPIC = "order-close";

	/** Order events for other services, forwarded to Kafka or RabbitMQ by the kafka or rabbit profile. */
	static final String EVENTS_TOPIC = "order-events";

	private static final Log logger = LogFactory.getLog(OrderService.class);

	private final Map<String, Order> orders = new ConcurrentHashMap<>();

	private final DelayedJobOperations template;

	private final WebhookService webhooks;

	private final Duration closeAfter;

	private final Duration reminderAfter;

	private final boolean forwardsEvents;

	OrderService(DelayedJobOperations template, WebhookService webhooks,
			@Value("${sample.order.close-after}") Duration closeAfter,
			@Value("${sample.order.reminder-after}") Duration reminderAfter, Environment environment) {
		this.template = template;
		this.webhooks = webhooks;
		this.closeAfter = closeAfter;
		this.reminderAfter = reminderAfter;
		// only a forwarded topic has a consumer: without the kafka or rabbit profile no event
		// is scheduled
		this.forwardsEvents = environment.containsProperty("delayqueue.forward." + EVENTS_TOPIC + ".kafka.topic")
				|| environment.containsProperty("delayqueue.forward." + EVENTS_TOPIC + ".rabbit.exchange");
	}

	Order place(String item, BigDecimal amount) {
		String id = "o-" + UUID.randomUUID().toString().substring(0, 8);
		Instant now = Instant.now();
		Order order = new Order(id, item, amount, Status.CREATED, now, now.plus(this.closeAfter), null);
		this.orders.put(id, order);
		// the job carries only the id: the listener reads the order's current state
		this.template.schedule(CLOSE_TOPIC, id, new OrderClose(id), this.closeAfter);
		if (this.forwardsEvents) {
			// sent to the broker when due, with the job id as the record key; cancelled on payment
			this.template.schedule(EVENTS_TOPIC, reminderId(id), new PaymentReminder(id, item, amount),
					this.reminderAfter);
		}
		logger.info("Placed " + id + " (" + item + "); it is closed in " + this.closeAfter + " unless paid");
		return order;
	}

	Optional<Order> find(String id) {
		return Optional.ofNullable(this.orders.get(id));
	}

	List<Order> all() {
		return this.orders.values().stream().sorted((a, b) -> a.placedAt().compareTo(b.placedAt())).toList();
	}

	/**
	 * Pays an order and cancels its close job.
	 * @return the order, or empty when there is none
	 * @throws IllegalStateException when it was closed already
	 */
	Optional<Order> pay(String id) {
		Order paid = this.orders.computeIfPresent(id, (key, order) -> switch (order.status()) {
			case CREATED -> order.settle(Status.PAID, Instant.now());
			case PAID -> order;
			case CLOSED -> throw new IllegalStateException("Order " + id + " was closed at " + order.settledAt());
		});
		if (paid != null && this.template.cancel(CLOSE_TOPIC, id)) {
			logger.info("Paid " + id + ": its close job is cancelled");
		}
		if (paid != null && this.forwardsEvents) {
			this.template.cancel(EVENTS_TOPIC, reminderId(id));
		}
		return Optional.ofNullable(paid);
	}

	/**
	 * Closes an order that is still unpaid; idempotent, as a listener must be (a job can be
	 * delivered more than once).
	 */
	void closeIfUnpaid(String id) {
		Order closed = this.orders.computeIfPresent(id,
				(key, order) -> (order.status() == Status.CREATED) ? order.settle(Status.CLOSED, Instant.now()) : order);
		if (closed != null && closed.status() == Status.CLOSED && this.webhooks.notifyOnce(closed)) {
			logger.info("Closed unpaid order " + id);
		}
	}

	static String reminderId(String orderId) {
		return "payment-reminder-" + orderId;
	}

	/**
	 * The payload of an {@code order-events} job: the event a payment reminder service reads
	 * from the broker.
	 *
	 * @param orderId the unpaid order
	 * @param item what was ordered
	 * @param amount what it costs
	 */
	record PaymentReminder(String orderId, String item, BigDecimal amount) {

	}

	/**
	 * The payload of an {@code order-close} job.
	 *
	 * @param orderId the order to close
	 */
	record OrderClose(String orderId) {

	}

}
