package io.github.delayqueue.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's whole flow over HTTP, as the README's curl lines drive it.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "sample.order.close-after=2s",
				"sample.webhook.back-off=200ms", "sample.demo-order=false",
				"delayqueue.metrics.sample-interval=200ms", "delayqueue.listener.back-off.jitter=0ms" })
class SampleApplicationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisTestServer redis = RedisTestServers.shared();
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("delayqueue.namespace", () -> "sample-" + System.nanoTime());
	}

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
			assertThat(order.path("closeJob").isNull()).isTrue();
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
		assertThat(bad.body().get("error").asString()).startsWith("amount must be greater than 0");

		// operations: the queue's figures, health and the Prometheus scrape
		JsonNode queue = send("GET", "/actuator/delayqueue", null).body();
		assertThat(queue.get("totals").get("dead").asLong()).isZero();
		assertThat(queue.get("topics").get("order-close").get("listeners").get(0).get("state").asString())
			.isEqualTo("running");
		JsonNode health = send("GET", "/actuator/health", null).body();
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.get("components").get("delayqueue").get("status").asString()).isEqualTo("UP");
		HttpResponse<String> scrape = this.http.send(HttpRequest.newBuilder(uri("/actuator/prometheus")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(scrape.body()).contains("delayqueue_jobs_completed_total{topic=\"order-close\"")
			.contains("delayqueue_jobs_dead_total{topic=\"webhook\"")
			.contains("delayqueue_jobs_cancelled_total{topic=\"order-close\"");
	}

	record Reply(int status, JsonNode body) {

	}

	private Reply send(String method, String path, String body) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json");
		request.method(method,
				(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		return new Reply(response.statusCode(),
				response.body().isEmpty() ? json.missingNode() : json.readTree(response.body()));
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}
