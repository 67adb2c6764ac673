package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rate-limited topic consumed by three instances with eight handlers each: the limit holds
 * in every window by the deliveries' own Redis times, every job is delivered, and the
 * consumers wait for the window without polling Redis.
 */
class RateLimitedListenerTests {

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	static class Listener {

		final Queue<DelayedJob<String>> received = new ConcurrentLinkedQueue<>();

		@DelayedListener(topic = "limited", concurrency = "8", rateLimit = "50/1s")
		void handle(DelayedJob<String> job) {
			this.received.add(job);
		}

	}

	/** Counts the reserves that found the window full, per instance. */
	static class Refusals implements DelayQueueObserver {

		final AtomicInteger count = new AtomicInteger();

		@Override
		public void rateLimited(String topic) {
			this.count.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
	static class App {

		@Bean
		Listener listener() {
			return new Listener();
		}

		@Bean
		Refusals refusals() {
			return new Refusals();
		}

	}

	@AfterEach
	void close() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void fiftyASecondAcrossThreeInstancesOfEightHandlersHoldsInEveryWindowAndDeliversAll() {
		RedisTestServer redis = RedisTestServers.shared();
		String namespace = "r" + UUID.randomUUID().toString().substring(0, 8);
		for (int i = 0; i < 3; i++) {
			this.contexts.add(new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
				.properties(redis.springBootProperties())
				.properties("delayqueue.namespace=" + namespace, "delayqueue.timer.lease-ttl=2s",
						"spring.main.banner-mode=off")
				.run());
		}
		DelayedJobTemplate template = this.contexts.get(0).getBean(DelayedJobTemplate.class);
		assertThat(template.getOperations().rateLimit("limited")).contains(RateLimit.parse("50/1s"));
		List<JobBuilder> jobs = new ArrayList<>();
		for (int i = 0; i < 2_000; i++) {
			jobs.add(template.job("limited", "j" + i).payload("x").delay(Duration.ZERO));
		}
		long commandsBefore = totalCommands(redis);
		template.scheduleAll(jobs);

		await().atMost(Duration.ofSeconds(90)).until(() -> received().size() >= 2_000);
		long commands = totalCommands(redis) - commandsBefore;

		List<DelayedJob<String>> all = received();
		assertThat(all).hasSize(2_000);
		assertThat(all.stream().map(DelayedJob::id).distinct().count()).isEqualTo(2_000);
		List<Long> times = all.stream().map((job) -> job.deliveredAt().toEpochMilli()).sorted().toList();
		// the most deliveries in any window of one second, by their Redis times
		int most = 0;
		int start = 0;
		for (int end = 0; end < times.size(); end++) {
			while (times.get(end) - times.get(start) >= 1_000) {
				start++;
			}
			most = Math.max(most, end - start + 1);
		}
		assertThat(most).as("deliveries in the busiest second").isLessThanOrEqualTo(50);
		assertThat(most).as("deliveries in the busiest second").isGreaterThanOrEqualTo(40);
		long seconds = Duration.between(Instant.ofEpochMilli(times.get(0)), Instant.ofEpochMilli(times.get(1_999)))
			.toSeconds() + 1;
		int refused = this.contexts.stream().mapToInt((context) -> context.getBean(Refusals.class).count.get()).sum();
		System.out.println("Rate limit 50/1s, 3 instances x 8: 2,000 jobs in " + seconds + " s, busiest second " + most
				+ ", refused reserves " + refused + ", Redis commands " + commands);
		// waiting for a window costs each consumer loop one wake-up per round of grants, not a
		// poll: each of the three instances' loops waits for the permits it wants (8), so a
		// window of 50 opens in about 7 rounds, each refusing the loops that came second
		assertThat(refused).as("reserves that found the window full, in " + seconds + " s")
			.isLessThanOrEqualTo((int) (seconds * 3 * 10));
		assertThat(commands / 2_000).as("Redis commands per job (" + commands + " in all)").isLessThan(40);
		this.contexts.forEach(ConfigurableApplicationContext::close);
		QueueInvariant.assertHolds(redis, namespace);
	}

	private List<DelayedJob<String>> received() {
		List<DelayedJob<String>> all = new ArrayList<>();
		for (ConfigurableApplicationContext context : this.contexts) {
			if (context.isActive()) {
				all.addAll(context.getBean(Listener.class).received);
			}
		}
		return all;
	}

	private static long totalCommands(RedisTestServer redis) {
		try (StatefulRedisConnection<String, String> connection = redis.connect()) {
			String info = connection.sync().info("stats");
			for (String line : info.split("\r?\n")) {
				if (line.startsWith("total_commands_processed:")) {
					return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
			throw new IllegalStateException("no total_commands_processed in INFO stats");
		}
	}

}
