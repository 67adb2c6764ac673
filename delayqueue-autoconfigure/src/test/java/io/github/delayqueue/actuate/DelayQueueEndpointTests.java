package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/delayqueue} over HTTP, against a known mix of jobs in every state.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueEndpointTests {

	@RegisterExtension
	final WebApps apps = new WebApps();

	private App app;

	private DelayedJobTemplate template;

	private DelayQueueOperations operations;

	private RedisDelayQueue queue;

	static class Listeners {

		@DelayedListener(topic = "webhooks", id = "webhook-sender", autoStartup = "false", concurrency = "3")
		void send(String body) {
		}

		@DelayedListener(topic = "webhooks", id = "webhook-auditor", autoStartup = "false")
		void audit(String body) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	@BeforeEach
	void startApp() {
		this.app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=4",
				"delayqueue.endpoint.show-payloads=true", "delayqueue.retention.kept.completed=5");
		this.template = this.app.bean(DelayedJobTemplate.class);
		this.operations = this.template.getOperations();
		this.queue = this.app.bean(RedisDelayQueue.class);
	}

	/**
	 * Topic "orders": 2 DEAD, 1 RESERVED, 2 READY, 3 DELAYED; topic "mails": 1 DELAYED; topic
	 * "webhooks": no jobs, two stopped listeners.
	 */
	private void createMix() {
		for (String id : List.of("d1", "d2")) {
			this.template.schedule("orders", id, Map.of("order", id), Duration.ZERO);
		}
		List<ReservedJob> dying = this.operations.reserve("orders", 2, Duration.ofHours(1));
		assertThat(dying).hasSize(2);
		dying.forEach((job) -> this.operations.kill(job, "boom " + job.id()));
		this.template.schedule("orders", "s1", Map.of("order", "s1"), Duration.ZERO);
		assertThat(this.operations.reserve("orders", 1, Duration.ofHours(1))).hasSize(1);
		for (String id : List.of("r1", "r2")) {
			this.template.schedule("orders", id, Map.of("order", id), Duration.ZERO);
		}
		for (String id : List.of("w1", "w2", "w3")) {
			this.template.schedule("orders", id, Map.of("order", id), Duration.ofHours(1));
		}
		this.template.schedule("mails", "m1", "hello", Duration.ofMinutes(30));
	}

	@Test
	void readShowsEveryFigureOfRedis() {
		Instant before = Instant.now();
		createMix();
		Response response = this.app.get("/actuator/delayqueue");
		assertThat(response.status()).isEqualTo(200);
		JsonNode body = response.json();

		assertThat(body.get("instance").asString()).isEqualTo(this.queue.getInstanceId());
		assertFigures(body.get("totals"), 4, 2, 1, 2);
		assertFigures(body.get("topics").get("orders"), 3, 2, 1, 2);
		assertFigures(body.get("topics").get("mails"), 1, 0, 0, 0);
		assertFigures(body.get("topics").get("webhooks"), 0, 0, 0, 0);

		// listeners of the topic, with their state and concurrency
		JsonNode listeners = body.get("topics").get("webhooks").get("listeners");
		assertThat(listeners).hasSize(2);
		Map<String, JsonNode> byId = new TreeMap<>();
		listeners.forEach((listener) -> byId.put(listener.get("id").asString(), listener));
		assertThat(byId.get("webhook-sender").get("state").asString()).isEqualTo("stopped");
		assertThat(byId.get("webhook-sender").get("concurrency").asInt()).isEqualTo(3);
		assertThat(byId.get("webhook-sender").get("inFlight").asInt()).isZero();
		assertThat(byId.get("webhook-auditor").get("concurrency").asInt()).isEqualTo(1);

		// each bucket's figures are exactly those of the jobs that hash to it
		long[][] expected = new long[4][4];
		Map<String, JobState> states = new TreeMap<>(Map.of("d1", JobState.DEAD, "d2", JobState.DEAD, "s1",
				JobState.RESERVED, "r1", JobState.READY, "r2", JobState.READY, "w1", JobState.DELAYED, "w2",
				JobState.DELAYED, "w3", JobState.DELAYED));
		Instant[] nextDue = new Instant[4];
		states.forEach((id, state) -> {
			int bucket = this.queue.bucketOf("orders", id);
			expected[bucket][state.ordinal()]++;
			JobInfo job = this.template.find("orders", id).orElseThrow();
			assertThat(job.state()).isEqualTo(state);
			Instant event = (state == JobState.DELAYED) ? job.dueAt()
					: (state == JobState.RESERVED) ? job.reservedUntil() : null;
			if (event != null && (nextDue[bucket] == null || event.isBefore(nextDue[bucket]))) {
				nextDue[bucket] = event;
			}
		});
		int mailsBucket = this.queue.bucketOf("mails", "m1");
		expected[mailsBucket][JobState.DELAYED.ordinal()]++;
		Instant mailsDue = this.template.find("mails", "m1").orElseThrow().dueAt();
		if (nextDue[mailsBucket] == null || mailsDue.isBefore(nextDue[mailsBucket])) {
			nextDue[mailsBucket] = mailsDue;
		}
		JsonNode buckets = body.get("buckets");
		assertThat(buckets).hasSize(4);
		for (int b = 0; b < 4; b++) {
			JsonNode bucket = buckets.get(b);
			assertThat(bucket.get("bucket").asInt()).isEqualTo(b);
			assertFigures(bucket, expected[b][0], expected[b][1], expected[b][2], expected[b][3]);
			assertThat(bucket.get("timerOwner").asString()).isEqualTo(this.queue.getInstanceId());
			if (nextDue[b] == null) {
				assertThat(bucket.path("nextDueAt").isValueNode()).isFalse();
			}
			else {
				assertThat(Instant.parse(bucket.get("nextDueAt").asString())).isEqualTo(nextDue[b]);
			}
		}

		// the oldest overdue job: the earlier READY job, due when it was scheduled
		Instant oldestReady = this.template.find("orders", "r1").orElseThrow().dueAt();
		JsonNode orders = body.get("topics").get("orders");
		assertThat(Instant.parse(orders.get("overdueSince").asString())).isEqualTo(oldestReady);
		Instant readAt = Instant.parse(body.get("readAt").asString());
		long lag = Duration.between(oldestReady, readAt).toMillis();
		assertThat(orders.get("overdueLagMillis").asLong()).isEqualTo(lag);
		assertThat(body.get("oldestOverdueLagMillis").asLong()).isEqualTo(lag);
		assertThat(lag).isBetween(0L, Duration.between(before, Instant.now()).toMillis() + 1000);
		assertThat(body.get("topics").get("mails").get("overdueLagMillis").asLong()).isZero();
		assertThat(body.get("topics").get("mails").path("overdueSince").isValueNode()).isFalse();
	}

	@Test
	void topicShowsItsFiguresAndAPageOfDeadJobs() {
		createMix();
		JsonNode orders = this.app.get("/actuator/delayqueue/orders").json();
		assertFigures(orders, 3, 2, 1, 2);
		JsonNode dead = orders.get("deadJobs");
		assertThat(dead.get("total").asLong()).isEqualTo(2);
		assertThat(dead.get("jobs")).hasSize(2);
		for (JsonNode job : dead.get("jobs")) {
			String id = job.get("id").asString();
			assertThat(id).isIn("d1", "d2");
			assertThat(job.get("attempts").asInt()).isEqualTo(1);
			assertThat(job.get("maxAttempts").asInt()).isEqualTo(5);
			assertThat(job.get("lastError").asString()).isEqualTo("boom " + id);
			assertThat(job.get("payload").asString()).isEqualTo("{\"order\":\"" + id + "\"}");
			assertThat(Instant.parse(job.get("diedAt").asString()))
				.isEqualTo(this.template.find("orders", id).orElseThrow().diedAt());
		}
		assertThat(dead.hasNonNull("next")).isFalse();
		JsonNode first = this.app.get("/actuator/delayqueue/orders?limit=1").json().get("deadJobs");
		assertThat(first.get("jobs")).hasSize(1);
		assertThat(first.get("jobs").get(0).get("id").asString())
			.isEqualTo(dead.get("jobs").get(0).get("id").asString());
		String cursor = first.get("next").asString();
		JsonNode second = this.app.get("/actuator/delayqueue/orders?limit=1&cursor=" + cursor).json().get("deadJobs");
		assertThat(second.get("jobs")).hasSize(1);
		assertThat(second.get("jobs").get(0).get("id").asString())
			.isEqualTo(dead.get("jobs").get(1).get("id").asString());
		assertThat(second.hasNonNull("next")).isFalse();

		JsonNode webhooks = this.app.get("/actuator/delayqueue/webhooks").json();
		assertFigures(webhooks, 0, 0, 0, 0);
		assertThat(webhooks.get("listeners")).hasSize(2);
		assertThat(webhooks.get("deadJobs").get("total").asLong()).isZero();
	}

	@Test
	void writeOperationsAreReflectedInTheNextRead() {
		createMix();
		Response one = this.app.post("/actuator/delayqueue/orders", "{\"action\":\"replay\",\"max\":1}");
		assertThat(one.status()).isEqualTo(200);
		assertThat(one.json().get("count").asLong()).isEqualTo(1);
		assertFigures(this.app.get("/actuator/delayqueue/orders").json(), 3, 3, 1, 1);

		String stillDead = this.app.get("/actuator/delayqueue/orders").json().get("deadJobs").get("jobs").get(0)
			.get("id").asString();
		Response byId = this.app.post("/actuator/delayqueue/orders",
				"{\"action\":\"replay\",\"id\":\"" + stillDead + "\"}");
		assertThat(byId.status()).isEqualTo(200);
		assertThat(this.template.find("orders", stillDead).orElseThrow().state()).isEqualTo(JobState.READY);
		assertFigures(this.app.get("/actuator/delayqueue/orders").json(), 3, 4, 1, 0);
		Response again = this.app.post("/actuator/delayqueue/orders",
				"{\"action\":\"replay\",\"id\":\"" + stillDead + "\"}");
		assertThat(again.status()).isEqualTo(404);
		assertThat(again.json().get("detail").asString()).contains(stillDead);

		// all
		ReservedJob job = this.operations.reserve("orders", 1, Duration.ofHours(1)).get(0);
		this.operations.kill(job, "again");
		assertThat(this.app.post("/actuator/delayqueue/orders", "{\"action\":\"replay\"}").json().get("count").asLong())
			.isEqualTo(1);
		assertThat(this.app.get("/actuator/delayqueue/orders").json().get("dead").asLong()).isZero();

		// cancel
		Response cancelled = this.app.delete("/actuator/delayqueue/orders/w1");
		assertThat(cancelled.status()).isEqualTo(200);
		assertThat(cancelled.json().get("count").asLong()).isEqualTo(1);
		assertThat(this.template.find("orders", "w1")).isEmpty();
		assertThat(this.app.get("/actuator/delayqueue/orders").json().get("delayed").asLong()).isEqualTo(2);
		assertThat(this.app.delete("/actuator/delayqueue/orders/w1").status()).isEqualTo(404);

		// pause and resume one listener, then all of the topic
		assertThat(this.app.post("/actuator/delayqueue/webhooks",
				"{\"action\":\"pause\",\"listener\":\"webhook-sender\"}").status()).isEqualTo(200);
		assertThat(listenerPaused("webhook-sender")).isTrue();
		assertThat(listenerPaused("webhook-auditor")).isFalse();
		Response all = this.app.post("/actuator/delayqueue/webhooks", "{\"action\":\"pause\"}");
		assertThat(all.json().get("count").asLong()).isEqualTo(2);
		assertThat(listenerPaused("webhook-auditor")).isTrue();
		this.app.post("/actuator/delayqueue/webhooks", "{\"action\":\"resume\",\"listener\":\"webhook-sender\"}");
		assertThat(listenerPaused("webhook-sender")).isFalse();
		assertThat(listenerPaused("webhook-auditor")).isTrue();
	}

	@Test
	void replayAnswersTheIdsItReplayedAndEveryWriteIsAudited(CapturedOutput output) {
		createMix();
		Response replayed = this.app.post("/actuator/delayqueue/orders", "{\"action\":\"replay\"}");
		assertThat(replayed.status()).isEqualTo(200);
		assertThat(replayed.json().get("count").asLong()).isEqualTo(2);
		assertThat(replayed.json().get("ids")).extracting(JsonNode::asString).containsExactlyInAnyOrder("d1", "d2");
		assertThat(output).containsPattern("io.github.delayqueue.audit - "
				+ "by=anonymous via=endpoint action=replay topic=orders count=2 ids=\\[d[12], d[12]\\]");

		this.app.delete("/actuator/delayqueue/orders/w1");
		this.app.delete("/actuator/delayqueue/orders/w1");
		this.app.post("/actuator/delayqueue/webhooks", "{\"action\":\"pause\",\"listener\":\"webhook-sender\"}");
		this.app.post("/actuator/delayqueue", "{\"action\":\"repair\",\"dryRun\":true}");
		assertThat(this.app.post("/actuator/delayqueue/orders", "{\"action\":\"replay\",\"id\":\"nope\"}").status())
			.isEqualTo(404);
		assertThat(output).contains("by=anonymous via=endpoint action=cancel topic=orders count=1 ids=[w1]")
			.contains("by=anonymous via=endpoint action=cancel topic=orders count=0 ids=[w1]")
			.contains("by=anonymous via=endpoint action=pause topic=webhooks count=1 ids=[webhook-sender]")
			.contains("by=anonymous via=endpoint action=repair-dry-run count=0 jobs=")
			.contains("by=anonymous via=endpoint action=replay topic=orders count=0 ids=[nope]");
		// refused input changes nothing and is not a write
		this.app.post("/actuator/delayqueue/orders", "{\"action\":\"replay\",\"mx\":1}");
		assertThat(output).doesNotContain("ids=[mx]").containsOnlyOnce("action=replay topic=orders count=2");
	}

	private boolean listenerPaused(String id) {
		// a stopped container remembers the pause; the endpoint shows the container's state
		return this.app.bean(io.github.delayqueue.config.DelayedListenerEndpointRegistry.class)
			.getListenerContainer(id)
			.isPaused();
	}

	@Test
	void unknownThingsAre404AndBadArguments400() {
		createMix();
		expect(this.app.get("/actuator/delayqueue/nothing-here"), 404, "nothing-here");
		expect(this.app.post("/actuator/delayqueue/nothing-here", "{\"action\":\"replay\"}"), 404, "nothing-here");
		expect(this.app.post("/actuator/delayqueue/nothing-here", "{\"action\":\"replay\",\"max\":5}"), 404,
				"nothing-here");
		expect(this.app.post("/actuator/delayqueue/webhooks", "{\"action\":\"pause\",\"listener\":\"nope\"}"), 404,
				"nope");
		expect(this.app.post("/actuator/delayqueue/orders", "{\"action\":\"pause\"}"), 404, "No listener");
		expect(this.app.delete("/actuator/delayqueue/orders/nope"), 404, "nope");

		expect(this.app.post("/actuator/delayqueue/orders", "{\"action\":\"explode\"}"), 400, "action must be one of");
		expect(this.app.post("/actuator/delayqueue/orders", "{\"action\":\"replay\",\"max\":0}"), 400, "max");
		expect(this.app.post("/actuator/delayqueue/orders", "{\"action\":\"replay\",\"max\":1,\"id\":\"d1\"}"), 400,
				"either id or max");
		expect(this.app.get("/actuator/delayqueue/orders?limit=5000"), 400, "limit");
		expect(this.app.get("/actuator/delayqueue/orders?cursor=nonsense"), 400, "cursor");
		expect(this.app.get("/actuator/delayqueue/bad%20topic"), 400, "topic");
		assertThat(this.app.post("/actuator/delayqueue/orders", "{}").status()).isEqualTo(400);

		// nothing changed
		assertFigures(this.app.get("/actuator/delayqueue/orders").json(), 3, 2, 1, 2);
	}

	@Test
	void aTopicThatOnlyKeepsFinishedJobsIsKnownToReadsAndWritesAlike() {
		this.template.schedule("kept", "k1", "done", Duration.ZERO);
		List<ReservedJob> reserved = this.operations.reserve("kept", 1, Duration.ofHours(1));
		assertThat(reserved).hasSize(1);
		assertThat(this.operations.finish(reserved.get(0))).isTrue();
		Response read = this.app.get("/actuator/delayqueue/kept");
		assertThat(read.status()).as(read.body()).isEqualTo(200);
		assertThat(read.json().get("completedJobs").get("total").asLong()).isEqualTo(1);
		Response replayed = this.app.post("/actuator/delayqueue/kept", "{\"action\":\"replay\"}");
		assertThat(replayed.status()).as(replayed.body()).isEqualTo(200);
		assertThat(replayed.json().get("count").asLong()).isZero();
	}

	private static void expect(Response response, int status, String message) {
		assertThat(response.status()).as(response.body()).isEqualTo(status);
		assertThat(response.json().get("detail").asString()).contains(message);
	}

	private static void assertFigures(JsonNode node, long delayed, long ready, long reserved, long dead) {
		assertThat(node.get("delayed").asLong()).as("delayed in %s", node).isEqualTo(delayed);
		assertThat(node.get("ready").asLong()).as("ready in %s", node).isEqualTo(ready);
		assertThat(node.get("reserved").asLong()).as("reserved in %s", node).isEqualTo(reserved);
		assertThat(node.get("dead").asLong()).as("dead in %s", node).isEqualTo(dead);
	}

}
