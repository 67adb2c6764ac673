package com.example.shop;

import java.time.Duration;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.annotation.DirtiesContext.ClassMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest
@AutoConfigureTestRedis
@DirtiesContext(classMode = ClassMode.BEFORE_CLASS) // a context of its own, started by this class: its first job is due
@ExtendWith(OutputCaptureExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShopApplicationTests {

	@Autowired
	Checkout checkout;

	@Autowired
	DelayedJobTemplate jobs;

	@Test
	@Order(1) // output is captured per test: this one runs first, while the first job is due
	void theFirstJobRunsFiveSecondsAfterStartUp(CapturedOutput output) {
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(output).contains("Closing order demo-1 unless it was paid"));
		// a finished job is removed from Redis
		await().atMost(Duration.ofSeconds(5)).until(() -> this.jobs.find("order-close", "demo-1").isEmpty());
	}

	@Test
	void placingAnOrderSchedulesItsCloseAndPayingCancelsIt() {
		this.checkout.orderPlaced("o-1");
		assertThat(this.jobs.find("order-close", "o-1")).map(JobInfo::state).hasValue(JobState.DELAYED);
		this.checkout.orderPaid("o-1");
		assertThat(this.jobs.find("order-close", "o-1")).isEmpty();
	}

	@Test
	void aJobDueNowIsRunByTheListener(CapturedOutput output) {
		this.jobs.schedule("order-close", "o-2", new OrderClose("o-2"), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(output).contains("Closing order o-2 unless it was paid"));
	}

}
