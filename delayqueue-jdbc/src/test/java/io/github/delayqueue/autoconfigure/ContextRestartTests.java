package io.github.delayqueue.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.delayqueue.actuate.DelayQueueSampler;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobWrite;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.listener.JobOutcome;
import io.github.delayqueue.outbox.DelayQueueOutboxAutoConfiguration;
import io.github.delayqueue.outbox.DelayQueueOutboxPropertiesAutoConfiguration;
import io.github.delayqueue.outbox.JdbcJobOutbox;
import io.github.delayqueue.outbox.JobOutboxRecovery;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.RedisJobOutcomeStream;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A context {@code stop()} then {@code start()}, as Spring supports for every
 * {@link SmartLifecycle}: each of ours stops, starts again and does its work again.
 */
@ExtendWith(RedisTestExtension.class)
class ContextRestartTests {

	@Test
	void everyLifecycleOfOursStopsStartsAgainAndKeepsWorking(RedisTestServer redis) {
		String namespace = "restart" + System.nanoTime();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
					DelayQueueMetricsAutoConfiguration.class, DelayQueueOutboxAutoConfiguration.class,
					DelayQueueOutboxPropertiesAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					TransactionAutoConfiguration.class))
			.withUserConfiguration(Listeners.class)
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=" + namespace, "spring.datasource.generate-unique-name=true",
					"delayqueue.listener.outcome-stream=true", "delayqueue.metrics.sample-interval=100ms",
					"delayqueue.outbox.enabled=true", "delayqueue.outbox.recovery-interval=100ms",
					"delayqueue.outbox.stranded-after=100ms", "delayqueue.recurring.tick.topic=ticks",
					"delayqueue.recurring.tick.every=1s", "delayqueue.recurring.tick.payload=t")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Listeners listeners = context.getBean(Listeners.class);
				List<SmartLifecycle> ours = List.of(context.getBean(RedisDelayQueue.class),
						context.getBean(DelayedListenerEndpointRegistry.class),
						context.getBean(DelayedListenerEndpointRegistry.class).getListenerContainer("orders"),
						context.getBean(RedisJobOutcomeStream.class), context.getBean(RecurringJobsReconciler.class),
						context.getBean(JobOutboxRecovery.class), context.getBean(DelayQueueSampler.class),
						context.getBean(DelayedJobTemplate.class));
				AtomicInteger samples = new AtomicInteger();
				context.getBean(DelayQueueSampler.class).addListener((stats) -> samples.incrementAndGet());
				RecurringJobs recurring = context.getBean(RecurringJobs.class);
				for (int round = 0; round < 2; round++) {
					// the declared recurring job removed: the reconciler's start puts it again
					assertThat(recurring.delete("tick")).isTrue();
					context.stop();
					assertThat(ours).allSatisfy((lifecycle) -> assertThat(lifecycle.isRunning())
						.as(lifecycle.getClass().getSimpleName() + " stopped")
						.isFalse());
					// while stopped (Redis's connection factory too), a transaction's write is
					// left in the outbox as if the relay after its commit was lost
					String stranded = "stranded-" + round;
					String transaction = "tx-" + round;
					context.getBean(TransactionTemplate.class)
						.executeWithoutResult((status) -> context.getBean(JdbcJobOutbox.class)
							.store(transaction, List.of(new JobWrite.Schedule(new ScheduleRequest("orders", stranded,
									"s".getBytes(StandardCharsets.UTF_8), Duration.ZERO, null, null, null,
									OnDuplicate.KEEP, Map.of(), null)))));
					int samplesWhenStopped = samples.get();
					listeners.ticks.clear();

					context.start();
					assertThat(ours).allSatisfy((lifecycle) -> assertThat(lifecycle.isRunning())
						.as(lifecycle.getClass().getSimpleName() + " running")
						.isTrue());
					// the reconciler put the declared job again, and the timer fires it
					assertThat(recurring.find("tick")).isPresent();
					assertThat(listeners.ticks.poll(10, TimeUnit.SECONDS)).as("a tick after start").isNotNull();
					// the outbox recovery relays the stranded write, and the listener runs it
					String scheduled = "scheduled-" + round;
					CompletableFuture<JobOutcome> outcome = context.getBean(RedisJobOutcomeStream.class)
						.whenDone("orders", scheduled);
					context.getBean(DelayedJobTemplate.class).schedule("orders", scheduled, "p", Duration.ZERO);
					await().atMost(Duration.ofSeconds(10))
						.untilAsserted(() -> assertThat(listeners.orders).contains(stranded, scheduled));
					// the outcome stream hears of the finish
					assertThat(outcome).succeedsWithin(Duration.ofSeconds(10))
						.extracting(JobOutcome::outcome)
						.isEqualTo("success");
					await().atMost(Duration.ofSeconds(10))
						.untilAsserted(() -> assertThat(new JdbcTemplate(context.getBean(DataSource.class))
							.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class)).isZero());
					// and the sampler reads again
					await().atMost(Duration.ofSeconds(10)).until(() -> samples.get() > samplesWhenStopped);
				}
			});
		QueueInvariant.assertHolds(redis, namespace);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final Set<String> orders = java.util.concurrent.ConcurrentHashMap.newKeySet();

		final BlockingQueue<String> ticks = new LinkedBlockingQueue<>();

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@DelayedListener(id = "orders", topic = "orders")
		void order(String payload, DelayedJob<String> job) {
			this.orders.add(job.id());
		}

		@DelayedListener(id = "ticks", topic = "ticks")
		void tick(String payload, DelayedJob<String> job) {
			this.ticks.add(job.id());
		}

	}

}
