package io.github.delayqueue.sample;

import java.io.IOException;
import java.io.InputStream;
import java.net.CookieManager;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aot.AotDetector;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample started in AOT mode on the JVM, from the code that {@code spring-boot:process-aot}
 * generated in the {@code prepare-package} phase: Failsafe runs this test with
 * {@code -Dspring.aot.enabled=true}, so that the application context is the generated one,
 * and a missing or broken generation fails the build. It starts its embedded Redis (or, when a
 * Redis answers on localhost:6379, which the sample would use, one of its own), and every part
 * of the starter the sample uses works: listeners with their payloads, the recurring job, the
 * Actuator endpoint, the HTTP job API and the dashboard behind its sign-in page.
 */
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationAotIT {

	/** The demo user of application.properties, with the role OPS that Actuator asks for. */
	private static final String OPERATOR = "Basic "
			+ Base64.getEncoder().encodeToString("demo:demo-password".getBytes(StandardCharsets.UTF_8));

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

	private int port;

	@Test
	void runsFromTheCodeGeneratedAheadOfTime(CapturedOutput output, @TempDir Path dir) throws Exception {
		assertThat(AotDetector.useGeneratedArtifacts()).as("spring.aot.enabled").isTrue();
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--sample.embedded-redis.dir=" + dir,
				"--sample.order.close-after=1s", "--delayqueue.metrics.sample-interval=200ms"));
		RedisTestServer ownRedis = answers(6379) ? RedisTestServers.local().start() : null;
		if (ownRedis != null) {
			for (String property : ownRedis.springBootProperties()) {
				arguments.add("--" + property);
			}
		}
		// the main class names the generated initializer: here it is not the one on the stack
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.main(SampleApplication.class)
			.run(arguments.toArray(String[]::new));
		try {
			this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
			assertThat(output).contains("Starting AOT-processed SampleApplication");
			assertThat(output).contains((ownRedis != null) ? "Using the Redis configured by"
					: "started the EMBEDDED redis-server");
			// the bean definitions are the generated ones: no configuration class was parsed
			assertThat(context.getBeanFactory()
				.containsBeanDefinition(AnnotationConfigUtils.CONFIGURATION_ANNOTATION_PROCESSOR_BEAN_NAME)).isFalse();
			unpaidOrderIsClosedAndItsWebhookDelivered();
			httpJobApiSchedulesWithAToken();
			endpointShowsTheQueue();
			dashboardServesItsPageFilesAndFiguresToASignedInOperator();
		}
		finally {
			context.close();
			if (ownRedis != null) {
				ownRedis.close();
			}
		}
	}

	@Test
	void theGeneratedNativeImageMetadataHoldsTheStartersHints() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getResourceAsStream(
				"/META-INF/native-image/io.github.delayqueue/delayqueue-sample-app/reachability-metadata.json")) {
			assertThat(in).as("the reachability metadata process-aot generated").isNotNull();
			metadata = json.readTree(in);
		}
		assertThat(metadata.get("resources").toString()).contains("io/github/delayqueue/redis/*.lua",
				"io/github/delayqueue/dashboard/*.js", "io/github/delayqueue/http/openapi.yaml");
		List<String> types = metadata.get("reflection")
			.valueStream()
			.map((entry) -> entry.path("type"))
			.filter(JsonNode::isString)
			.map(JsonNode::asString)
			.toList();
		// the listeners, their payloads (WebhookService's through DelayedJob<Event>) and the
		// dashboard's read of the CSRF token
		assertThat(types).contains(OrderCloseListener.class.getName(), OrderService.OrderClose.class.getName(),
				WebhookService.Event.class.getName(), "org.springframework.security.web.csrf.CsrfToken");
	}

	private void unpaidOrderIsClosedAndItsWebhookDelivered() throws Exception {
		HttpResponse<String> placed = send(request("/orders").header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\",\"amount\":12.50}")));
		assertThat(placed.statusCode()).isEqualTo(201);
		String id = json.readTree(placed.body()).get("id").asString();
		// OrderCloseListener takes the payload, WebhookService a DelayedJob<Event> too
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			JsonNode order = json.readTree(send(request("/orders/" + id).GET()).body());
			assertThat(order.get("status").asString()).isEqualTo("CLOSED");
			assertThat(order.get("closeJob").asString()).isEqualTo("COMPLETED");
			JsonNode deliveries = json.readTree(send(request("/webhooks/deliveries").GET()).body());
			assertThat(deliveries.findValuesAsString("orderId")).contains(id);
		});
	}

	private void httpJobApiSchedulesWithAToken() throws Exception {
		HttpRequest.Builder schedule = request("/delayqueue/jobs").header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers
				.ofString("{\"topic\":\"mails\",\"id\":\"welcome-42\",\"delay\":\"PT1H\",\"body\":{\"user\":42}}"));
		assertThat(send(schedule).statusCode()).isEqualTo(401);
		assertThat(send(schedule.header("Authorization", "Bearer sample-token")).statusCode()).isEqualTo(201);
		HttpResponse<String> job = send(
				request("/delayqueue/jobs/mails/welcome-42").header("Authorization", "Bearer sample-token").GET());
		assertThat(job.statusCode()).isEqualTo(200);
		assertThat(json.readTree(job.body()).get("state").asString()).isEqualTo("DELAYED");
		assertThat(send(request("/delayqueue/openapi.yaml").header("Authorization", "Bearer sample-token").GET())
			.body()).contains("openapi:");
	}

	private void endpointShowsTheQueue() throws Exception {
		JsonNode queue = json
			.readTree(send(request("/actuator/delayqueue").header("Authorization", OPERATOR).GET()).body());
		assertThat(queue.get("topics").get("order-close").get("listeners").get(0).get("state").asString())
			.isEqualTo("running");
		assertThat(queue.get("recurring").findValuesAsString("name")).contains("unpaid-report");
		HttpResponse<String> repair = send(request("/actuator/delayqueue").header("Authorization", OPERATOR)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"repair\",\"dryRun\":true}")));
		assertThat(repair.statusCode()).isEqualTo(200);
		assertThat(json.readTree(repair.body()).get("written").asBoolean()).isFalse();
		JsonNode health = json.readTree(send(request("/actuator/health").GET()).body());
		assertThat(health.get("components").get("delayqueue").get("status").asString()).isEqualTo("UP");
	}

	private void dashboardServesItsPageFilesAndFiguresToASignedInOperator() throws Exception {
		String form = send(request("/login").GET()).body();
		Matcher csrf = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"").matcher(form);
		assertThat(csrf.find()).as(form).isTrue();
		HttpResponse<String> signIn = send(request("/login").header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString("username=demo&password=demo-password&_csrf="
					+ URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8))));
		assertThat(signIn.headers().firstValue("Location")).hasValueSatisfying(
				(location) -> assertThat(location).endsWith("/delayqueue-dashboard"));
		String page = send(request("/delayqueue-dashboard").GET()).body();
		// the dashboard read Spring Security's CSRF token through its interface
		assertThat(page).contains("data-csrf-parameter=\"_csrf\"").doesNotContain("data-csrf-token=\"\"");
		assertThat(send(request("/delayqueue-dashboard/dashboard.js").GET()).body()).isNotBlank();
		assertThat(send(request("/delayqueue-dashboard/dashboard.css").GET()).body()).isNotBlank();
		JsonNode overview = json.readTree(send(request("/delayqueue-dashboard/api/overview").GET()).body());
		assertThat(overview.get("queue").get("topics").has("order-close")).isTrue();
		assertThat(overview.get("counts").get("order-close").get("completed").asDouble()).isPositive();
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10));
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static boolean answers(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("localhost", port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
