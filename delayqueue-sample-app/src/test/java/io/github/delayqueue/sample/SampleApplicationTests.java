package io.github.delayqueue.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;

import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's whole flow over HTTP, as the README's curl lines drive it.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "sample.order.close-after=2s",
				"sample.webhook.back-off=200ms", "sample.demo-order=false",
				"delayqueue.metrics.sample-interval=200ms", "delayqueue.listener.back-off.jitter=0ms" })
@AutoConfigureTestRedis
class SampleApplicationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	/** The demo user of application.properties, with the role OPS that Actuator asks for. */
	private static final String OPERATOR = "Basic "
			+ Base64.getEncoder().encodeToString("demo:demo-password".getBytes(StandardCharsets.UTF_8));

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Test
	void orderFlowWebhookRetriesDeadLettersAndReplayOverHttp() throws Exception {
		// unpaid: the close job fires and closes the order
		Reply unpaid = send("POST", "/orders", "{\"item\":\"book\",\"amount\":12.50}");
		assertThat(unpaid.status()).isEqualTo(201);
		String unpaidId = unpaid.body().get("id").asString();
		assertThat(unpaid.body().get("status").asString()).isEqualTo("CREATED");
		assertThat(unpaid.body().get("closeJob").asString()).isEqualTo("DELAYED");

		// paid in time: the close job is cancelled
		String paidId = send("POST", "/orders", "{\"item\":\"pen\",\"amount\":2}").body().get("id").asString();
		Reply paid = send("POST", "/orders/" + paidId + "/pay", null);
		assertThat(paid.status()).isEqualTo(200);
		assertThat(paid.body().get("status").asString()).isEqualTo("PAID");
		assertThat(paid.body().path("closeJob").isNull()).isTrue();

		// the partner is down while the close webhook goes out
		assertThat(send("PUT", "/webhooks/receiver", "{\"up\":false}").body().get("up").asBoolean()).isFalse();
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			JsonNode order = send("GET", "/orders/" + unpaidId, null).body();
			assertThat(order.get("status").asString()).isEqualTo("CLOSED");
			// the topic keeps its finished jobs (delayqueue.retention.order-close.completed)
			assertThat(order.path("closeJob").asString()).isEqualTo("COMPLETED");
		});
		Instant closesAt = Instant.parse(unpaid.body().get("closesAt").asString());
		Instant settledAt = Instant.parse(send("GET", "/orders/" + unpaidId, null).body().get("settledAt").asString());
		assertThat(settledAt).isAfterOrEqualTo(closesAt.minusMillis(100));
		JsonNode stillPaid = send("GET", "/orders/" + paidId, null).body();
		assertThat(stillPaid.get("status").asString()).isEqualTo("PAID");

		// three attempts with back-off, then DEAD, visible in the endpoint with the error
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			JsonNode topic = send("GET", "/actuator/delayqueue/webhook", null).body();
			assertThat(topic.get("dead").asLong()).isEqualTo(1);
			JsonNode dead = topic.get("deadJobs").get("jobs").get(0);
			assertThat(dead.get("id").asString()).isEqualTo(unpaidId);
			assertThat(dead.get("attempts").asInt()).isEqualTo(3);
			assertThat(dead.get("lastError").asString()).contains("503");
		});
		assertThat(send("GET", "/webhooks/deliveries", null).body()).isEmpty();

		// the partner is back: replay from the endpoint delivers it
		send("PUT", "/webhooks/receiver", "{\"up\":true}");
		Reply replay = send("POST", "/actuator/delayqueue/webhook", "{\"action\":\"replay\"}");
		assertThat(replay.status()).isEqualTo(200);
		assertThat(replay.body().get("count").asLong()).isEqualTo(1);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			JsonNode deliveries = send("GET", "/webhooks/deliveries", null).body();
			assertThat(deliveries).hasSize(1);
			assertThat(deliveries.get(0).get("event").get("orderId").asString()).isEqualTo(unpaidId);
			assertThat(deliveries.get(0).get("attempt").asInt()).isEqualTo(1);
		});

		// paying a closed order is refused; bad input is a 400 naming the field
		Reply late = send("POST", "/orders/" + unpaidId + "/pay", null);
		assertThat(late.status()).isEqualTo(409);
		assertThat(send("POST", "/orders/nope/pay", null).status()).isEqualTo(404);
		Reply bad = send("POST", "/orders", "{\"item\":\"book\",\"amount\":0}");
		assertThat(bad.status()).isEqualTo(400);
		assertThat(bad.body().get("field").asString()).isEqualTo("amount");
		assertThat(bad.body().get("detail").asString()).startsWith("amount must be greater than 0");

		// operations: the queue's figures, health and the Prometheus scrape
		JsonNode queue = send("GET", "/actuator/delayqueue", null).body();
		assertThat(queue.get("totals").get("dead").asLong()).isZero();
		assertThat(queue.get("topics").get("order-close").get("listeners").get(0).get("state").asString())
			.isEqualTo("running");
		JsonNode health = send("GET", "/actuator/health", null).body();
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.get("components").get("delayqueue").get("status").asString()).isEqualTo("UP");
		HttpResponse<String> scrape = this.http.send(
				HttpRequest.newBuilder(uri("/actuator/prometheus")).header("Authorization", OPERATOR).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(scrape.body()).contains("delayqueue_jobs_completed_total{topic=\"order-close\"")
			.contains("delayqueue_jobs_dead_total{topic=\"webhook\"")
			.contains("delayqueue_jobs_cancelled_total{topic=\"order-close\"");
	}

	@ParameterizedTest(name = "{0} {1} -> {3} {4}")
	@CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
			POST | /orders            | {"item":"book","amount":"twelve"}         | 400 | amount
			POST | /orders            | {"item":"book","amount":12.505}           | 400 | amount
			POST | /orders            | {"item":"book","amount":1000000.01}       | 400 | amount
			POST | /orders            | {"item":"book"}                           | 400 | amount
			POST | /orders            | {"item":"  ","amount":1}                  | 400 | item
			POST | /orders            | {"item":7,"amount":1}                     | 400 | item
			POST | /orders            | {"item":"book","amount":1,"coupon":"X"}   | 400 | coupon
			POST | /orders            | {"item":"book","amount":                  | 400 |
			POST | /orders            | [1]                                       | 400 |
			POST | /orders            | {"item":"book","amount":1e400}            | 400 | amount
			PUT  | /webhooks/receiver | {"up":"maybe"}                            | 400 | up
			PUT  | /webhooks/receiver | {"up":true,"down":false}                  | 400 | down
			""")
	void badInputIsAProblemNamingTheField(String method, String path, String body, int status, String field)
			throws Exception {
		int before = send("GET", "/orders", null).body().size();
		Reply reply = send(method, path, body);
		assertThat(reply.status()).as(reply.body().toString()).isEqualTo(status);
		assertThat(reply.contentType()).startsWith("application/problem+json");
		assertThat(reply.body().get("status").asInt()).isEqualTo(status);
		if (field != null) {
			assertThat(reply.body().get("field").asString()).isEqualTo(field);
			assertThat(reply.body().get("detail").asString()).contains(field);
		}
		else {
			assertThat(reply.body().has("field")).isFalse();
		}
		assertThat(send("GET", "/orders", null).body()).hasSize(before);
	}

	@Test
	void itemsAndBodiesHaveSizeLimits() throws Exception {
		Reply longItem = send("POST", "/orders", "{\"item\":\"" + "x".repeat(201) + "\",\"amount\":1}");
		assertThat(longItem.status()).isEqualTo(400);
		assertThat(longItem.body().get("field").asString()).isEqualTo("item");
		assertThat(longItem.body().get("detail").asString()).contains("1 to 200 characters");

		int before = send("GET", "/orders", null).body().size();
		Reply big = send("POST", "/orders", "{\"item\":\"" + "x".repeat(100_000) + "\",\"amount\":1}");
		assertThat(big.status()).isEqualTo(413);
		assertThat(big.contentType()).startsWith("application/problem+json");
		assertThat(big.body().get("detail").asString()).contains("at most 16384 bytes");
		try {
			// refused unread: the server answers 413 and may close the connection meanwhile
			Reply huge = send("POST", "/orders", "{\"item\":\"" + "x".repeat(20 * 1024 * 1024) + "\",\"amount\":1}");
			assertThat(huge.status()).isEqualTo(413);
		}
		catch (IOException ex) {
			// the connection was closed after the 413, before the client had sent it all
		}
		assertThat(send("GET", "/orders", null).body()).hasSize(before);
	}

	@Test
	void theUnpaidOrdersReportIsARecurringJobInTheEndpointThatCanBeTriggered() throws Exception {
		JsonNode report = null;
		for (JsonNode recurring : send("GET", "/actuator/delayqueue", null).body().get("recurring")) {
			if (recurring.get("name").asString().equals("unpaid-report")) {
				report = recurring;
			}
		}
		assertThat(report).as("the unpaid-report recurring job in the endpoint").isNotNull();
		assertThat(report.get("schedule").asString()).isEqualTo("cron '0 * * * * *' in UTC");
		assertThat(report.get("topic").asString()).isEqualTo(UnpaidOrdersReport.TOPIC);
		Instant next = Instant.parse(report.get("nextFireTime").asString());
		assertThat(next.getEpochSecond() % 60).isZero();

		send("POST", "/orders", "{\"item\":\"lamp\",\"amount\":30}");
		Reply triggered = send("POST", "/actuator/delayqueue", "{\"action\":\"trigger\",\"recurring\":\"unpaid-report\"}");
		assertThat(triggered.status()).isEqualTo(200);
		String occurrence = triggered.body().get("occurrence").asString();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.report.lastReport()).startsWith(occurrence + ": ")
				.doesNotStartWith(occurrence + ": 0 "));
	}

	@Autowired
	private UnpaidOrdersReport report;

	record Reply(int status, JsonNode body, String contentType) {

	}

	private Reply send(String method, String path, String body) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json");
		if (path.startsWith("/actuator/")) {
			request.header("Authorization", OPERATOR);
		}
		request.method(method,
				(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		return new Reply(response.statusCode(),
				response.body().isEmpty() ? json.missingNode() : json.readTree(response.body()),
				response.headers().firstValue("Content-Type").orElse(""));
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}
