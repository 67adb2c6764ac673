package io.github.delayqueue.forward;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueForwardingAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueMetricsAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerContainerFactoryConfigurer;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.listener.DefaultDelayedJobErrorHandler;
import io.github.delayqueue.listener.DelayedJobErrorHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import io.github.delayqueue.listener.InterceptedOperations;
import io.github.delayqueue.test.RedisTestServer;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The applications the forwarding tests run (with the broker module's auto-configuration
 * added), and what they read from Redis.
 */
public final class ForwardingApps {

	private ForwardingApps() {
	}

	/**
	 * An application with the queue, listeners, forwarding, the queue's metrics (the broker's
	 * template and forwarders come from its module's test).
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
			DelayQueueForwardingAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class })
	public static class App {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	/**
	 * The same application whose finishes fail: a process that dies after the broker's
	 * acknowledgement and before the finish reaches Redis.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
			DelayQueueForwardingAutoConfiguration.class })
	public static class DyingApp {

		/** Finish calls that did not reach Redis. */
		public static final AtomicInteger unfinished = new AtomicInteger();

		@Bean(name = ForwardingEndpoint.CONTAINER_FACTORY_BEAN_NAME)
		DefaultDelayedListenerContainerFactory delayQueueForwardingContainerFactory(DelayQueueOperations operations,
				JobPayloadConverter converter, DelayedListenerContainerFactoryConfigurer configurer) {
			InterceptedOperations intercepted = new InterceptedOperations(operations);
			InterceptedOperations.Interceptor die = (args, invocation) -> {
				unfinished.incrementAndGet();
				throw new IllegalStateException("the process died before the finish");
			};
			intercepted.intercept("finish", die);
			intercepted.intercept("finishAndReserve", die);
			DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(
					intercepted.operations(), converter);
			configurer.configure(factory);
			return factory;
		}

	}

	/**
	 * The application's beans for its own listeners: an interceptor that skips every job (a
	 * skip finishes a job) and an error handler whose recoverer finishes what fails. Neither
	 * may reach a forwarder, or a job could be finished without the broker having it.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(App.class)
	public static class AppWithListenerBeans {

		public static final AtomicInteger skipped = new AtomicInteger();

		@Bean
		DelayedJobInterceptor skipEverything() {
			return new DelayedJobInterceptor() {

				@Override
				public boolean intercept(ReservedJob job) {
					skipped.incrementAndGet();
					return false;
				}

			};
		}

		@Bean
		DelayedJobErrorHandler recoverEverything() {
			return new DefaultDelayedJobErrorHandler(new FixedBackOff(0, 0), List.of(), (job, failure) -> {
			});
		}

	}

	/**
	 * Schedules jobs {@code o0}, {@code o1}, ... of topic {@code order-events}, payload
	 * {@code {"orderId":n}}, header {@code tenant=t<n % 3>}, due 1 to 10 seconds from now, in
	 * bulk calls of 1,000.
	 * @return each job's delay in milliseconds, by id
	 */
	public static Map<String, Long> scheduleOrders(DelayedJobTemplate template, int count) {
		Map<String, Long> delays = new HashMap<>();
		List<JobBuilder> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			long delay = ThreadLocalRandom.current().nextLong(1_000, 10_001);
			delays.put("o" + i, delay);
			jobs.add(template.job("order-events", "o" + i)
				.payload(Map.of("orderId", i))
				.header("tenant", "t" + (i % 3))
				.delay(Duration.ofMillis(delay)));
			if (jobs.size() == 1_000 || i == count - 1) {
				template.scheduleAll(jobs);
				jobs.clear();
			}
		}
		return delays;
	}

	/** Redis's clock, in milliseconds. */
	public static long redisMillis(RedisTestServer redis) {
		try (StatefulRedisConnection<String, String> connection = redis.connect()) {
			List<String> time = connection.sync().time();
			return Long.parseLong(time.get(0)) * 1_000 + Long.parseLong(time.get(1)) / 1_000;
		}
	}

	/** The jobs the namespace holds, in any state. */
	public static long jobsInRedis(RedisTestServer redis, String namespace) {
		long jobs = 0;
		try (StatefulRedisConnection<String, String> connection = redis.connect()) {
			for (int bucket = 0; bucket < 16; bucket++) {
				jobs += connection.sync().hlen("{" + namespace + ":" + bucket + "}:jobs");
			}
		}
		return jobs;
	}

}
