package io.github.delayqueue.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's Actuator endpoints need a user with the role OPS, health aside: without one,
 * nobody reads the queue, a job's payload or the metrics, nor pauses, cancels, replays or
 * repairs. Its users here: {@code viewer} (role VIEWER) and {@code ops} (role OPS).
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "sample.demo-order=false" })
@AutoConfigureTestRedis
class SampleActuatorSecurityTests {

	private static final String VIEWER = "Basic "
			+ Base64.getEncoder().encodeToString("viewer:viewer-password".getBytes(StandardCharsets.UTF_8));

	private static final String OPS = "Basic "
			+ Base64.getEncoder().encodeToString("ops:ops-password".getBytes(StandardCharsets.UTF_8));

	@TestConfiguration(proxyBeanMethods = false)
	static class Users {

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("viewer").password("{noop}viewer-password").roles("VIEWER").build(),
					User.withUsername("ops").password("{noop}ops-password").roles("OPS").build());
		}

	}

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private DelayedJobTemplate template;

	@Autowired
	private DelayedListenerEndpointRegistry listeners;

	@ParameterizedTest(name = "{0} {1}")
	@CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
			GET    | /actuator/delayqueue                    |
			GET    | /actuator/delayqueue/order-close         |
			GET    | /actuator/delayqueue/order-close/o-card  |
			GET    | /actuator/prometheus                    |
			POST   | /actuator/delayqueue                    | {"action":"repair"}
			POST   | /actuator/delayqueue                    | {"action":"trigger","recurring":"unpaid-report"}
			POST   | /actuator/delayqueue/order-close         | {"action":"pause","listener":"order-closer"}
			DELETE | /actuator/delayqueue/order-close/o-card  |
			""")
	void actuatorReadsAndWritesNeedTheOpsRole(String method, String path, String body) throws Exception {
		this.template.schedule("order-close", "o-card", "{\"card\":\"4111111111111111\"}", Duration.ofHours(1));
		HttpResponse<String> anonymous = send(method, path, body, null);
		assertThat(anonymous.statusCode()).isEqualTo(401);
		assertThat(anonymous.body()).doesNotContain("4111");
		HttpResponse<String> viewer = send(method, path, body, VIEWER);
		assertThat(viewer.statusCode()).isEqualTo(403);
		assertThat(viewer.body()).doesNotContain("4111");
		assertThat(this.template.find("order-close", "o-card")).hasValueSatisfying(
				(job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
		assertThat(this.listeners.getListenerContainer("order-closer").getState()).isEqualTo("running");
		if (method.equals("GET")) {
			assertThat(send(method, path, body, OPS).statusCode()).as("for OPS").isEqualTo(200);
		}
	}

	/**
	 * The operator's documented writes with values that are not strings (a repair's dry run,
	 * a replay's most jobs) are read by the application's own mapper: the shop's strict reading
	 * of its routes does not reach them.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
			POST | /actuator/delayqueue             | {"action":"repair","dryRun":true}
			POST | /actuator/delayqueue/order-close | {"action":"replay","max":5}
			""")
	void theOperatorsWritesTakeNumbersAndBooleans(String method, String path, String body) throws Exception {
		HttpResponse<String> ops = send(method, path, body, OPS);
		assertThat(ops.statusCode()).as(ops.body()).isEqualTo(200);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b" })
	void aFormOfAnotherSiteChangesNothingWithTheOperatorsRememberedCredentials(String type) throws Exception {
		this.template.schedule("order-close", "o-form", "{}", Duration.ofHours(1));
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/delayqueue/order-close"))
			.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"pause\",\"listener\":\"order-closer\"}"))
			.header("Content-Type", type)
			.header("Authorization", OPS)
			.build();
		assertThat(this.http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(415);
		assertThat(this.listeners.getListenerContainer("order-closer").getState()).isEqualTo("running");
		assertThat(send("GET", "/actuator/delayqueue/order-close/o-form", null, OPS).statusCode()).isEqualTo(200);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "/actuator/health", "/actuator/health/delayqueue" })
	void healthStaysOpen(String path) throws Exception {
		assertThat(send("GET", path, null, null).statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> send(String method, String path, String body, String authorization)
			throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body)
					: HttpRequest.BodyPublishers.noBody());
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
