package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.KillArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/health/delayqueue} says what is wrong with this instance: Redis
 * unreachable or hanging (answered within the health timeout), a listener blocked, a consumed
 * topic past its opt-in lag threshold. A backlog of a topic nobody here consumes is not its
 * business, and a probe never reads the queue's figures.
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

	@Configuration(proxyBeanMethods = false)
	static class NoListeners {

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
		App app = this.apps.run(this.redis, Config.class, "delayqueue.health.timeout=500ms");
		JsonNode up = health(app, 200);
		assertThat(up.get("status").asString()).isEqualTo("UP");
		assertThat(up.get("details").get("redis").asString()).isEqualTo("reachable");
		assertThat(up.get("details").get("timer").asString()).isEqualTo("running");
		// a new namespace on one server: one bucket
		assertThat(up.get("details").get("bucketsOwned").asInt()).isEqualTo(1);
		assertThat(up.get("details").get("subscription").asString()).isEqualTo("subscribed");
		assertThat(up.get("details").get("listeners").get("blocker").asString()).isEqualTo("running");

		this.redis.stop();
		// the command timeout is 2 s: the probe's own timeout bounds it
		long start = System.nanoTime();
		JsonNode down = health(app, 503);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
		assertThat(down.get("details").get("problems").get(0).asString()).startsWith("Redis ");
		this.redis.start();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> health(app, 200));
	}

	@Test
	void aProbeAnswersWithinItsTimeoutWhileRedisHangs() {
		App app = this.apps.run(this.redis, NoListeners.class, "delayqueue.health.timeout=500ms");
		health(app, 200);
		LettuceConnectionFactory admin = TestConnections.lettuce(this.redis, Duration.ofSeconds(10));
		try {
			// every client's commands wait for 4 s: Redis does not refuse, it hangs
			admin((connection) -> connection.execute("CLIENT", bytes("PAUSE"), bytes("4000"), bytes("ALL")), admin);
			long start = System.nanoTime();
			JsonNode down = health(app, 503);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
			assertThat(down.get("details").get("problems").get(0).asString())
				.startsWith("Redis did not answer a PING within 500 ms");
			// the PING still waiting is not sent again: the next probe answers at once
			start = System.nanoTime();
			health(app, 503);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
			await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> health(app, 200));
		}
		finally {
			admin.destroy();
		}
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

	/**
	 * A subscription that is lost and not made again: here Redis drops the subscribed
	 * connection and this user lost the channel, and Spring Data Redis' listener
	 * container does not retry a refused subscription (only connection failures). Health
	 * shows it {@code reconnecting} at first (a lost subscription normally comes back on its
	 * own), then DOWN once it has been lost for longer than {@code max-stall}. With Jedis:
	 * with Lettuce the driver re-subscribes under the container, which does not see it.
	 */
	@Test
	void downWhileTheSubscriptionIsLostLongerThanMaxStall() {
		App app = this.apps.run(this.redis, NoListeners.class, "spring.data.redis.client-type=jedis",
				"delayqueue.health.max-stall=2s");
		assertThat(health(app, 200).get("details").get("subscription").asString()).isEqualTo("subscribed");
		LettuceConnectionFactory admin = TestConnections.lettuce(this.redis, Duration.ofSeconds(10));
		try {
			acl(admin, "resetchannels");
			// Redis 7 drops the subscribed connection when its channels are taken away, 6.2 does not
			admin((connection) -> ((RedisClusterAsyncCommands<?, ?>) connection.getNativeConnection())
				.clientKill(KillArgs.Builder.typePubsub()).toCompletableFuture().join(), admin);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(health(app, 200).get("details").get("subscription").asString())
					.isEqualTo("reconnecting"));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				JsonNode details = health(app, 503).get("details");
				assertThat(details.get("subscription").asString()).isEqualTo("lost");
				// the timer's scripts, which publish on the channel, are refused too
				assertThat(details.get("problems").valueStream().map(JsonNode::asString))
					.anySatisfy((problem) -> assertThat(problem).startsWith("event subscription lost for "));
			});
		}
		finally {
			acl(admin, "allchannels");
			admin.destroy();
		}
	}

	/**
	 * A job due an hour ago on a topic this instance has no listener for: a figure for the
	 * metrics and the endpoint, not a reason to take every instance out of service.
	 */
	@Test
	void upWhileAJobOfATopicNobodyHereConsumesIsLongOverdue() {
		App app = this.apps.run(this.redis, Config.class);
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.scheduleAt("h-nobody-listens", "job-1", "x", Instant.now().minus(Duration.ofHours(1)));
		assertThat(template.find("h-nobody-listens", "job-1").orElseThrow().state()).isEqualTo(JobState.READY);
		JsonNode up = health(app, 200);
		assertThat(up.get("status").asString()).isEqualTo("UP");
		assertThat(up.get("details").has("problems")).isFalse();
	}

	@Test
	void downWhenAConsumedTopicWaitsLongerThanItsOptInThreshold() {
		App app = this.apps.run(this.redis, Config.class, "delayqueue.health.max-overdue.h-block=5m",
				"delayqueue.health.max-overdue.h-nobody-listens=1s", "delayqueue.metrics.sample-interval=200ms");
		Blocking blocking = app.bean(Blocking.class);
		blocking.release.countDown();
		app.bean(DelayedListenerEndpointRegistry.class).getListenerContainer("blocker").pause();
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		Instant anHourAgo = Instant.now().minus(Duration.ofHours(1));
		template.scheduleAt("h-nobody-listens", "job-1", "x", anHourAgo);
		health(app, 200);
		template.scheduleAt("h-block", "job-1", "x", anHourAgo);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			JsonNode down = health(app, 503);
			assertThat(down.get("details").get("listeners").get("blocker").asString()).isEqualTo("paused");
			assertThat(down.get("details").get("problems")).hasSize(1);
			assertThat(down.get("details").get("problems").get(0).asString())
				.startsWith("the oldest due job of topic 'h-block' has waited ")
				.endsWith(" for delivery (more than 300000 ms)");
			assertThat(down.get("details").get("overdueLagMillis").get("h-block").asLong())
				.isGreaterThan(Duration.ofMinutes(59).toMillis());
			assertThat(down.get("details").get("overdueLagMillis").has("h-nobody-listens")).isFalse();
		});
		app.bean(DelayedListenerEndpointRegistry.class).getListenerContainer("blocker").resume();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> health(app, 200));
	}

	/**
	 * A probe sends one PING: it never runs the figures' scripts (a script per bucket).
	 */
	@Test
	void aProbeRunsNoScript() {
		App app = this.apps.run(this.redis, NoListeners.class, "delayqueue.timer.enabled=false",
				"spring.autoconfigure.exclude=io.github.delayqueue.autoconfigure.DelayQueueMetricsAutoConfiguration");
		health(app, 200);
		LettuceConnectionFactory admin = TestConnections.lettuce(this.redis, Duration.ofSeconds(10));
		try {
			admin((connection) -> {
				connection.serverCommands().resetConfigStats();
				return null;
			}, admin);
			for (int i = 0; i < 10; i++) {
				assertThat(health(app, 200).get("status").asString()).isEqualTo("UP");
			}
			Properties commands = admin((connection) -> connection.serverCommands().info("commandstats"), admin);
			assertThat(commands.getProperty("cmdstat_evalsha")).isNull();
			assertThat(commands.getProperty("cmdstat_eval")).isNull();
			assertThat(commands.getProperty("cmdstat_ping")).startsWith("calls=10,");
		}
		finally {
			admin.destroy();
		}
	}

	private static <T> T admin(java.util.function.Function<RedisConnection, T> action, LettuceConnectionFactory admin) {
		try (RedisConnection connection = admin.getConnection()) {
			return action.apply(connection);
		}
	}

	private static void acl(LettuceConnectionFactory admin, String rule) {
		admin((connection) -> connection.execute("ACL", bytes("SETUSER"), bytes("default"), bytes(rule)), admin);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
	}

	private static JsonNode health(App app, int status) {
		Response response = app.get("/actuator/health/delayqueue");
		assertThat(response.status()).as(response.body()).isEqualTo(status);
		return response.json();
	}

}
