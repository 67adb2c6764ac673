package io.github.delayqueue.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A runnable application that shows delayqueue at work: it schedules a few reminders and a
 * {@code @DelayedListener} prints each one when it is due. Without {@code spring.data.redis.*} settings
 * and with nothing answering on localhost:6379 it starts an embedded Redis
 * ({@link EmbeddedRedisEnvironmentPostProcessor}).
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
