package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.actuate.WebApps.App;
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

/**
 * The endpoint's pages of waiting jobs: {@code GET /actuator/delayqueue/{topic}?state=...}.
 */
class DelayQueueEndpointWaitingJobsTests {

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Configuration(proxyBeanMethods = false)
	static class Config {

	}

	@Test
	void pagesOfAMillionDelayedJobsInOneTopicReadABoundedNumberOfEntries() {
		// no timer: the pages' Redis commands are counted
		App app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=1", "spring.data.redis.timeout=60s",
				"delayqueue.endpoint.show-payloads=true", "delayqueue.timer.enabled=false");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		RedisDelayQueue queue = app.bean(RedisDelayQueue.class);
		template.schedule("big", "template", Map.of("a", 1), Duration.ofDays(1));
		RedisDelayQueueWaitingJobsTests.loadDelayed(queue.getConnectionFactory(), queue.getNamespace(), "big",
				1_000_000);
		try {
			readPages(app, queue);
		}
		finally {
			RedisDelayQueueWaitingJobsTests.unload(queue.getConnectionFactory(), queue.getNamespace());
		}
	}

	private static void readPages(App app, RedisDelayQueue queue) {
		RedisConnectionFactory factory = queue.getConnectionFactory();
		// the page's total comes from the stats
		long others = RedisDelayQueueWaitingJobsTests.zrangeCalls(factory, queue::stats)
				+ RedisDelayQueueWaitingJobsTests.BACKGROUND_CALLS;
		JsonNode first = page(app, factory, others, "first page", "/actuator/delayqueue/big?state=DELAYED&limit=100");
		assertThat(first.get("state").asString()).isEqualTo("DELAYED");
		assertThat(first.get("total").asLong()).isEqualTo(1_000_001);
		assertThat(first.get("jobs")).hasSize(100);
		JsonNode job = first.get("jobs").get(0);
		assertThat(job.get("id").asString()).isEqualTo("0000000");
		assertThat(job.get("state").asString()).isEqualTo("DELAYED");
		assertThat(job.get("payload").asString()).isEqualTo("{\"a\":1}");
		JsonNode second = page(app, factory, others, "second page",
				"/actuator/delayqueue/big?state=DELAYED&limit=100&cursor=" + first.get("next").asString());
		assertThat(second.get("jobs").get(0).get("id").asString()).isEqualTo("0000100");

		// a page in the middle of the million: a bisection, then one window
		long due = Instant.parse(job.get("dueAt").asString()).toEpochMilli();
		String middle = RedisDelayQueueWaitingJobsTests.cursor(due, "0500000");
		JsonNode page = page(app, factory, others, "middle page",
				"/actuator/delayqueue/big?state=DELAYED&limit=100&cursor=" + middle);
		assertThat(page.get("jobs")).hasSize(100);
		assertThat(page.get("jobs").get(0).get("id").asString()).isEqualTo("0500001");

		// cancel from a row: the endpoint's delete
		assertThat(app.delete("/actuator/delayqueue/big/0500001").status()).isEqualTo(200);
		assertThat(app.get("/actuator/delayqueue/big?state=DELAYED&limit=1&cursor=" + middle).json().get("jobs").get(0)
			.get("id").asString()).isEqualTo("0500002");
		JsonNode last = page(app, factory, others, "last page", "/actuator/delayqueue/big?state=DELAYED&limit=100&cursor="
				+ RedisDelayQueueWaitingJobsTests.cursor(due, "0999950"));
		assertThat(last.get("jobs")).hasSize(50);
		assertThat(last.hasNonNull("next")).isFalse();
	}

	private static JsonNode page(App app, RedisConnectionFactory factory, long others, String what, String path) {
		return RedisDelayQueueWaitingJobsTests.boundedPage(factory, "endpoint, " + what, 1_000_001, 100, others,
				() -> app.get(path).json());
	}

	@Test
	void reservedJobsShowTheirDeadlinesAndBadArgumentsAre400() {
		App app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=2");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("work", "a", "x", Duration.ZERO);
		org.awaitility.Awaitility.await()
			.until(() -> template.getOperations().reserve("work", 1, Duration.ofMinutes(5)).size() == 1);
		JsonNode reserved = app.get("/actuator/delayqueue/work?state=RESERVED").json();
		assertThat(reserved.get("total").asLong()).isEqualTo(1);
		assertThat(reserved.get("jobs").get(0).get("id").asString()).isEqualTo("a");
		assertThat(reserved.get("jobs").get(0).hasNonNull("reservedUntil")).isTrue();
		assertThat(reserved.get("jobs").get(0).get("reservedBy").asString())
			.isEqualTo(app.bean(RedisDelayQueue.class).getInstanceId());
		assertThat(reserved.get("jobs").get(0).hasNonNull("payload")).isFalse();
		assertThat(app.get("/actuator/delayqueue/work?state=READY").json().get("jobs")).isEmpty();

		// run now: a reschedule with no delay, for a waiting job only
		template.schedule("work", "later", "y", Duration.ofHours(1));
		JsonNode ran = app.post("/actuator/delayqueue/work", "{\"action\":\"run\",\"id\":\"later\"}").json();
		assertThat(ran.get("action").asString()).isEqualTo("run");
		assertThat(ran.get("count").asInt()).isEqualTo(1);
		assertThat(template.find("work", "later").orElseThrow().state()).isNotEqualTo(JobState.DELAYED);
		// a READY job is due already: run leaves it (and its place among the due jobs) as it is
		template.schedule("work", "due", "z", Duration.ZERO);
		org.awaitility.Awaitility.await()
			.until(() -> template.find("work", "due").orElseThrow().state() == JobState.READY);
		java.time.Instant dueAt = template.find("work", "due").orElseThrow().dueAt();
		JsonNode leftAlone = app.post("/actuator/delayqueue/work", "{\"action\":\"run\",\"id\":\"due\"}").json();
		assertThat(leftAlone.get("count").asInt()).isZero();
		assertThat(template.find("work", "due").orElseThrow().dueAt()).isEqualTo(dueAt);
		assertThat(app.post("/actuator/delayqueue/work", "{\"action\":\"run\",\"id\":\"a\"}").status()).isEqualTo(400);
		assertThat(app.post("/actuator/delayqueue/work", "{\"action\":\"run\",\"id\":\"nope\"}").status()).isEqualTo(404);
		assertThat(app.post("/actuator/delayqueue/work", "{\"action\":\"run\"}").status()).isEqualTo(400);
		assertThat(template.find("work", "a").orElseThrow().state()).isEqualTo(JobState.RESERVED);

		assertThat(app.get("/actuator/delayqueue/work?state=DEAD").json().get("detail").asString())
			.contains("state must be one of DELAYED, READY, RESERVED");
		assertThat(app.get("/actuator/delayqueue/work?state=DELAYED&cursor=nonsense").status()).isEqualTo(400);
		assertThat(app.get("/actuator/delayqueue/work?state=DELAYED&limit=0").status()).isEqualTo(400);
		// the finished jobs' cursor belongs to the topic view: with state it would be ignored
		WebApps.Response completed = app.get("/actuator/delayqueue/work?state=DELAYED&completedCursor=x");
		assertThat(completed.status()).isEqualTo(400);
		assertThat(completed.json().get("detail").asString())
			.contains("completedCursor must not be given with state");
	}

}
