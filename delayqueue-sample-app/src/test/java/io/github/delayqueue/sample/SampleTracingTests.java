package io.github.delayqueue.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import io.github.delayqueue.test.AutoConfigureTestRedis;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tracing through the delay, with Spring Boot's OpenTelemetry starter as the sample runs it:
 * the HTTP request that places an order and the close of that order, a second later, are one
 * trace: the close's span is the child of the schedule's, a descendant of the request's.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "sample.demo-order=false",
				"sample.order.close-after=1s" })
@AutoConfigureTestRedis
@AutoConfigureTracing
class SampleTracingTests {

	@LocalServerPort
	private int port;

	@Autowired
	private InMemorySpanExporter spans;

	@Test
	void anOrderPlacedOverHttpIsClosedInTheTraceOfThatRequest() throws Exception {
		HttpResponse<String> placed = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/orders"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\",\"amount\":12.50}"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(placed.statusCode()).isEqualTo(201);
		JsonNode order = JsonMapper.builder().build().readTree(placed.body());
		String orderId = order.get("id").asString();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			List<SpanData> finished = this.spans.getFinishedSpanItems();
			SpanData close = finished.stream()
				.filter((span) -> span.getName().equals("process order-close")
						&& orderId.equals(span.getAttributes().asMap().entrySet().stream()
							.filter((entry) -> entry.getKey().getKey().equals("delayqueue.job.id"))
							.map((entry) -> String.valueOf(entry.getValue()))
							.findFirst()
							.orElse(null)))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no close span for " + orderId + " yet"));
			SpanData request = finished.stream()
				.filter((span) -> span.getName().equals("http post /orders"))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no request span: " + finished));
			assertThat(close.getTraceId()).isEqualTo(request.getTraceId());
			// request -> schedule order-close -> process order-close
			SpanData schedule = finished.stream()
				.filter((span) -> span.getSpanId().equals(close.getParentSpanId()))
				.findFirst()
				.orElseThrow();
			assertThat(schedule.getName()).isEqualTo("schedule order-close");
			assertThat(ancestors(schedule, finished)).contains(request.getSpanId());
		});
	}

	private static List<String> ancestors(SpanData span, List<SpanData> spans) {
		List<String> ancestors = new java.util.ArrayList<>();
		String parent = span.getParentSpanId();
		while (parent != null && ancestors.size() < 100) {
			ancestors.add(parent);
			String id = parent;
			parent = spans.stream()
				.filter((candidate) -> candidate.getSpanId().equals(id))
				.map(SpanData::getParentSpanId)
				.findFirst()
				.orElse(null);
		}
		return ancestors;
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Spans {

		@Bean
		InMemorySpanExporter inMemorySpanExporter() {
			return InMemorySpanExporter.create();
		}

	}

}
