package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.sample.Order.Status;
import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The order-close listener tested as an application tests its own listeners:
 * {@code @AutoConfigureTestRedis} gives the application a test Redis and a namespace of its
 * own, the test schedules jobs through the application's code and awaits what the listener
 * does.
 */
@SpringBootTest(properties = { "sample.embedded-redis.enabled=false", "sample.demo-order=false",
		"sample.order.close-after=1s" })
@AutoConfigureTestRedis
class OrderCloseListenerTests {

	@Autowired
	OrderService orders;

	@Autowired
	DelayedJobTemplate jobs;

	@Test
	void unpaidOrderIsClosedByTheListenerWhenItsCloseJobIsDue() {
		Order order = this.orders.place("book", new BigDecimal("12.50"));
		assertThat(this.jobs.find(OrderService.CLOSE_TOPIC, order.id())).map(JobInfo::state)
			.hasValue(JobState.DELAYED);
		await().atMost(Duration.ofSeconds(15))
			.untilAsserted(() -> assertThat(this.orders.find(order.id())).map(Order::status).hasValue(Status.CLOSED));
		// the sample keeps its finished close jobs (delayqueue.retention.order-close.completed)
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.jobs.find(OrderService.CLOSE_TOPIC, order.id())).map(JobInfo::state)
				.hasValue(JobState.COMPLETED));
	}

	@Test
	void payingAnOrderCancelsItsCloseJob() {
		Order order = this.orders.place("pen", BigDecimal.ONE);
		this.orders.pay(order.id());
		assertThat(this.jobs.find(OrderService.CLOSE_TOPIC, order.id())).isEmpty();
		assertThat(this.orders.find(order.id())).map(Order::status).hasValue(Status.PAID);
	}

}
