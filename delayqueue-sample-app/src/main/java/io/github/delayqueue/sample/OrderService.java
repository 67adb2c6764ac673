package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.sample.Order.Status;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * The shop: orders kept in memory (a real shop has a database), the {@code order-close} job
 * scheduled when an order is placed and cancelled when it is paid.
 */
@Service
class OrderService {

	static final String CLOSE_TOPIC = "order-close";

	private static final Log logger = LogFactory.getLog(OrderService.class);

	private final Map<String, Order> orders = new ConcurrentHashMap<>();

	private final DelayedJobTemplate template;

	private final WebhookService webhooks;

	private final Duration closeAfter;

	OrderService(DelayedJobTemplate template, WebhookService webhooks,
			@Value("${sample.order.close-after}") Duration closeAfter) {
		this.template = template;
		this.webhooks = webhooks;
		this.closeAfter = closeAfter;
	}

	Order place(String item, BigDecimal amount) {
		String id = "o-" + UUID.randomUUID().toString().substring(0, 8);
		Instant now = Instant.now();
		Order order = new Order(id, item, amount, Status.CREATED, now, now.plus(this.closeAfter), null);
		this.orders.put(id, order);
		// the job carries only the id: the listener reads the order's current state
		this.template.schedule(CLOSE_TOPIC, id, new OrderClose(id), this.closeAfter);
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

	/**
	 * The payload of an {@code order-close} job.
	 *
	 * @param orderId the order to close
	 */
	record OrderClose(String orderId) {

	}

}
