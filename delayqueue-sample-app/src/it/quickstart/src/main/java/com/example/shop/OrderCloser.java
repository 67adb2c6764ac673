package com.example.shop;

import io.github.delayqueue.annotation.DelayedListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

@Component
public class OrderCloser {

	private static final Logger logger = LoggerFactory.getLogger(OrderCloser.class);

	// returns: the job is finished; throws: it is retried after a back-off, at last DEAD
	@DelayedListener(topic = "order-close")
	public void close(OrderClose job) {
		// a job may be delivered more than once: check the order's state, close it only if unpaid
		logger.info("Closing order {} unless it was paid", job.orderId());
	}

}
