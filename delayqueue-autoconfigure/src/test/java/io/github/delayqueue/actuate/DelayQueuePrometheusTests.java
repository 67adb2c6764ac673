package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.test.RedisTestServers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/prometheus} with delayqueue's meters is valid text exposition format with
 * help text for each of them.
 */
class DelayQueuePrometheusTests {

	private static final Pattern HELP = Pattern.compile("^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$");

	private static final Pattern TYPE = Pattern
		.compile("^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped|unknown)$");

	private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)"
			+ "(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\.)*\"(?:,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\.)*\")*,?\\})?"
			+ " (-?[0-9.eE+-]+|NaN|\\+Inf|-Inf)( -?[0-9]+)?$");

	@RegisterExtension
	final WebApps apps = new WebApps();

	static class Listener {

		@DelayedListener(topic = "p-topic", id = "p-listener")
		void handle(String body) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Listener listener() {
			return new Listener();
		}

	}

	@Test
	void scrapeIsValidExpositionFormatWithHelpForEveryDelayqueueMeter() {
		App app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.metrics.sample-interval=200ms",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.observation-enabled=true");
		MeterRegistry registry = app.bean(MeterRegistry.class);
		app.bean(DelayedJobTemplate.class).schedule("p-topic", "job-1", "x", Duration.ZERO);
		app.bean(DelayedJobTemplate.class).schedule("p-topic", "job-2", "x", Duration.ofHours(1));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Counter completed = registry.find("delayqueue.jobs.completed").tag("topic", "p-topic").counter();
			assertThat(completed).isNotNull();
			assertThat(completed.count()).isEqualTo(1);
			Gauge delayed = registry.find("delayqueue.topic.jobs").tags("topic", "p-topic", "state", "delayed").gauge();
			assertThat(delayed).isNotNull();
			assertThat(delayed.value()).isEqualTo(1);
		});

		// one delayqueue.listener timer: DelayQueueMetrics', not a second one from the observation
		assertThat(registry.find("delayqueue.listener").meters()).isNotEmpty()
			.allSatisfy((meter) -> assertThat(meter.getId().getTag("delayqueue.topic")).isNull());

		Response scrape = app.get("/actuator/prometheus");
		assertThat(scrape.status()).isEqualTo(200);
		Set<String> helped = new HashSet<>();
		Set<String> typed = new HashSet<>();
		Set<String> sampled = new TreeSet<>();
		for (String line : scrape.body().split("\n")) {
			if (line.isEmpty() || line.equals("# EOF")) {
				continue;
			}
			Matcher help = HELP.matcher(line);
			Matcher type = TYPE.matcher(line);
			Matcher sample = SAMPLE.matcher(line);
			if (help.matches()) {
				assertThat(helped.add(help.group(1))).as("one HELP for %s", help.group(1)).isTrue();
				if (help.group(1).startsWith("delayqueue_")) {
					assertThat(help.group(2)).as("the help text of %s", help.group(1)).isNotBlank();
				}
			}
			else if (type.matches()) {
				assertThat(typed.add(type.group(1))).as("one TYPE for %s", type.group(1)).isTrue();
			}
			else {
				assertThat(sample.matches()).as("a valid sample line: %s", line).isTrue();
				if (sample.group(1).startsWith("delayqueue_")) {
					sampled.add(sample.group(1));
				}
			}
		}
		assertThat(sampled).contains("delayqueue_jobs_scheduled_total", "delayqueue_jobs_delivered_total",
				"delayqueue_jobs_completed_total", "delayqueue_delivery_lag_seconds_count",
				"delayqueue_listener_seconds_count", "delayqueue_topic_jobs", "delayqueue_bucket_depth",
				"delayqueue_overdue_lag_seconds", "delayqueue_topic_overdue_lag_seconds", "delayqueue_timer_buckets",
				"delayqueue_template_seconds_count", "delayqueue_template_active_seconds_count");
		for (String family : sampled) {
			String name = family.replaceAll("_(total|count|sum|max|bucket)$", "");
			assertThat(helped).as("HELP for %s", family).containsAnyOf(name, name + "_total", family);
		}
		assertThat(scrape.body()).contains("# HELP delayqueue_jobs_scheduled_total Jobs created by this instance");
	}

}
