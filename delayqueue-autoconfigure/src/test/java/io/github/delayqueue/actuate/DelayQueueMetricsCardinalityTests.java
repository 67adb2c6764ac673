package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueMetricsAutoConfiguration;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-topic meters stay bounded when topic names come from clients: gauges of a topic that
 * has no more jobs are removed, and at most {@code delayqueue.metrics.max-topics} topics get
 * their own {@code topic} tag value, the others are counted under {@code topic=_other}.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueMetricsCardinalityTests {

	private ConfigurableApplicationContext context;

	private MeterRegistry registry;

	private DelayedJobTemplate template;

	private DelayQueueSampler sampler;

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
			CompositeMeterRegistryAutoConfiguration.class, DelayQueueAutoConfiguration.class,
			DelayQueueMetricsAutoConfiguration.class })
	static class App {

	}

	private void run(String... properties) {
		RedisTestServer redis = RedisTestServers.shared();
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties(redis.springBootProperties())
			.properties("delayqueue.namespace=c" + UUID.randomUUID().toString().substring(0, 8),
					"delayqueue.metrics.sample-interval=1h", "spring.main.banner-mode=off")
			.properties(properties)
			.run();
		this.registry = this.context.getBean(MeterRegistry.class);
		this.template = this.context.getBean(DelayedJobTemplate.class);
		this.sampler = this.context.getBean(DelayQueueSampler.class);
	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void gaugesOfATopicThatHasNoMoreJobsAreRemoved() {
		run();
		this.template.schedule("c-gone", "job-1", "x", Duration.ofHours(1));
		this.sampler.sample();
		assertThat(this.registry.get("delayqueue.topic.jobs").tags("topic", "c-gone", "state", "delayed").gauge().value())
			.isEqualTo(1);
		assertThat(this.template.cancel("c-gone", "job-1")).isTrue();
		this.sampler.sample();
		assertThat(this.registry.find("delayqueue.topic.jobs").tag("topic", "c-gone").gauges()).isEmpty();
		assertThat(this.registry.find("delayqueue.topic.overdue.lag").tag("topic", "c-gone").gauges()).isEmpty();
		// counters are this instance's totals: they stay
		assertThat(this.registry.get("delayqueue.jobs.cancelled").tag("topic", "c-gone").counter().count()).isEqualTo(1);
		// and the gauges come back with the topic
		this.template.schedule("c-gone", "job-2", "x", Duration.ofHours(1));
		this.sampler.sample();
		assertThat(this.registry.get("delayqueue.topic.jobs").tags("topic", "c-gone", "state", "delayed").gauge().value())
			.isEqualTo(1);
	}

	@Test
	void topicTagValuesAreCappedAndTheRestCountedUnderOther(CapturedOutput output) {
		run("delayqueue.metrics.max-topics=3");
		for (int topic = 1; topic <= 5; topic++) {
			this.template.schedule("c-" + topic, "job-1", "x", Duration.ofHours(1));
		}
		// counters: the first three topics seen, then the rest together
		assertThat(topicTags("delayqueue.jobs.scheduled")).containsExactly("_other", "c-1", "c-2", "c-3");
		assertThat(this.registry.get("delayqueue.jobs.scheduled").tag("topic", "_other").counter().count())
			.isEqualTo(2);

		// gauges: the same bound, the figures of the rest summed
		this.sampler.sample();
		assertThat(topicTags("delayqueue.topic.jobs")).containsExactly("_other", "c-1", "c-2", "c-3");
		assertThat(topicTags("delayqueue.topic.overdue.lag")).containsExactly("_other", "c-1", "c-2", "c-3");
		assertThat(gauge("_other", "delayed")).isEqualTo(2);

		// a topic that leaves frees its place for one that waited
		this.template.cancel("c-1", "job-1");
		this.sampler.sample();
		assertThat(topicTags("delayqueue.topic.jobs")).containsExactly("_other", "c-2", "c-3", "c-4");
		assertThat(gauge("_other", "delayed")).isEqualTo(1);
		this.template.cancel("c-5", "job-1");
		this.sampler.sample();
		assertThat(topicTags("delayqueue.topic.jobs")).containsExactly("c-2", "c-3", "c-4");

		assertThat(output.toString().split("delayqueue.metrics.max-topics", -1)).hasSize(3);
	}

	private Set<String> topicTags(String name) {
		Set<String> topics = new TreeSet<>();
		for (Meter meter : this.registry.find(name).meters()) {
			topics.add(meter.getId().getTag("topic"));
		}
		return topics;
	}

	private double gauge(String topic, String state) {
		return this.registry.get("delayqueue.topic.jobs").tags("topic", topic, "state", state).gauge().value();
	}

}
