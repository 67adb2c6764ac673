package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpointInvokerAdvisor;
import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.actuate.DelayQueueMeterBinder;
import io.github.delayqueue.actuate.DelayQueueMetrics;
import io.github.delayqueue.actuate.DelayQueueSampler;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Actuator and Micrometer support appears with its libraries and properties, and the
 * queue and its listeners work without any of them.
 */
@ExtendWith(RedisTestExtension.class)
class ObservabilityAutoConfigurationTests {

	private ApplicationContextRunner runner;

	static class Listener {

		final BlockingQueue<String> received = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "o-topic")
		void handle(String body) {
			this.received.add(body);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserSampler {

		@Bean
		DelayQueueSampler mySampler(DelayQueueOperations operations) {
			return new DelayQueueSampler(operations, Duration.ofHours(1));
		}

	}

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
					DelayQueueEndpointAutoConfiguration.class, DelayQueueHealthContributorAutoConfiguration.class,
					DelayQueueMetricsAutoConfiguration.class))
			.withBean(Listener.class)
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=obs" + System.nanoTime(),
					"management.endpoints.web.exposure.include=delayqueue");
	}

	/**
	 * Spring Boot's own auto-configurations of the libraries that are there (an application
	 * without a library does not have them either).
	 */
	private ApplicationContextRunner with(boolean actuator, boolean health, boolean micrometer) {
		ApplicationContextRunner result = this.runner;
		if (actuator) {
			result = result.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class));
		}
		if (health) {
			result = result.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class));
		}
		if (micrometer) {
			result = result.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class));
		}
		return result;
	}

	@Test
	void withoutSpringWebTheEndpointIsThereWithoutItsWebAdvisor() {
		with(true, true, true).withClassLoader(new FilteredClassLoader(MediaType.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(DelayQueueEndpoint.class);
			assertThat(context).doesNotHaveBean(DelayQueueEndpointInvokerAdvisor.class);
		});
		with(true, true, true).run((context) -> assertThat(context).hasSingleBean(DelayQueueEndpointInvokerAdvisor.class));
	}

	@Test
	void everythingAppearsWithItsLibraries() {
		with(true, true, true).run((context) -> {
			assertThat(context).hasSingleBean(DelayQueueEndpoint.class);
			assertThat(context).hasSingleBean(DelayQueueHealthIndicator.class);
			assertThat(context).hasBean("delayqueueHealthIndicator");
			assertThat(context).hasSingleBean(DelayQueueMetrics.class);
			assertThat(context).hasSingleBean(DelayQueueMeterBinder.class);
			assertWorks(context);
		});
	}

	@Test
	void worksWithoutActuator() {
		with(false, true, true).withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate")).run((context) -> {
			assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
			assertThat(context).hasSingleBean(DelayQueueHealthIndicator.class);
			assertWorks(context);
		});
	}

	@Test
	void worksWithoutHealth() {
		with(true, false, true).withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run((context) -> {
			assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
			assertThat(context).hasSingleBean(DelayQueueEndpoint.class);
			assertWorks(context);
		});
	}

	@Test
	void worksWithoutMicrometer() {
		with(true, true, false).withClassLoader(new FilteredClassLoader("io.micrometer.core")).run((context) -> {
			assertThat(context).doesNotHaveBean(DelayQueueMetrics.class);
			assertThat(context).doesNotHaveBean(DelayQueueMeterBinder.class);
			assertWorks(context);
		});
	}

	@Test
	void worksWithNoneOfThem() {
		with(false, false, false)
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate", "org.springframework.boot.health",
					"io.micrometer.core"))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
				assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
				assertThat(context).doesNotHaveBean(DelayQueueMetrics.class);
				assertWorks(context);
			});
	}

	@Test
	void propertiesTurnThemOff() {
		with(true, true, true).withPropertyValues("management.health.delayqueue.enabled=false",
				"management.endpoint.delayqueue.access=NONE")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
				assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
				assertThat(context).hasSingleBean(DelayQueueMetrics.class);
				assertWorks(context);
			});
	}

	@Test
	void oneSamplerServesGaugesAndHealth() {
		with(true, true, true).withPropertyValues("delayqueue.health.max-overdue.o-topic=5m").run((context) -> {
			assertThat(context).hasSingleBean(DelayQueueSampler.class);
			assertThat(context.getBean(DelayQueueHealthIndicator.class).health().getDetails())
				.containsKey("overdueLagMillis");
			assertWorks(context);
		});
	}

	@Test
	void healthSamplesOnlyForLagThresholds() {
		ApplicationContextRunner withoutMicrometer = with(true, true, false)
			.withClassLoader(new FilteredClassLoader("io.micrometer.core"));
		withoutMicrometer.run((context) -> {
			assertThat(context).hasSingleBean(DelayQueueHealthIndicator.class);
			assertThat(context).doesNotHaveBean(DelayQueueSampler.class);
			assertThat(context.getBean(DelayQueueHealthIndicator.class).health().getDetails())
				.doesNotContainKey("overdueLagMillis");
		});
		withoutMicrometer.withPropertyValues("delayqueue.health.max-overdue.o-topic=5m").run((context) -> {
			assertThat(context).hasSingleBean(DelayQueueSampler.class);
			assertThat(context.getBean(DelayQueueSampler.class).isRunning()).isTrue();
			assertWorks(context);
		});
	}

	@Test
	void userSamplerWins() {
		with(true, true, true).withPropertyValues("delayqueue.health.max-overdue.o-topic=5m")
			.withUserConfiguration(UserSampler.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(DelayQueueSampler.class);
				assertThat(context).hasBean("mySampler");
			});
	}

	@Test
	void badLagThresholdTopicFailsStartUpNamingTheRule() {
		with(true, true, false).withClassLoader(new FilteredClassLoader("io.micrometer.core"))
			.withPropertyValues("delayqueue.health.max-overdue[-bad]=5m")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("Property: delayqueue.health.max-overdue[-bad]")
					.contains("topic '-bad' may only contain letters");
			});
	}

	/**
	 * The old meaning of {@code delayqueue.health.max-overdue} (one duration for the whole
	 * queue) is gone: a single value no longer binds, and start-up says so.
	 */
	@Test
	void queueWideMaxOverdueFailsStartUp() {
		with(true, true, true).withPropertyValues("delayqueue.health.max-overdue=60s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("delayqueue.health.max-overdue");
		});
	}

	@Test
	void negativeMaxTopicsFailsStartUp() {
		with(true, true, true).withPropertyValues("delayqueue.metrics.max-topics=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.metrics.max-topics")
				.contains("Reason: must be at least 0");
		});
	}

	@Test
	void badSampleIntervalFailsStartUpNamingTheProperty() {
		with(true, true, true).withPropertyValues("delayqueue.metrics.sample-interval=10ms").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.metrics.sample-interval")
				.contains("Reason: must be at least 100ms");
		});
	}

	private static void assertWorks(AssertableApplicationContext context) throws InterruptedException {
		assertThat(context).hasNotFailed();
		context.getBean(DelayedJobTemplate.class).schedule("o-topic", "job-1", "hello", Duration.ZERO);
		assertThat(context.getBean(Listener.class).received.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
	}

}
