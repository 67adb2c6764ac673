package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code /actuator/delayqueue} refuses: every bad, unknown or misspelt input is an
 * {@code application/problem+json} answer naming the field, and changes nothing. One
 * application for all.
 */
class DelayQueueEndpointValidationTests {

	@RegisterExtension
	static final WebApps apps = WebApps.perClass();

	private static App app;

	private static DelayQueueOperations operations;

	static class Listeners {

		@DelayedListener(topic = "webhooks", id = "webhook-sender", autoStartup = "false")
		void send(String body) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	@BeforeAll
	static void startApp() {
		app = apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=4");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		operations = template.getOperations();
		for (String id : List.of("d1", "d2")) {
			template.schedule("orders", id, "x", Duration.ZERO);
		}
		List<ReservedJob> dying = operations.reserve("orders", 2, Duration.ofHours(1));
		dying.forEach((job) -> operations.kill(job, "boom"));
		template.schedule("orders", "w1", "x", Duration.ofHours(1));
	}

	@ParameterizedTest(name = "{0} {1} {2} -> {3} {4}")
	@CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
			POST   | /actuator/delayqueue/orders         | {}                                        | 400 | action
			POST   | /actuator/delayqueue/orders         | {"action":"explode"}                      | 400 | action
			POST   | /actuator/delayqueue/orders         | {"action":"replay","max":"lots"}          | 400 | max
			POST   | /actuator/delayqueue/orders         | {"action":"replay","max":2.5}             | 400 | max
			POST   | /actuator/delayqueue/orders         | {"action":"replay","max":0}               | 400 | max
			POST   | /actuator/delayqueue/orders         | {"action":"replay","mx":3}                | 400 | mx
			POST   | /actuator/delayqueue/orders?mx=3    | {"action":"replay"}                       | 400 | mx
			POST   | /actuator/delayqueue/orders         | {"action":"replay","max":1,"id":"d1"}     | 400 | id
			POST   | /actuator/delayqueue/orders         | {"action":"replay","listener":"x"}        | 400 | listener
			POST   | /actuator/delayqueue/webhooks       | {"action":"pause","max":1}                | 400 | max
			POST   | /actuator/delayqueue/orders         | {"action":"replay","max":[1]}             | 400 | max
			POST   | /actuator/delayqueue/orders         | [1]                                       | 400 |
			POST   | /actuator/delayqueue/orders         | {"action":                                | 400 |
			POST   | /actuator/delayqueue/bad%20topic    | {"action":"replay"}                       | 400 | topic
			POST   | /actuator/delayqueue                | {"action":"fix"}                          | 400 | action
			POST   | /actuator/delayqueue                | {"action":"repair","dryRun":"maybe"}      | 400 | dryRun
			POST   | /actuator/delayqueue                | {"action":"repair","dry-run":true}        | 400 | dry-run
			GET    | /actuator/delayqueue/orders?limit=abc |                                         | 400 | limit
			GET    | /actuator/delayqueue/orders?limit=5000 |                                        | 400 | limit
			GET    | /actuator/delayqueue/orders?limt=5  |                                           | 400 | limt
			GET    | /actuator/delayqueue/orders?cursor=nonsense |                                   | 400 | cursor
			GET    | /actuator/delayqueue?verbose=true   |                                           | 400 | verbose
			GET    | /actuator/delayqueue/bad%20topic    |                                           | 400 | topic
			DELETE | /actuator/delayqueue/orders/%20     |                                           | 400 | id
			DELETE | /actuator/delayqueue/orders/w1?force=true |                                     | 400 | force
			GET    | /actuator/delayqueue/nothing-here   |                                           | 404 |
			POST   | /actuator/delayqueue/nothing-here   | {"action":"replay"}                       | 404 |
			POST   | /actuator/delayqueue/webhooks       | {"action":"pause","listener":"nope"}      | 404 |
			DELETE | /actuator/delayqueue/orders/nope    |                                           | 404 |
			PUT    | /actuator/delayqueue/orders         | {"action":"replay"}                       | 405 |
			POST   | /actuator/delayqueue/orders/d1      | {"action":"replay"}                       | 405 |
			DELETE | /actuator/delayqueue/orders         |                                           | 405 |
			""")
	void badInputIsAProblemNamingTheFieldAndChangesNothing(String method, String path, String body, int status,
			String field) {
		QueueStats before = operations.stats();
		Response response = app.send(method, path, body, null);
		assertThat(response.status()).as(response.body()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type")).as(response.body())
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		JsonNode problem = response.json();
		assertThat(problem.get("type").asString()).isEqualTo("about:blank");
		assertThat(problem.get("title").asString()).isNotBlank();
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		assertThat(problem.get("detail").asString()).isNotBlank();
		if (field != null) {
			assertThat(problem.get("field").asString()).as(problem.get("detail").asString()).isEqualTo(field);
			assertThat(problem.get("detail").asString()).contains(field);
		}
		else {
			assertThat(problem.get("field")).as(response.body()).isNull();
		}
		assertThat(operations.stats().totals()).isEqualTo(before.totals());
	}

	@Test
	void aWriteTooFewReplicasAcknowledgedIsAnswered503SayingWhatWasWritten() {
		App waiting = apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=4",
				"delayqueue.redis.wait-replicas=1", "delayqueue.redis.wait-timeout=100ms");
		app.bean(DelayedJobTemplate.class).schedule("replicas", "r1", "x", Duration.ofHours(1));
		Response response = waiting.send("DELETE", "/actuator/delayqueue/replicas/r1", null, null);
		assertThat(response.status()).as(response.body()).isEqualTo(503);
		assertThat(response.body()).contains("reached 0 of the 1 replicas");
		// cancelled on the master
		assertThat(operations.find("replicas", "r1")).isEmpty();
	}

	// Spring Boot puts the body's fields and then the query parameters into the same argument
	// map as the path's selectors, later ones winning: without the advisor's check a request to
	// one path would act on another topic or job (and a path-based authorization rule would no
	// longer say what is written).
	@Test
	void aQueryParameterNamedLikeTheIdSelectorDoesNotCancelAnotherJob() {
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("selectors", "keep-me", "x", Duration.ofHours(1));
		Response response = app.send("DELETE", "/actuator/delayqueue/selectors/nope?id=keep-me", null, null);
		assertThat(operations.find("selectors", "keep-me")).as(response.status() + " " + response.body()).isPresent();
		assertThat(response.status()).as(response.body()).isEqualTo(400);
	}

	@Test
	void aBodyFieldNamedLikeTheTopicSelectorDoesNotReplayAnotherTopic() {
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("selectors-dead", "dead-1", "x", Duration.ZERO);
		operations.reserve("selectors-dead", 1, Duration.ofHours(1)).forEach((job) -> operations.kill(job, "boom"));
		template.schedule("selectors-other", "o1", "x", Duration.ofHours(1));
		Response response = app.send("POST", "/actuator/delayqueue/selectors-other",
				"{\"action\":\"replay\",\"topic\":\"selectors-dead\"}", null);
		assertThat(operations.stats().topics().get("selectors-dead").dead()).as(response.status() + " " + response.body())
			.isEqualTo(1);
		assertThat(response.status()).as(response.body()).isEqualTo(400);
	}

	// {"action":"replay","id":null} (a client whose id variable was unset) would otherwise be a
	// replay without id, of every dead job of the topic. "securityContext", a parameter of every
	// write that Spring Boot resolves itself, is not a field either.
	@Test
	void aNullIdIsRefusedRatherThanReplayingEveryDeadJob() {
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		for (String id : List.of("n1", "n2", "n3")) {
			template.schedule("null-id", id, "x", Duration.ZERO);
		}
		operations.reserve("null-id", 3, Duration.ofHours(1)).forEach((job) -> operations.kill(job, "boom"));
		Response response = app.send("POST", "/actuator/delayqueue/null-id", "{\"action\":\"replay\",\"id\":null}",
				null);
		assertThat(operations.stats().topics().get("null-id").dead()).as(response.status() + " " + response.body())
			.isEqualTo(3);
		assertThat(response.status()).as(response.body()).isEqualTo(400);
	}

	@Test
	void securityContextIsAnUnknownField() {
		Response response = app.send("POST", "/actuator/delayqueue",
				"{\"action\":\"repair\",\"dryRun\":true,\"securityContext\":\"admin\"}", null);
		assertThat(response.status()).as(response.body()).isEqualTo(400);
	}

}
