package io.github.delayqueue.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A runnable application that shows delayqueue at work on an order flow: placing an order
 * schedules an {@code order-close} job, paying cancels it, an unpaid order is closed by a
 * {@code @DelayedListener}; each closed order notifies a flaky webhook receiver that retries
 * with back-off and ends in the dead-letter set while the receiver is down. Without
 * {@code spring.data.redis.*} settings and with nothing answering on localhost:6379 it starts
 * an embedded Redis ({@link EmbeddedRedisEnvironmentPostProcessor}).
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
