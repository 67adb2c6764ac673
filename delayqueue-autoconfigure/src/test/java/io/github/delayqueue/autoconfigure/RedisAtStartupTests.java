package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.BucketCountMismatchException;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Whole applications started while Redis is down: they fail fast with Boot's failure
 * analysis by default, or start and catch up once Redis answers with
 * {@code delayqueue.redis.fail-fast=false}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisAtStartupTests {

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

	static class Received {

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayedListener(topic = "greetings")
		void on(io.github.delayqueue.core.DelayedJob<String> job) {
			this.ids.add(job.id());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listening {

		@Bean
		Received received() {
			return new Received();
		}

	}

	@Test
	void nothingOnTheRedisPortEndsWithTheAnalysisNamingTheRedisProperties(CapturedOutput output) {
		int port = TestConnections.freePort();
		assertThatException().isThrownBy(() -> app(Listening.class, "spring.data.redis.port=" + port));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("delayqueue could not reach Redis at localhost:" + port)
			.contains("spring.data.redis.port=" + port)
			.contains("spring.data.redis.host not set, so localhost")
			.contains("Start Redis there, or set spring.data.redis.*")
			.contains("delayqueue.redis.fail-fast=false")
			.doesNotContain("the timer retries until Redis answers")
			.doesNotContain("Application run failed");
	}

	@Test
	void withoutFailFastTheApplicationStartsAndTheQueueWorksOnceRedisAnswers(CapturedOutput output) {
		try (RedisTestServer redis = RedisTestServers.local().start()) {
			redis.stop();
			String namespace = "s" + UUID.randomUUID().toString().substring(0, 8);
			try (ConfigurableApplicationContext context = app(Listening.class, "spring.data.redis.port=" + redis.port(),
					"delayqueue.namespace=" + namespace, "delayqueue.redis.fail-fast=false")) {
				assertThat(context.getBean(RedisDelayQueue.class).isRunning()).isTrue();
				assertThat(output).contains("delayqueue starts while Redis is unreachable");
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				assertThatExceptionOfType(DelayQueueConnectionException.class)
					.isThrownBy(() -> template.schedule("greetings", "early", "hello", Duration.ZERO));

				redis.start();
				await().atMost(Duration.ofSeconds(20))
					.ignoreExceptionsInstanceOf(DelayQueueConnectionException.class)
					.untilAsserted(() -> template.schedule("greetings", "g-1", "hello", Duration.ZERO));
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(context.getBean(Received.class).ids).contains("g-1"));
				assertThat(output).contains("Redis answers: delayqueue's start-up checks passed");
			}
		}
	}

	@Test
	void withoutFailFastAnotherBucketCountFoundLaterIsRefusedToEveryCall() {
		try (RedisTestServer redis = RedisTestServers.local().appendOnly().start()) {
			String namespace = "s" + UUID.randomUUID().toString().substring(0, 8);
			app(App.class, "spring.data.redis.port=" + redis.port(), "delayqueue.namespace=" + namespace,
					"delayqueue.buckets=8")
				.close();
			redis.stop();
			try (ConfigurableApplicationContext context = app(App.class, "spring.data.redis.port=" + redis.port(),
					"delayqueue.namespace=" + namespace, "delayqueue.redis.fail-fast=false")) {
				redis.start();
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				await().atMost(Duration.ofSeconds(20))
					.ignoreExceptionsInstanceOf(DelayQueueConnectionException.class)
					.untilAsserted(() -> assertThatExceptionOfType(BucketCountMismatchException.class)
						.isThrownBy(() -> template.schedule("greetings", "g-1", "hello", Duration.ZERO))
						.withMessageContaining("was created with a bucket count of 8")
						// built without a count while Redis was down: the count was a guess
						.withMessageContaining("Restart the application once Redis answers (it then takes 8)")
						.satisfies((ex) -> assertThat(ex.isChosen()).isTrue()));
				assertThatExceptionOfType(BucketCountMismatchException.class)
					.isThrownBy(() -> template.find("greetings", "g-1"));
			}
		}
	}

	private static ConfigurableApplicationContext app(Class<?> configuration, String... properties) {
		return new SpringApplicationBuilder(App.class, configuration).web(WebApplicationType.NONE)
			.properties("spring.data.redis.timeout=2s", "spring.main.banner-mode=off", "delayqueue.timer.lease-ttl=2s")
			.properties(properties)
			.run();
	}

	// INFO is in the ACL category @dangerous: a least-privilege user such as
	// '+@all -@dangerous' may not run it. The queue then starts without the version, eviction
	// and persistence checks (with a warning), as only an unreachable Redis fails the start.
	@Test
	void aRedisUserWithoutInfoStillStarts() {
		try (RedisTestServer redis = RedisTestServers.local()
			.argument("--user", "app", "on", ">app-pw", "~*", "&*", "+@all", "-@dangerous")
			.start()) {
			String namespace = "s" + UUID.randomUUID().toString().substring(0, 8);
			try (ConfigurableApplicationContext context = app(App.class, "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.username=app", "spring.data.redis.password=app-pw",
					"delayqueue.namespace=" + namespace, "delayqueue.redis.fail-fast=false")) {
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				template.schedule("greetings", "acl-1", "hello", Duration.ofMinutes(5));
				assertThat(template.find("greetings", "acl-1")).isPresent();
			}
		}
	}

}
