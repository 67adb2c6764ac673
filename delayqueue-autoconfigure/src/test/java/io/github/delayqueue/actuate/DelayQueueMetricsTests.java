package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueMetricsAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Counters, timers and sampled gauges as jobs flow, on Spring Boot's
 * {@link SimpleMeterRegistry}.
 */
class DelayQueueMetricsTests {

	private ConfigurableApplicationContext context;

	static class Listeners {

		@DelayedListener(topic = "m-ok", id = "ok")
		void ok(String body) {
		}

		@DelayedListener(topic = "m-bad", id = "bad", maxAttempts = "2", backOffInitial = "100ms")
		void bad(String body) {
			throw new IllegalStateException("always broken");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
			CompositeMeterRegistryAutoConfiguration.class, DelayQueueAutoConfiguration.class,
			DelayedListenerAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class })
	static class App {

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void countersTimersAndGaugesFollowTheJobs() {
		RedisTestServer redis = RedisTestServers.shared();
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties(redis.springBootProperties())
			.properties("delayqueue.namespace=m" + UUID.randomUUID().toString().substring(0, 8),
					"delayqueue.listener.back-off.jitter=0ms", "delayqueue.metrics.sample-interval=1h",
					"delayqueue.retention.m-ok.completed=100", "delayqueue.retention.m-trim.failed=1",
					// a gauge per bucket, over several
					"delayqueue.buckets=16", "spring.main.banner-mode=off")
			.run();
		MeterRegistry registry = this.context.getBean(MeterRegistry.class);
		assertThat(registry).isInstanceOf(SimpleMeterRegistry.class);
		DelayedJobTemplate template = this.context.getBean(DelayedJobTemplate.class);
		DelayQueueOperations operations = template.getOperations();
		DelayQueueSampler sampler = this.context.getBean(DelayQueueSampler.class);
		Set<String> ids = new HashSet<>();

		for (int i = 0; i < 5; i++) {
			ids.add("ok-" + i);
			template.schedule("m-ok", "ok-" + i, "x", Duration.ofMillis(i * 50));
		}
		ids.add("bad-1");
		template.schedule("m-bad", "bad-1", "x", Duration.ZERO);
		ids.add("cancel-1");
		template.schedule("m-cancel", "cancel-1", "x", Duration.ofHours(1));
		assertThat(template.cancel("m-cancel", "cancel-1")).isTrue();
		ids.add("ttr-1");
		template.job("m-ttr", "ttr-1").payload("x").delay(Duration.ZERO).maxAttempts(1).schedule();
		List<ReservedJob> held = operations.reserve("m-ttr", 1, Duration.ofMillis(300));
		assertThat(held).hasSize(1);

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(count(registry, "delayqueue.jobs.completed", "m-ok")).isEqualTo(5);
			assertThat(count(registry, "delayqueue.jobs.dead", "m-bad")).isEqualTo(1);
			assertThat(count(registry, "delayqueue.jobs.expired", "m-ttr")).isEqualTo(1);
		});
		assertThat(count(registry, "delayqueue.jobs.scheduled", "m-ok")).isEqualTo(5);
		assertThat(count(registry, "delayqueue.jobs.delivered", "m-ok")).isEqualTo(5);
		assertThat(registry.get("delayqueue.delivery.lag").tag("topic", "m-ok").timer().count()).isEqualTo(5);
		assertThat(registry.get("delayqueue.delivery.lag").tag("topic", "m-ok").timer().max(
				java.util.concurrent.TimeUnit.MILLISECONDS)).isLessThan(2000);
		assertThat(registry.get("delayqueue.listener").tags("topic", "m-ok", "outcome", "success", "exception", "none")
			.timer()
			.count()).isEqualTo(5);

		assertThat(count(registry, "delayqueue.jobs.delivered", "m-bad")).isEqualTo(2);
		assertThat(count(registry, "delayqueue.jobs.retried", "m-bad")).isEqualTo(1);
		assertThat(count(registry, "delayqueue.jobs.completed", "m-bad")).isZero();
		assertThat(registry.get("delayqueue.listener")
			.tags("topic", "m-bad", "outcome", "retry", "exception", "IllegalStateException")
			.timer()
			.count()).isEqualTo(1);
		assertThat(registry.get("delayqueue.listener")
			.tags("topic", "m-bad", "outcome", "dead", "exception", "IllegalStateException")
			.timer()
			.count()).isEqualTo(1);

		assertThat(count(registry, "delayqueue.jobs.cancelled", "m-cancel")).isEqualTo(1);
		// a topic that keeps the DEAD jobs of its last death only: the second death deletes the first
		for (String id : List.of("trim-1", "trim-2")) {
			ids.add(id);
			template.schedule("m-trim", id, "x", Duration.ZERO);
			List<ReservedJob> trimmed = await().atMost(Duration.ofSeconds(10))
				.until(() -> operations.reserve("m-trim", 1, null), (jobs) -> !jobs.isEmpty());
			operations.kill(trimmed.get(0), "boom");
		}
		assertThat(count(registry, "delayqueue.jobs.dead", "m-trim")).isEqualTo(2);
		assertThat(count(registry, "delayqueue.dead.trimmed", "m-trim")).isEqualTo(1);
		assertThat(template.find("m-trim", "trim-1")).isEmpty();
		assertThat(count(registry, "delayqueue.jobs.dead", "m-ttr")).isEqualTo(1);
		assertThat(count(registry, "delayqueue.jobs.delivered", "m-ttr")).isEqualTo(1);

		// gauges move with the sampler, not with each scrape
		for (int i = 0; i < 3; i++) {
			ids.add("later-" + i);
			template.schedule("m-later", "later-" + i, "x", Duration.ofHours(1));
		}
		assertThat(registry.find("delayqueue.topic.jobs").tag("topic", "m-later").gauge()).isNull();
		sampler.sample();
		assertThat(gauge(registry, "m-later", "delayed")).isEqualTo(3);
		// the finished jobs a topic with a retention keeps
		assertThat(registry.get("delayqueue.topic.completed.kept").tag("topic", "m-ok").gauge().value()).isEqualTo(5);
		assertThat(gauge(registry, "m-later", "ready")).isZero();
		assertThat(gauge(registry, "m-bad", "dead")).isEqualTo(1);
		assertThat(gauge(registry, "m-ttr", "dead")).isEqualTo(1);
		double depth = registry.find("delayqueue.bucket.depth").gauges().stream().mapToDouble((g) -> g.value()).sum();
		assertThat(registry.find("delayqueue.bucket.depth").gauges()).hasSize(16);
		assertThat(depth).isEqualTo(3);
		assertThat(registry.get("delayqueue.overdue.lag").gauge().value()).isZero();
		assertThat(registry.get("delayqueue.timer.buckets").gauge().value()).isEqualTo(16);

		// a new READY job without a consumer is overdue once sampled
		template.schedule("m-orphan", "orphan-1", "x", Duration.ZERO);
		ids.add("orphan-1");
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			sampler.sample();
			assertThat(registry.get("delayqueue.topic.overdue.lag").tag("topic", "m-orphan").gauge().value())
				.isGreaterThan(0);
		});
		assertThat(registry.get("delayqueue.overdue.lag").gauge().value()).isGreaterThan(0);

		// bounded tags: never a job id
		for (Meter meter : registry.getMeters()) {
			if (meter.getId().getName().startsWith("delayqueue")) {
				for (Tag tag : meter.getId().getTags()) {
					assertThat(ids).as("tag %s of %s", tag, meter.getId()).doesNotContain(tag.getValue());
				}
			}
		}
	}

	private static double count(MeterRegistry registry, String name, String topic) {
		return registry.get(name).tag("topic", topic).counter().count();
	}

	private static double gauge(MeterRegistry registry, String topic, String state) {
		return registry.get("delayqueue.topic.jobs").tags("topic", topic, "state", state).gauge().value();
	}

}
