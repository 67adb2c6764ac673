package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With Redis unreachable, the dashboard's routes answer 503 with a generic text (nothing of the
 * driver's message: not the host nor the port of Redis), the page itself still loads, and a
 * write changes nothing.
 */
class DelayQueueDashboardRedisDownTests {

	@RegisterExtension
	final WebApps apps = new WebApps();

	private RedisTestServer redis;

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	@BeforeEach
	void startRedis() {
		// with an append-only file, so that what was written before the stop is there after it
		this.redis = RedisTestServers.local().appendOnly().start();
	}

	@AfterEach
	void closeRedis() {
		this.redis.close();
	}

	@Test
	void unreachableRedisIsAnsweredWithoutItsAddressAndChangesNothing() {
		App app = this.apps.run(this.redis, NoBeans.class, "delayqueue.buckets=4", "delayqueue.dashboard.enabled=true",
				"delayqueue.dashboard.allow-unauthenticated=true", "spring.data.redis.timeout=500ms");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("orders", "o-1", "{}", Duration.ZERO);
		List<ReservedJob> jobs = template.getOperations().reserve("orders", 1, Duration.ofMinutes(5));
		template.getOperations().kill(jobs.get(0), "boom");
		this.redis.stop();

		String write = DelayQueueDashboard.WRITE_HEADER;
		List<Response> answers = List.of(app.get("/delayqueue-dashboard/api/overview"),
				app.get("/delayqueue-dashboard/api/job?topic=orders&id=o-1"),
				app.get("/delayqueue-dashboard/api/dead?topic=orders"),
				app.form("POST", "/delayqueue-dashboard/api/replay", "topic=orders&id=o-1", write, "write"),
				app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders&id=o-1", write, "write"));
		Response page = app.get("/delayqueue-dashboard");
		this.redis.start();

		for (Response answer : answers) {
			assertThat(answer.status()).as(answer.body()).isEqualTo(503);
			assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
					(type) -> assertThat(type).startsWith("application/problem+json"));
			assertThat(answer.json().get("detail").asString())
				.isEqualTo("Redis cannot be reached (the application's log says more)");
			assertThat(answer.body()).doesNotContain(String.valueOf(this.redis.port()), this.redis.host(), "127.0.0.1",
					"localhost", "Exception");
		}
		assertThat(page.status()).as("the page needs no Redis").isEqualTo(200);
		// the client reconnects to the restarted server in the background
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptionsInstanceOf(DelayQueueConnectionException.class)
			.untilAsserted(() -> assertThat(template.find("orders", "o-1")).hasValueSatisfying(
					(job) -> assertThat(job.state().name()).as("the refused replay and cancel changed nothing")
						.isEqualTo("DEAD")));
		QueueInvariant.assertHolds(this.redis, this.apps.namespace, 4);
	}

}
