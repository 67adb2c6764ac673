package io.github.delayqueue.http;

import java.time.Duration;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static io.github.delayqueue.http.DelayQueueHttpApiTests.addBody;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the HTTP job API refuses: bad input (a 400 naming the field, nothing changed),
 * bodies over the limits, requests without one of the tokens. One application for all.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueHttpApiValidationTests {

	static final String TOKEN = "s3cret-token";

	@RegisterExtension
	static final WebApps apps = WebApps.perClass();

	private static App app;

	private static DelayedJobTemplate template;

	private static DelayQueueOperations operations;

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	@BeforeAll
	static void startApp() {
		app = apps.run(RedisTestServers.shared(), NoBeans.class, "delayqueue.buckets=4", "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=other-token," + TOKEN, "delayqueue.http.max-body-size=64KB",
				"delayqueue.max-payload-size=1KB");
		template = app.bean(DelayedJobTemplate.class);
		operations = template.getOperations();
	}

	private static Response call(String method, String path, String body) {
		return app.send(method, "/delayqueue" + path, body, "Bearer " + TOKEN);
	}

	@ParameterizedTest(name = "{0} {1} -> {3} {4}")
	@CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
			POST | /jobs | {}                                                               | 400 | topic
			POST | /jobs | {"topic":"bad topic!","id":"x","delay":0,"body":1}               | 400 | topic
			POST | /jobs | {"topic":"t","id":" ","delay":0,"body":1}                         | 400 | id
			POST | /jobs | {"topic":"t","id":7,"delay":0,"body":1}                           | 400 | id
			POST | /jobs | {"topic":"t","id":"x","body":1}                                   | 400 | delay
			POST | /jobs | {"topic":"t","id":"x","delay":"PT1S","dueAt":0,"body":1}         | 400 | dueAt
			POST | /jobs | {"topic":"t","id":"x","delay":"soon","body":1}                    | 400 | delay
			POST | /jobs | {"topic":"t","id":"x","delay":"P40000D","body":1}                 | 400 | delay
			POST | /jobs | {"topic":"t","id":"x","dueAt":"tomorrow","body":1}                | 400 | dueAt
			POST | /jobs | {"topic":"t","id":"x","delay":0,"ttr":0,"body":1}                 | 400 | ttr
			POST | /jobs | {"topic":"t","id":"x","delay":0,"ttr":"PT-1S","body":1}           | 400 | ttr
			POST | /jobs | {"topic":"t","id":"x","delay":0,"ttr":"P1000000D","body":1}     | 400 | ttr
			POST | /jobs | {"topic":"t","id":"x","delay":0,"maxAttempts":0,"body":1}         | 400 | maxAttempts
			POST | /jobs | {"topic":"t","id":"x","delay":0,"maxAttempts":"3","body":1}       | 400 | maxAttempts
			POST | /jobs | {"topic":"t","id":"x","delay":0,"onDuplicate":"IGNORE","body":1}  | 400 | onDuplicate
			POST | /jobs | {"topic":"t","id":"x","delay":0,"priority":10,"body":1}           | 400 | priority
			POST | /jobs | {"topic":"t","id":"x","delay":0,"priority":-1,"body":1}           | 400 | priority
			POST | /jobs | {"topic":"t","id":"x","delay":0,"priority":"high","body":1}       | 400 | priority
			POST | /jobs | {"topic":"t","id":"x","delay":0}                                  | 400 | body
			POST | /jobs | {"topic":"t","id":"x","delay":0,"body":null}                      | 400 | body
			POST | /jobs | {"topic":"t","id":"x","delaySeconds":5,"body":1}                  | 400 | delaySeconds
			POST | /jobs | {"topic":"t","id":"x","delay":0,"body":1,"topic":"u"}             | 400 | topic
			POST | /jobs/t/x/finish | {"token":1,"token":2}                                 | 400 | token
			POST | /jobs/t/x/finish | {"token":1}{"token":2}                                | 400 |
			POST | /jobs | {"topic":"t","id":"x","delay":0,"maxAttempts":2.5,"body":1}       | 400 | maxAttempts
			POST | /jobs | {"topic":"t","id":"x","delay":0,"maxAttempts":"","body":1}        | 400 | maxAttempts
			POST | /jobs | {"topic":"t","id":"x","delay":0,"headers":{"tenant":1},"body":1}  | 400 | headers
			POST | /jobs | {"topic":"t","id":"x","delay":0,"body":{"a":1,"a":2}}             | 400 | body
			POST | /jobs/t/x/fail   | {"token":1,"dead":"true"}                             | 400 | dead
			POST | /jobs | {"topic":"t","id":"x","delay":0,"headers":{"delayqueue_dltError":"forged"},"body":1} | 400 | headers
			POST | /jobs | {"topic":"t","id":"x","delay":0,"headers":{"delayqueue_dltOriginalTopic":"t"},"body":1} | 400 | headers
			POST | /jobs | {"topic":"t","id":"x","delay":0,"headers":{"delayqueue_forwardKey":"k"},"body":1} | 400 | headers
			PUT  | /recurring/r | {"topic":"t","every":"PT1H","headers":{"delayqueue_forwardContentType":"x"}} | 400 | headers
			POST | /jobs | {"topic":"t","id":"x","delay":0,"body":1                           | 400 |
			POST | /jobs | [1,2]                                                            | 400 |
			POST | /topics/t/reserve?max=0                                                  | | 400 | max
			POST | /topics/t/reserve?max=101                                                | | 400 | max
			POST | /topics/t/reserve?max=many                                               | | 400 | max
			POST | /topics/t/reserve?wait=PT31S                                             | | 400 | wait
			POST | /topics/t/reserve?wait=later                                             | | 400 | wait
			POST | /topics/t/reserve?ttr=0                                                  | | 400 | ttr
			POST | /topics/bad!topic/reserve                                                | | 400 | topic
			POST | /jobs/t/x/finish | {}                                                    | 400 | token
			POST | /jobs/t/x/finish | {"token":"abc"}                                       | 400 | token
			POST | /jobs/t/x/finish | {"token":1,"extra":true}                              | 400 | extra
			POST | /jobs/t/x/fail   | {"token":1}                                           | 400 | retryIn
			POST | /jobs/t/x/fail   | {"token":1,"retryIn":0,"dead":true}                   | 400 | dead
			POST | /jobs/t/x/fail   | {"token":1,"retryIn":-5}                              | 400 | retryIn
			POST | /jobs/t/x/fail   | {"token":1,"retryIn":"P40000D"}                       | 400 | retryIn
			POST | /jobs/t/x/touch  | {"token":1,"ttr":"PT8D"}                              | 400 | ttr
			GET  | /jobs/t/%20      |                                                       | 400 | id
			POST | /topics/t/reserve?mx=3                                                   | | 400 | mx
			POST | /topics/t/reserve?max=1&wiat=PT1S                                        | | 400 | wiat
			POST | /topics/t/reserve?max=1&max=2                                            | | 400 | max
			POST | /topics/t/reserve?m%61x=1&max=2                                          | | 400 | max
			POST | /topics/t/reserve | {"max":2}                                            | 400 |
			GET  | /jobs/t/x?verbose=true                                                   | | 400 | verbose
			DELETE | /jobs/t/x?force=true                                                   | | 400 | force
			POST | /jobs/t/x/run?force=true                                                 | | 400 | force
			POST | /jobs/t/x/run    | {}                                                    | 400 |
			POST | /jobs/bad!topic/x/run                                                    | | 400 | topic
			POST | /jobs/t/%20/run                                                          | | 400 | id
			POST | /jobs?dryRun=true | {"topic":"t","id":"y","delay":0,"body":1}            | 400 | dryRun
			PUT  | /jobs | {"topic":"t","id":"y","delay":0,"body":1}                        | 405 |
			GET  | /topics/t/reserve                                                        | | 405 |
			DELETE | /jobs/t/x/finish                                                       | | 405 |
			GET  | /no/such/route                                                           | | 404 |
			""")
	void badInputIsRefusedNamingTheFieldAndChangesNothing(String method, String path, String body, int status,
			String field) {
		template.schedule("t", "x", "kept", Duration.ofHours(1));
		QueueStats before = operations.stats();
		Response response = call(method, path, body);
		assertThat(response.status()).as(response.body()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		JsonNode problem = response.json();
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		assertThat(problem.get("detail").asString()).isNotBlank();
		if (field != null) {
			assertThat(problem.get("field").asString()).as(problem.get("detail").asString()).isEqualTo(field);
			assertThat(problem.get("detail").asString()).contains(field);
		}
		else {
			assertThat(problem.get("field")).isNull();
		}
		assertThat(operations.stats().totals()).isEqualTo(before.totals());
		assertThat(operations.find("t", "x").get().state()).isEqualTo(JobState.DELAYED);
	}

	@Test
	void bodiesOverTheLimitsAreRefused() {
		String bigPayload = "x".repeat(2_000);
		Response tooBigPayload = call("POST", "/jobs",
				"{\"topic\":\"t\",\"id\":\"big\",\"delay\":0,\"body\":\"" + bigPayload + "\"}");
		assertThat(tooBigPayload.status()).isEqualTo(400);
		assertThat(tooBigPayload.json().get("field").asString()).isEqualTo("body");
		assertThat(tooBigPayload.json().get("detail").asString()).contains("delayqueue.max-payload-size");

		Response tooBigRequest = call("POST", "/jobs",
				"{\"topic\":\"t\",\"id\":\"big\",\"delay\":0,\"body\":\"" + "y".repeat(70_000) + "\"}");
		assertThat(tooBigRequest.status()).isEqualTo(413);
		assertThat(tooBigRequest.json().get("detail").asString()).contains("delayqueue.http.max-body-size");
		assertThat(operations.find("t", "big")).isEmpty();
	}

	@Test
	void aBodyThatIsNotUtf8IsRefused() throws Exception {
		String port = app.context.getEnvironment().getProperty("local.server.port");
		java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
			.send(java.net.http.HttpRequest
				.newBuilder(java.net.URI.create("http://localhost:" + port + "/delayqueue/jobs"))
				.header("Authorization", "Bearer " + TOKEN)
				.header("Content-Type", "application/json")
				.POST(java.net.http.HttpRequest.BodyPublishers.ofString(
						"{\"topic\":\"t\",\"id\":\"utf16\",\"delay\":0,\"body\":{\"a\":1}}",
						java.nio.charset.StandardCharsets.UTF_16BE))
				.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		assertThat(response.body()).contains("UTF-8");
		assertThat(operations.find("t", "utf16")).isEmpty();
	}

	@Test
	void cancelIsAuditedNamingThePlaceOfTheTokenNeverTheToken(CapturedOutput output) {
		template.schedule("t", "gone", "x", Duration.ofHours(1));
		assertThat(call("DELETE", "/jobs/t/gone", null).status()).isEqualTo(200);
		assertThat(call("DELETE", "/jobs/t/gone", null).status()).isEqualTo(404);
		assertThat(output)
			.contains("io.github.delayqueue.audit - by=token[1] via=http-api action=cancel topic=t count=1 ids=[gone]")
			.contains("by=token[1] via=http-api action=cancel topic=t count=0 ids=[gone]")
			.doesNotContain(TOKEN);
	}

	@Test
	void runIsAuditedAsEveryWrite(CapturedOutput output) {
		template.schedule("t", "soon", "x", Duration.ofHours(1));
		assertThat(call("POST", "/jobs/t/soon/run", null).status()).isEqualTo(200);
		assertThat(call("POST", "/jobs/t/never/run", null).status()).isEqualTo(404);
		assertThat(output)
			.contains("io.github.delayqueue.audit - by=token[1] via=http-api action=run topic=t count=1 ids=[soon]")
			.contains("by=token[1] via=http-api action=run topic=t count=0 ids=[never]")
			.doesNotContain(TOKEN);
	}

	@Test
	void requestsNeedOneOfTheTokens() {
		Response none = app.send("GET", "/delayqueue/jobs/t/x", null, null);
		assertThat(none.status()).isEqualTo(401);
		assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying((v) -> assertThat(v).startsWith("Bearer"));
		assertThat(none.json().get("detail").asString()).contains("Authorization: Bearer");
		Response wrong = app.send("POST", "/delayqueue/jobs", addBody("t", "sneaky", "PT0S"), "Bearer guess");
		assertThat(wrong.status()).isEqualTo(401);
		assertThat(operations.find("t", "sneaky")).isEmpty();

		assertThat(app.send("GET", "/delayqueue/jobs/t/x", null, "Bearer other-token").status()).isEqualTo(404);
		// the rest of the application is not the API's business
		assertThat(app.get("/actuator/health").status()).isEqualTo(200);
	}

	// Reserve takes its options from the query string only; Spring MVC's @RequestParam would
	// also read them from a form body, where unknown names went unchecked. A form is refused.
	@Test
	void aFormBodyOnReserveIsNotAWayAroundTheParameterCheck() throws Exception {
		template.schedule("form-t", "f1", "x", Duration.ZERO);
		template.schedule("form-t", "f2", "x", Duration.ZERO);
		String port = app.context.getEnvironment().getProperty("local.server.port");
		java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
			.send(java.net.http.HttpRequest
				.newBuilder(java.net.URI.create("http://localhost:" + port + "/delayqueue/topics/form-t/reserve"))
				.header("Authorization", "Bearer " + TOKEN)
				.header("Content-Type", "application/x-www-form-urlencoded")
				.POST(java.net.http.HttpRequest.BodyPublishers.ofString("max=2&bogus=1"))
				.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
		assertThat(operations.find("form-t", "f1").get().state()).as(response.statusCode() + " " + response.body())
			.isEqualTo(JobState.READY);
		assertThat(operations.find("form-t", "f2").get().state()).isEqualTo(JobState.READY);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(415);
	}

}
