package io.github.delayqueue.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.support.MessageHeaderAccessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * A job's own headers: set with the job builder, stored with the job, read by the listener
 * through {@code @Header}, a {@code Message<T>} and {@code DelayedJob.headers()}, shown by
 * {@code find}; a job without them stores exactly what it stored before.
 */
class JobHeadersTests {

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	static class TenantListener {

		final List<String> seen = new CopyOnWriteArrayList<>();

		final List<String> deadLetters = new CopyOnWriteArrayList<>();

		@DelayedListener(id = "tenants", topic = "tenant-orders", maxAttempts = "3")
		void on(String payload, @Header("tenant") String tenant, @Header("region") @Nullable String region,
				DelayedJob<String> job, Message<String> message) {
			this.seen.add(job.id() + " " + tenant + "/" + region + " " + job.headers() + " "
					+ message.getHeaders().get("tenant") + " " + payload);
		}

		// a dead-letter header is stored with the job: a job without it lacks it on every attempt
		@DelayedListener(id = "dead-letters", topic = "tenant-orders-dlt", maxAttempts = "3")
		void onDeadLetter(String payload, @Header(DelayQueueHeaders.DLT_ERROR) String error) {
			this.deadLetters.add(payload + ": " + error);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Tenants {

		@Bean
		TenantListener tenantListener() {
			return new TenantListener();
		}

	}

	@Test
	void headersFromTheJobBuilderReachTheListenerAndAJobWithoutARequiredOneFailsWithoutRetry() {
		ConfigurableApplicationContext context = this.apps.run(Tenants.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		TenantListener listener = context.getBean(TenantListener.class);
		template.job("tenant-orders", "1")
			.payload("first")
			.header("tenant", "acme")
			.headers(Map.of("region", "eu-1"))
			.delay(Duration.ZERO)
			.schedule();
		template.job("tenant-orders", "2").payload("second").header("tenant", "globex").delay(Duration.ZERO).schedule();
		template.schedule("tenant-orders", "no-tenant", "third", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(listener.seen).containsExactlyInAnyOrder(
					"1 acme/eu-1 {tenant=acme, region=eu-1} acme first",
					"2 globex/null {tenant=globex} globex second"));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("tenant-orders", "no-tenant")).map(JobInfo::state)
				.contains(JobState.DEAD));
		JobInfo dead = template.find("tenant-orders", "no-tenant").orElseThrow();
		// every attempt would lack it: dead on the first
		assertThat(dead.attempt()).isEqualTo(1);
		assertThat(dead.lastError()).contains("the job carries no header 'tenant'");
		assertThat(listener.seen).hasSize(2);

		template.schedule("tenant-orders-dlt", "scheduled-directly", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("tenant-orders-dlt", "scheduled-directly"))
				.map(JobInfo::state)
				.contains(JobState.DEAD));
		assertThat(template.find("tenant-orders-dlt", "scheduled-directly").orElseThrow().attempt()).isEqualTo(1);
		assertThat(listener.deadLetters).isEmpty();
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	static class UnusableHeader {

		@DelayedListener(topic = "tenant-orders")
		void on(String payload, @Header("no spaces allowed") String header) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnusableHeaderConfig {

		@Bean
		UnusableHeader unusableHeader() {
			return new UnusableHeader();
		}

	}

	@Test
	void aHeaderNameNoJobCanCarryFailsTheStart() {
		org.assertj.core.api.Assertions.assertThatException()
			.isThrownBy(() -> this.apps.run(UnusableHeaderConfig.class))
			.withStackTraceContaining("has a @Header(\"no spaces allowed\") parameter, but no job can carry that header");
	}

	static class HeadersListener {

		final List<String> seen = new CopyOnWriteArrayList<>();

		// spring-messaging binds MessageHeaders and a MessageHeaderAccessor itself: neither is a payload parameter
		@DelayedListener(topic = "all-headers")
		void on(String payload, MessageHeaders headers, MessageHeaderAccessor accessor) {
			this.seen.add(payload + " " + headers.get("tenant") + " " + accessor.getHeader(DelayQueueHeaders.ID));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HeadersListenerConfig {

		@Bean
		HeadersListener headersListener() {
			return new HeadersListener();
		}

	}

	@Test
	void aListenerReadsTheMessageHeadersBesideItsPayload() {
		ConfigurableApplicationContext context = this.apps.run(HeadersListenerConfig.class, "delayqueue.buckets=1");
		context.getBean(DelayedJobTemplate.class)
			.job("all-headers", "1")
			.payload("first")
			.header("tenant", "acme")
			.delay(Duration.ZERO)
			.schedule();
		HeadersListener listener = context.getBean(HeadersListener.class);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(listener.seen).containsExactly("first acme 1"));
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	@Configuration(proxyBeanMethods = false)
	static class NoListeners {

	}

	@Test
	void findShowsTheHeadersAndAJobWithoutHeadersStoresExactlyItsPayload() {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.job("later", "with").payload("{\"a\":1}").header("tenant", "acme").delay(Duration.ofHours(1)).schedule();
		template.schedule("later", "without", "{\"a\":1}", Duration.ofHours(1));
		JobInfo with = template.find("later", "with").orElseThrow();
		assertThat(with.headers()).containsExactly(entry("tenant", "acme"));
		assertThat(with.payloadAsString()).isEqualTo("{\"a\":1}");
		JobInfo without = template.find("later", "without").orElseThrow();
		assertThat(without.headers()).isEmpty();

		// the records differ by the header section alone: nothing is stored for no headers
		StringRedisTemplate redis = new StringRedisTemplate(
				context.getBean(org.springframework.data.redis.connection.RedisConnectionFactory.class));
		String jobs = "{" + this.apps.namespace + ":0}:jobs";
		String withRecord = redis.<String, String>opsForHash().get(jobs, "later:with");
		String withoutRecord = redis.<String, String>opsForHash().get(jobs, "later:without");
		assertThat(withoutRecord).endsWith(",\n{\"a\":1}");
		assertThat(withRecord).endsWith(",\n\0dqhtenant=acme\n\0{\"a\":1}");
		assertThat(withRecord.getBytes(StandardCharsets.UTF_8).length
				- withoutRecord.getBytes(StandardCharsets.UTF_8).length).isEqualTo("\0dqhtenant=acme\n\0".length());
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	@Test
	void badHeadersAreRefusedWhenSetAndScheduleNothing() {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1",
				"delayqueue.max-payload-size=64");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		JobBuilder builder = template.job("later", "x").payload("p").delay(Duration.ZERO);
		assertThatIllegalArgumentException().isThrownBy(() -> builder.header("timestamp", "1"))
			.withMessageContaining("header name 'timestamp' is reserved");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.header("tenant", "two\nlines"))
			.withMessageContaining("header 'tenant' must not contain control characters");
		// the payload fits the limit, the payload with its headers does not
		assertThatIllegalArgumentException()
			.isThrownBy(() -> builder.header("note", "n".repeat(70)).schedule())
			.withMessageContaining("payload with headers must be at most 64 bytes (delayqueue.max-payload-size)");
		assertThat(template.find("later", "x")).isEmpty();
	}

}
