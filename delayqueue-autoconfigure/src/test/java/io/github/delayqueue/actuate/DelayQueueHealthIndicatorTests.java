package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/health/delayqueue} when Redis goes away and comes back, when a listener is
 * blocked, and when a due job waits too long.
 */
class DelayQueueHealthIndicatorTests {

	@RegisterExtension
	final WebApps apps = new WebApps();

	private RedisTestServer redis;

	static class Blocking {

		final CountDownLatch release = new CountDownLatch(1);

		final CountDownLatch started = new CountDownLatch(1);

		@DelayedListener(topic = "h-block", id = "blocker")
		void handle(String body) throws InterruptedException {
			this.started.countDown();
			this.release.await(30, TimeUnit.SECONDS);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Blocking blocking() {
			return new Blocking();
		}

	}

	@BeforeEach
	void startRedis() {
		this.redis = RedisTestServers.local().start();
	}

	@AfterEach
	void stopRedis() {
		this.redis.close();
	}

	@Test
	void downWhileRedisIsStoppedAndUpAfterItsRestart() {
		App app = this.apps.run(this.redis, Config.class);
		JsonNode up = health(app, 200);
		assertThat(up.get("status").asString()).isEqualTo("UP");
		assertThat(up.get("details").get("bucketsOwned").asInt()).isEqualTo(16);
		assertThat(up.get("details").get("listeners").get("blocker").asString()).isEqualTo("running");
		assertThat(up.get("details").get("oldestOverdueLagMillis").asLong()).isZero();

		this.redis.stop();
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			JsonNode down = health(app, 503);
			assertThat(down.get("status").asString()).isEqualTo("DOWN");
		});
		this.redis.start();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> health(app, 200));
	}

	@Test
	void downWhileAListenerIsBlockedPastTheThreshold() throws InterruptedException {
		App app = this.apps.run(this.redis, Config.class, "delayqueue.health.max-stall=1s");
		Blocking blocking = app.bean(Blocking.class);
		assertThat(health(app, 200).get("status").asString()).isEqualTo("UP");
		app.bean(DelayedJobTemplate.class).schedule("h-block", "job-1", "x", Duration.ZERO);
		assertThat(blocking.started.await(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			JsonNode down = health(app, 503);
			assertThat(down.get("details").get("listeners").get("blocker").asString()).isEqualTo("stalled");
			assertThat(down.get("details").get("problems").get(0).asString())
				.startsWith("listener 'blocker' made no progress for ")
				.endsWith("(1 of 1 handlers busy)");
		});
		blocking.release.countDown();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> health(app, 200));
	}

	@Test
	void downWhenTheOldestDueJobWaitsLongerThanAllowed() {
		App app = this.apps.run(this.redis, Config.class, "delayqueue.health.max-overdue=1s");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("h-nobody-listens", "job-1", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			JsonNode down = health(app, 503);
			assertThat(down.get("details").get("oldestOverdueLagMillis").asLong()).isGreaterThan(1000);
			assertThat(down.get("details").get("problems").get(0).asString())
				.startsWith("the oldest due job has waited ");
		});
		template.cancel("h-nobody-listens", "job-1");
		health(app, 200);
	}

	private static JsonNode health(App app, int status) {
		Response response = app.get("/actuator/health/delayqueue");
		assertThat(response.status()).as(response.body()).isEqualTo(status);
		return response.json();
	}

}
