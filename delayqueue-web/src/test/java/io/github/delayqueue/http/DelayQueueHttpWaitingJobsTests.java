package io.github.delayqueue.http;

import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.RedisDelayQueueWaitingJobsTests;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code GET /delayqueue/topics/{topic}/jobs}: pages of waiting jobs, a million in one topic.
 */
class DelayQueueHttpWaitingJobsTests {

	private static final String TOKEN = "s3cret-token";

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Configuration(proxyBeanMethods = false)
	static class Config {

	}

	private static Response get(App app, String path) {
		return app.send("GET", "/delayqueue" + path, null, "Bearer " + TOKEN);
	}

	@Test
	void pagesOfAMillionDelayedJobsInOneTopicReadABoundedNumberOfEntries() {
		// no timer: the pages' Redis commands are counted
		App app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=1",
				"spring.data.redis.timeout=60s", "delayqueue.http.enabled=true", "delayqueue.http.tokens=" + TOKEN,
				"delayqueue.timer.enabled=false");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		RedisDelayQueue queue = app.bean(RedisDelayQueue.class);
		template.schedule("big", "template", "{\"a\":1}", Duration.ofDays(1));
		RedisDelayQueueWaitingJobsTests.loadDelayed(queue.getConnectionFactory(), queue.getNamespace(), "big",
				1_000_000);
		RedisConnectionFactory factory = queue.getConnectionFactory();
		// (the stats, should the page read them)
		long others = RedisDelayQueueWaitingJobsTests.zrangeCalls(factory, queue::stats)
				+ RedisDelayQueueWaitingJobsTests.BACKGROUND_CALLS;
		try {
			JsonNode first = page(app, factory, others, "first page", "/topics/big/jobs?state=DELAYED&limit=100");
			assertThat(first.get("state").asString()).isEqualTo("DELAYED");
			assertThat(first.get("jobs")).hasSize(100);
			JsonNode job = first.get("jobs").get(0);
			assertThat(job.get("id").asString()).isEqualTo("0000000");
			assertThat(job.get("state").asString()).isEqualTo("DELAYED");
			JsonNode second = page(app, factory, others, "second page",
					"/topics/big/jobs?state=DELAYED&cursor=" + first.get("next").asString());
			assertThat(second.get("jobs")).hasSize(20);
			assertThat(second.get("jobs").get(0).get("id").asString()).isEqualTo("0000100");

			long due = Instant.parse(job.get("dueAt").asString()).toEpochMilli();
			String middle = RedisDelayQueueWaitingJobsTests.cursor(due, "0500000");
			JsonNode page = page(app, factory, others, "middle page",
					"/topics/big/jobs?state=DELAYED&limit=100&cursor=" + middle);
			assertThat(page.get("jobs")).hasSize(100);
			assertThat(page.get("jobs").get(0).get("id").asString()).isEqualTo("0500001");

			// cancel from a row: the existing delete
			assertThat(app.send("DELETE", "/delayqueue/jobs/big/0500001", null, "Bearer " + TOKEN).status())
				.isEqualTo(200);
			assertThat(get(app, "/topics/big/jobs?state=DELAYED&limit=1&cursor=" + middle).json().get("jobs").get(0)
				.get("id").asString()).isEqualTo("0500002");
			JsonNode last = page(app, factory, others, "last page", "/topics/big/jobs?state=DELAYED&limit=100&cursor="
					+ RedisDelayQueueWaitingJobsTests.cursor(due, "0999950"));
			assertThat(last.get("jobs")).hasSize(50);
			assertThat(last.hasNonNull("next")).isFalse();
		}
		finally {
			RedisDelayQueueWaitingJobsTests.unload(queue.getConnectionFactory(), queue.getNamespace());
		}
	}

	private static JsonNode page(App app, RedisConnectionFactory factory, long others, String what, String path) {
		return RedisDelayQueueWaitingJobsTests.boundedPage(factory, "HTTP, " + what, 1_000_001, 100, others,
				() -> get(app, path).json());
	}

	@Test
	void readyAndReservedPagesAndRefusals() {
		App app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=2",
				"delayqueue.http.enabled=true", "delayqueue.http.tokens=" + TOKEN);
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("work", "a", "x", Duration.ZERO);
		template.schedule("work", "b", "y", Duration.ZERO);
		await().until(() -> get(app, "/topics/work/jobs?state=READY").json().get("jobs").size() == 2);
		assertThat(template.getOperations().reserve("work", 1, Duration.ofMinutes(5))).hasSize(1);
		JsonNode reserved = get(app, "/topics/work/jobs?state=RESERVED").json();
		assertThat(reserved.get("jobs")).hasSize(1);
		assertThat(reserved.get("jobs").get(0).get("state").asString()).isEqualTo(JobState.RESERVED.name());
		assertThat(reserved.get("jobs").get(0).hasNonNull("reservedUntil")).isTrue();
		assertThat(reserved.hasNonNull("next")).isFalse();
		// the instance that serves a reserve request holds what it reserves
		assertThat(app.send("POST", "/delayqueue/topics/work/reserve?max=1", null, "Bearer " + TOKEN).json().get("jobs"))
			.hasSize(1);
		JsonNode both = get(app, "/topics/work/jobs?state=RESERVED").json().get("jobs");
		assertThat(both).hasSize(2);
		both.forEach((job) -> assertThat(job.get("reservedBy").asString())
			.isEqualTo(app.bean(RedisDelayQueue.class).getInstanceId()));

		assertThat(app.send("GET", "/delayqueue/topics/work/jobs?state=READY", null, null).status()).isEqualTo(401);
		assertThat(get(app, "/topics/work/jobs").status()).isEqualTo(400);
		Response dead = get(app, "/topics/work/jobs?state=DEAD");
		assertThat(dead.status()).isEqualTo(400);
		assertThat(dead.json().get("detail").asString()).contains("state must be one of DELAYED, READY, RESERVED");
		assertThat(get(app, "/topics/work/jobs?state=READY&limit=0").status()).isEqualTo(400);
		assertThat(get(app, "/topics/work/jobs?state=READY&limit=x").status()).isEqualTo(400);
		assertThat(get(app, "/topics/work/jobs?state=READY&cursor=nonsense").status()).isEqualTo(400);
		assertThat(get(app, "/topics/work/jobs?state=READY&sort=id").status()).isEqualTo(400);
	}

}
