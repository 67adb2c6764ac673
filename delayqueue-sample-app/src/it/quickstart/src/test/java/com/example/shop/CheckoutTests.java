package com.example.shop;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@AutoConfigureTestRedis
class CheckoutTests {

	@Autowired
	Checkout checkout;

	@Autowired
	DelayedJobTemplate jobs;

	@Test
	void placingAnOrderTwiceKeepsItsFirstCloseJob() {
		// ids of its own: the test classes of one configuration share a context, and so its jobs
		this.checkout.orderPlaced("checkout-1");
		JobInfo first = this.jobs.find("order-close", "checkout-1").orElseThrow();
		this.checkout.orderPlaced("checkout-1");
		assertThat(this.jobs.find("order-close", "checkout-1")).map(JobInfo::dueAt).hasValue(first.dueAt());
		this.checkout.orderPaid("checkout-1");
	}

}
