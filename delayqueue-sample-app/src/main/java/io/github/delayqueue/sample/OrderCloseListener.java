package io.github.delayqueue.sample;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.sample.OrderService.OrderClose;

import org.springframework.stereotype.Component;

/**
 * Closes orders that were not paid in time. Returning normally finishes the job.
 */
@Component
class OrderCloseListener {

	private final OrderService orders;

	OrderCloseListener(OrderService orders) {
		this.orders = orders;
	}

	@DelayedListener(topic = OrderService.CLOSE_TOPIC, id = "order-closer", concurrency = "4")
	void close(OrderClose job) {
		this.orders.closeIfUnpaid(job.orderId());
	}

}
