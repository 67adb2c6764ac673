package io.github.delayqueue.http;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.support.OneBucket;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The HTTP job API in a running web application, against a real Redis: the same jobs as the
 * Java API, the status codes of the contract, bad input refused without a change.
 */
class DelayQueueHttpApiTests {

	static final String TOKEN = "s3cret-token";

	@RegisterExtension
	final WebApps apps = new WebApps();

	private App app;

	private DelayedJobTemplate template;

	private DelayQueueOperations operations;

	record Order(String orderId, int amount) {
	}

	static class Listener {

		final BlockingQueue<DelayedJob<Order>> received = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "http-in")
		void handle(DelayedJob<Order> job) {
			this.received.add(job);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Listener listener() {
			return new Listener();
		}

	}

	@BeforeEach
	void startApp() {
		this.app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=4",
				"delayqueue.http.enabled=true", "delayqueue.http.tokens=" + TOKEN);
		this.template = this.app.bean(DelayedJobTemplate.class);
		this.operations = this.template.getOperations();
	}

	private Response call(String method, String path, String body) {
		return this.app.send(method, "/delayqueue" + path, body, "Bearer " + TOKEN);
	}

	@Test
	void jobAddedOverHttpReachesADelayedListener() throws InterruptedException {
		Response added = call("POST", "/jobs",
				"{\"topic\":\"http-in\",\"id\":\"o-1\",\"delay\":\"PT0.3S\",\"maxAttempts\":3,"
						+ "\"body\":{\"orderId\":\"o-1\",\"amount\":42}}");
		assertThat(added.status()).isEqualTo(201);
		assertThat(added.json().get("created").booleanValue()).isTrue();
		assertThat(added.json().get("state").asString()).isEqualTo("DELAYED");
		assertThat(added.headers().firstValue("Location")).hasValue("/delayqueue/jobs/http-in/o-1");
		Instant dueAt = Instant.parse(added.json().get("dueAt").asString());

		DelayedJob<Order> job = app().received.poll(10, TimeUnit.SECONDS);
		assertThat(job).isNotNull();
		assertThat(job.payload()).isEqualTo(new Order("o-1", 42));
		assertThat(job.id()).isEqualTo("o-1");
		assertThat(job.maxAttempts()).isEqualTo(3);
		assertThat(job.deliveredAt()).isAfterOrEqualTo(dueAt);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.operations.find("http-in", "o-1").isEmpty());
	}

	private Listener app() {
		return this.app.bean(Listener.class);
	}

	@Test
	void jobScheduledInJavaIsReservedAndFinishedOverHttp() {
		this.template.job("http-out", "j-1").payload(Map.of("n", 1)).delay(Duration.ZERO).ttr(Duration.ofMinutes(2))
			.schedule();
		this.template.schedule("http-out", "j-2", "plain text, not JSON", Duration.ZERO);

		JsonNode jobs = call("POST", "/topics/http-out/reserve?max=10&wait=PT5S", null).json().get("jobs");
		assertThat(jobs).hasSize(2);
		JsonNode first = jobs.get(0).get("id").asString().equals("j-1") ? jobs.get(0) : jobs.get(1);
		JsonNode second = (first == jobs.get(0)) ? jobs.get(1) : jobs.get(0);
		assertThat(first.get("body").get("n").asInt()).isEqualTo(1);
		assertThat(first.get("attempt").asInt()).isEqualTo(1);
		assertThat(first.get("ttr").asString()).isEqualTo("PT2M");
		assertThat(Instant.parse(first.get("reservedUntil").asString()))
			.isEqualTo(Instant.parse(first.get("deliveredAt").asString()).plus(Duration.ofMinutes(2)));
		assertThat(second.get("body").asString()).isEqualTo("plain text, not JSON");
		assertThat(this.operations.find("http-out", "j-1").get().state()).isEqualTo(JobState.RESERVED);

		for (JsonNode job : jobs) {
			Response finished = call("POST", "/jobs/http-out/" + job.get("id").asString() + "/finish",
					"{\"token\":" + job.get("token").asLong() + "}");
			assertThat(finished.status()).isEqualTo(200);
			assertThat(finished.json().get("finished").booleanValue()).isTrue();
		}
		assertThat(this.operations.find("http-out", "j-1")).isEmpty();
		assertThat(this.operations.find("http-out", "j-2")).isEmpty();
		Response again = call("POST", "/jobs/http-out/j-1/finish", "{\"token\":\"" + first.get("token").asLong() + "\"}");
		assertThat(again.status()).isEqualTo(409);
		assertThat(again.json().get("field").asString()).isEqualTo("token");
	}

	@Test
	void headersAddedOverHttpAreShownByFindAndReserveAndBadOnesAreRefused() {
		Response added = call("POST", "/jobs", "{\"topic\":\"http-headers\",\"id\":\"h-1\",\"delay\":0,"
				+ "\"headers\":{\"tenant\":\"acme\",\"trace\":\"t-9\"},\"body\":{\"n\":1}}");
		assertThat(added.status()).isEqualTo(201);
		JsonNode found = call("GET", "/jobs/http-headers/h-1", null).json();
		assertThat(found.get("headers").get("tenant").asString()).isEqualTo("acme");
		assertThat(found.get("headers").get("trace").asString()).isEqualTo("t-9");
		assertThat(found.get("body").get("n").asInt()).isEqualTo(1);
		JsonNode reserved = call("POST", "/topics/http-headers/reserve?max=1&wait=PT5S", null).json().get("jobs").get(0);
		assertThat(reserved.get("headers").get("tenant").asString()).isEqualTo("acme");
		assertThat(reserved.get("body").get("n").asInt()).isEqualTo(1);
		assertThat(this.operations.find("http-headers", "h-1").orElseThrow().headers())
			.containsEntry("trace", "t-9");

		for (String headers : new String[] { "[1]", "{\"tenant\":1}", "{\"id\":\"x\"}", "{\"a b\":\"x\"}" }) {
			Response refused = call("POST", "/jobs",
					"{\"topic\":\"http-headers\",\"id\":\"h-2\",\"delay\":0,\"headers\":" + headers
							+ ",\"body\":1}");
			assertThat(refused.status()).as(headers).isEqualTo(400);
			assertThat(refused.json().get("detail").asString()).as(headers).contains("header");
		}
		assertThat(call("GET", "/jobs/http-headers/h-2", null).status()).isEqualTo(404);
		// a job without headers shows none
		call("POST", "/jobs", "{\"topic\":\"http-headers\",\"id\":\"h-3\",\"delay\":\"PT1H\",\"body\":1}");
		assertThat(call("GET", "/jobs/http-headers/h-3", null).json().has("headers")).isFalse();
	}

	@Test
	void aPriorityAddedOverHttpIsShownAndTakenFirst() {
		// priorities order the jobs of one bucket: three ids that share one
		List<String> ids = OneBucket.ids(this.app.bean(RedisDelayQueue.class), "http-prio", 3);
		String low = ids.get(0);
		String plain = ids.get(1);
		String urgent = ids.get(2);
		assertThat(call("POST", "/jobs", "{\"topic\":\"http-prio\",\"id\":\"" + low + "\",\"delay\":0,\"priority\":0,"
				+ "\"body\":1}").status()).isEqualTo(201);
		assertThat(call("POST", "/jobs", "{\"topic\":\"http-prio\",\"id\":\"" + plain + "\",\"delay\":0,\"body\":2}")
			.status()).isEqualTo(201);
		assertThat(call("POST", "/jobs", "{\"topic\":\"http-prio\",\"id\":\"" + urgent
				+ "\",\"delay\":0,\"priority\":9,\"body\":3}").status()).isEqualTo(201);
		assertThat(call("GET", "/jobs/http-prio/" + urgent, null).json().get("priority").asInt()).isEqualTo(9);
		assertThat(call("GET", "/jobs/http-prio/" + plain, null).json().get("priority").asInt()).isEqualTo(5);
		assertThat(this.operations.find("http-prio", low).orElseThrow().priority()).isZero();
		List<String> taken = new ArrayList<>();
		while (taken.size() < 3) {
			for (JsonNode job : call("POST", "/topics/http-prio/reserve?max=3&wait=PT5S", null).json().get("jobs")) {
				taken.add(job.get("id").asString());
				call("POST", "/jobs/http-prio/" + job.get("id").asString() + "/finish",
						"{\"token\":" + job.get("token").asLong() + "}");
			}
		}
		assertThat(taken).containsExactly(urgent, plain, low);
	}

	@Test
	void cancelOverHttpPreventsDelivery() throws InterruptedException {
		assertThat(call("POST", "/jobs", addBody("http-in", "cancelled", "PT1S")).status()).isEqualTo(201);
		Response cancelled = call("DELETE", "/jobs/http-in/cancelled", null);
		assertThat(cancelled.status()).isEqualTo(200);
		assertThat(cancelled.json().get("cancelled").booleanValue()).isTrue();
		assertThat(call("GET", "/jobs/http-in/cancelled", null).status()).isEqualTo(404);
		assertThat(call("DELETE", "/jobs/http-in/cancelled", null).status()).isEqualTo(404);
		// a later job comes through; the cancelled one, due before it, never does
		assertThat(call("POST", "/jobs", addBody("http-in", "later", "PT1.2S")).status()).isEqualTo(201);
		DelayedJob<Order> job = app().received.poll(10, TimeUnit.SECONDS);
		assertThat(job).isNotNull();
		assertThat(job.id()).isEqualTo("later");
		assertThat(app().received).isEmpty();
	}

	@Test
	void runMakesADelayedJobDueNowLeavesAReadyOneInItsPlaceAndRefusesTheRest() {
		this.template.schedule("run-t", "later", "x", Duration.ofHours(1));
		Response ran = call("POST", "/jobs/run-t/later/run", null);
		assertThat(ran.status()).as(ran.body()).isEqualTo(200);
		assertThat(ran.json().get("rescheduled").booleanValue()).isTrue();
		assertThat(this.operations.find("run-t", "later").orElseThrow().state()).isNotEqualTo(JobState.DELAYED);
		JsonNode taken = call("POST", "/topics/run-t/reserve?wait=PT5S", null).json().get("jobs");
		assertThat(taken).hasSize(1);
		assertThat(taken.get(0).get("id").asString()).isEqualTo("later");

		// a RESERVED job is not waiting: 400 naming the id, its reservation untouched
		Instant reservedUntil = this.operations.find("run-t", "later").orElseThrow().reservedUntil();
		Response reserved = call("POST", "/jobs/run-t/later/run", null);
		assertThat(reserved.status()).as(reserved.body()).isEqualTo(400);
		assertThat(reserved.json().get("field").asString()).isEqualTo("id");
		assertThat(reserved.json().get("detail").asString()).contains("RESERVED or DEAD");
		assertThat(this.operations.find("run-t", "later").orElseThrow()).satisfies((job) -> {
			assertThat(job.state()).isEqualTo(JobState.RESERVED);
			assertThat(job.reservedUntil()).isEqualTo(reservedUntil);
		});

		// a READY job is due already: left as it is, in its place among the due jobs
		this.template.schedule("run-t", "due", "y", Duration.ZERO);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.operations.find("run-t", "due").orElseThrow().state() == JobState.READY);
		Instant dueAt = this.operations.find("run-t", "due").orElseThrow().dueAt();
		Response leftAlone = call("POST", "/jobs/run-t/due/run", null);
		assertThat(leftAlone.status()).as(leftAlone.body()).isEqualTo(200);
		assertThat(leftAlone.json().get("rescheduled").booleanValue()).isFalse();
		assertThat(this.operations.find("run-t", "due").orElseThrow()).satisfies((job) -> {
			assertThat(job.state()).isEqualTo(JobState.READY);
			assertThat(job.dueAt()).isEqualTo(dueAt);
		});

		// a DEAD job: 400, still DEAD
		this.template.schedule("run-dead", "d", "z", Duration.ZERO);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.operations.find("run-dead", "d").orElseThrow().state() == JobState.READY);
		this.operations.kill(this.operations.reserve("run-dead", 1, null).get(0), "boom");
		assertThat(call("POST", "/jobs/run-dead/d/run", null).status()).isEqualTo(400);
		assertThat(this.operations.find("run-dead", "d").orElseThrow().state()).isEqualTo(JobState.DEAD);

		// no such job: 404; a bad id: 400 naming it; a body or a parameter: 400; nothing changed
		Response unknown = call("POST", "/jobs/run-t/nope/run", null);
		assertThat(unknown.status()).isEqualTo(404);
		assertThat(unknown.json().get("detail").asString()).contains("no job nope in topic run-t");
		assertThat(this.operations.find("run-t", "nope")).isEmpty();
		Response tooLong = call("POST", "/jobs/run-t/" + "i".repeat(201) + "/run", null);
		assertThat(tooLong.status()).isEqualTo(400);
		assertThat(tooLong.json().get("field").asString()).isEqualTo("id");
		assertThat(call("POST", "/jobs/run-t/%20/run", null).json().get("field").asString()).isEqualTo("id");
		this.template.schedule("run-t", "kept", "k", Duration.ofHours(1));
		assertThat(call("POST", "/jobs/run-t/kept/run", "{\"delay\":0}").status()).isEqualTo(400);
		assertThat(call("POST", "/jobs/run-t/kept/run?delay=0", null).json().get("field").asString())
			.isEqualTo("delay");
		assertThat(call("GET", "/jobs/run-t/kept/run", null).status()).isEqualTo(405);
		assertThat(this.operations.find("run-t", "kept").orElseThrow().state()).isEqualTo(JobState.DELAYED);
	}

	static String addBody(String topic, String id, String delay) {
		return "{\"topic\":\"" + topic + "\",\"id\":\"" + id + "\",\"delay\":\"" + delay
				+ "\",\"body\":{\"orderId\":\"" + id + "\",\"amount\":1}}";
	}

	@Test
	void duplicateAddKeepsTheExistingJobUnlessReplaced() {
		assertThat(call("POST", "/jobs", addBody("dup", "d-1", "PT1H")).status()).isEqualTo(201);
		Response kept = call("POST", "/jobs",
				"{\"topic\":\"dup\",\"id\":\"d-1\",\"delay\":0,\"body\":\"other\"}");
		assertThat(kept.status()).isEqualTo(200);
		assertThat(kept.json().get("created").booleanValue()).isFalse();
		assertThat(kept.json().get("state").asString()).isEqualTo("DELAYED");
		assertThat(this.operations.find("dup", "d-1").get().payloadAsString()).contains("\"orderId\":\"d-1\"");

		Response replaced = call("POST", "/jobs",
				"{\"topic\":\"dup\",\"id\":\"d-1\",\"dueAt\":0,\"body\":\"other\",\"onDuplicate\":\"REPLACE\"}");
		assertThat(replaced.status()).isEqualTo(201);
		assertThat(replaced.json().get("state").asString()).isEqualTo("READY");
		JsonNode read = call("GET", "/jobs/dup/d-1", null).json();
		assertThat(read.get("state").asString()).isEqualTo("READY");
		assertThat(read.get("body").asString()).isEqualTo("other");
	}

	@Test
	void aTokenIsStaleOnceTheJobWasRedelivered() {
		call("POST", "/jobs", "{\"topic\":\"stale\",\"id\":\"s-1\",\"delay\":0,\"body\":1}");
		JsonNode first = call("POST", "/topics/stale/reserve?ttr=PT0.3S", null).json().get("jobs").get(0);
		// the TTR runs out: the job is delivered again, with the attempt counted
		JsonNode second = call("POST", "/topics/stale/reserve?wait=PT5S&ttr=PT60S", null).json().get("jobs").get(0);
		assertThat(second.get("id").asString()).isEqualTo("s-1");
		assertThat(second.get("attempt").asInt()).isEqualTo(2);

		String oldToken = "{\"token\":" + first.get("token").asLong() + "}";
		for (String action : List.of("finish", "touch")) {
			Response refused = call("POST", "/jobs/stale/s-1/" + action, oldToken);
			assertThat(refused.status()).as(action).isEqualTo(409);
			assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		}
		Response failed = call("POST", "/jobs/stale/s-1/fail",
				"{\"token\":" + first.get("token").asLong() + ",\"retryIn\":0}");
		assertThat(failed.status()).isEqualTo(409);
		assertThat(this.operations.find("stale", "s-1").get().state()).isEqualTo(JobState.RESERVED);
		assertThat(call("POST", "/jobs/stale/s-1/finish", "{\"token\":" + second.get("token").asLong() + "}").status())
			.isEqualTo(200);
	}

	@Test
	void failRetriesUntilDeadAndTouchExtends() {
		call("POST", "/jobs", "{\"topic\":\"flaky\",\"id\":\"f-1\",\"delay\":0,\"ttr\":\"PT30S\",\"maxAttempts\":2,"
				+ "\"body\":{\"a\":[1,2]}}");
		JsonNode job = call("POST", "/topics/flaky/reserve?wait=PT5S", null).json().get("jobs").get(0);
		String token = "{\"token\":" + job.get("token").asLong();

		JsonNode touched = call("POST", "/jobs/flaky/f-1/touch", token + ",\"ttr\":\"PT10M\"}").json();
		assertThat(Instant.parse(touched.get("reservedUntil").asString()))
			.isAfter(Instant.parse(job.get("deliveredAt").asString()).plus(Duration.ofMinutes(9)));
		JsonNode ownTtr = call("POST", "/jobs/flaky/f-1/touch", token + "}").json();
		assertThat(Instant.parse(ownTtr.get("reservedUntil").asString()))
			.isBefore(Instant.parse(job.get("deliveredAt").asString()).plus(Duration.ofMinutes(1)));

		Response retrying = call("POST", "/jobs/flaky/f-1/fail", token + ",\"retryIn\":\"PT0S\",\"error\":\"boom 1\"}");
		assertThat(retrying.json().get("result").asString()).isEqualTo("RETRYING");
		job = call("POST", "/topics/flaky/reserve?wait=PT5S", null).json().get("jobs").get(0);
		assertThat(job.get("attempt").asInt()).isEqualTo(2);
		Response dead = call("POST", "/jobs/flaky/f-1/fail",
				"{\"token\":" + job.get("token").asLong() + ",\"retryIn\":100,\"error\":\"boom 2\"}");
		assertThat(dead.json().get("result").asString()).isEqualTo("DEAD");
		JsonNode read = call("GET", "/jobs/flaky/f-1", null).json();
		assertThat(read.get("state").asString()).isEqualTo("DEAD");
		assertThat(read.get("lastError").asString()).isEqualTo("boom 2");
		assertThat(read.get("diedAt")).isNotNull();
		assertThat(read.get("body").get("a").get(1).asInt()).isEqualTo(2);
	}

	@Test
	void killMakesAJobDeadAtOnce() {
		call("POST", "/jobs", "{\"topic\":\"doomed\",\"id\":\"k-1\",\"delay\":0,\"maxAttempts\":5,\"body\":1}");
		JsonNode job = call("POST", "/topics/doomed/reserve", null).json().get("jobs").get(0);
		Response dead = call("POST", "/jobs/doomed/k-1/fail",
				"{\"token\":" + job.get("token").asLong() + ",\"dead\":true,\"error\":\"unknown customer\"}");
		assertThat(dead.json().get("result").asString()).isEqualTo("DEAD");
		assertThat(this.operations.find("doomed", "k-1").get().lastError()).isEqualTo("unknown customer");
	}

	@Test
	void reserveWithNothingReadyAnswersNoJobsWhenTheWaitRunsOut() {
		long start = System.nanoTime();
		Response response = call("POST", "/topics/nothing-here/reserve?max=5&wait=PT0.5S", null);
		long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
		assertThat(response.status()).isEqualTo(200);
		assertThat(response.json().get("jobs")).isEmpty();
		assertThat(elapsedMillis).isBetween(500L, 5_000L);
		assertThat(this.app.bean(ReserveWaiters.class).getWaiting()).isZero();
	}

	@Test
	void idsAreAddressedPercentEncoded() {
		String id = "order:42 ü";
		Response added = call("POST", "/jobs", "{\"topic\":\"enc\",\"id\":\"" + id + "\",\"delay\":0,\"body\":1}");
		assertThat(added.headers().firstValue("Location")).hasValue("/delayqueue/jobs/enc/order:42%20%C3%BC");
		assertThat(call("GET", "/jobs/enc/order:42%20%C3%BC", null).json().get("id").asString()).isEqualTo(id);
		JsonNode job = call("POST", "/topics/enc/reserve", null).json().get("jobs").get(0);
		assertThat(call("POST", "/jobs/enc/order:42%20%C3%BC/finish", "{\"token\":" + job.get("token").asLong() + "}")
			.status()).isEqualTo(200);
	}

}
