package io.github.delayqueue.sample;

import java.math.BigDecimal;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Places one order at start-up, so that the log shows an {@code order-close} job firing
 * without a single request; off with {@code sample.demo-order=false}.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.demo-order", matchIfMissing = true)
class DemoOrder implements ApplicationRunner {

	private final OrderService orders;

	DemoOrder(OrderService orders) {
		this.orders = orders;
	}

	@Override
	public void run(ApplicationArguments args) {
		this.orders.place("demo order, never paid", new BigDecimal("9.99"));
	}

}
