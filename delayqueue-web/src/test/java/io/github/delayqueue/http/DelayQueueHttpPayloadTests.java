package io.github.delayqueue.http;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A payload sent through the HTTP job API comes back byte for byte: through a find, a
 * reserve, the endpoint's page of dead jobs and a listener reading it as a {@code String}.
 */
class DelayQueueHttpPayloadTests {

	static final String TOKEN = "s3cret-token";

	@RegisterExtension
	static final WebApps apps = WebApps.perClass();

	private static App app;

	static class Listener {

		final BlockingQueue<String> received = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "exact-listened")
		void handle(String payload) {
			this.received.add(payload);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Listener listener() {
			return new Listener();
		}

	}

	@BeforeAll
	static void startApp() {
		app = apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=4", "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN, "delayqueue.endpoint.show-payloads=true");
	}

	static String[] payloads() {
		return new String[] { "0.10000000000000000001", "12345678901234567890.5", "1e400", "12345678901234567890",
				"{\"a\":0.10000000000000000001,\"b\":[12345678901234567890.5,1e400,-0.0,1E-7]}",
				"{\"a\":".repeat(60) + "1" + "}".repeat(60), "{\"text\":\"héllo wörld ☃ 日本 😀\"}",
				"{ \"spaced\" : [ 1 ,\n\t2 ] }", "\"a JSON string: héllo \\\"quoted\\\"\"" };
	}

	@ParameterizedTest
	@MethodSource("payloads")
	void aPayloadComesBackByteForByte(String payload) throws InterruptedException {
		String id = "p" + Integer.toHexString(payload.hashCode());
		String topic = "exact-" + id;
		assertThat(add(topic, id, payload).status()).isEqualTo(201);
		// a JSON string is stored as its text (as a Java String payload is), and answered as that string
		String expected = payload.startsWith("\"") ? JsonMapper.shared().readValue(payload, String.class) : payload;

		Response found = call("GET", "/jobs/" + topic + "/" + id, null);
		assertThat(found.body()).contains("\"body\":" + payload);
		Response reserved = call("POST", "/topics/" + topic + "/reserve?wait=PT5S", null);
		assertThat(reserved.body()).contains("\"body\":" + payload);
		long token = reserved.json().get("jobs").get(0).get("token").asLong();
		assertThat(call("POST", "/jobs/" + topic + "/" + id + "/fail", "{\"token\":" + token + ",\"dead\":true}").status())
			.isEqualTo(200);
		JsonNode dead = app.get("/actuator/delayqueue/" + topic).json().get("deadJobs").get("jobs");
		assertThat(dead.valueStream().filter((job) -> job.get("id").asString().equals(id)).findFirst().orElseThrow()
			.get("payload").asString()).isEqualTo(expected);

		assertThat(add("exact-listened", id, payload).status()).isEqualTo(201);
		assertThat(app.bean(Listener.class).received.poll(10, TimeUnit.SECONDS)).isEqualTo(expected);
		// the handler has returned; the invariant is read once the listener's finish has run too
		await().until(() -> call("GET", "/jobs/exact-listened/" + id, null).status() == 404);
		QueueInvariant.assertHolds(RedisTestServers.shared(), apps.namespace);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnJsonConverter {

		@Bean
		JacksonJsonHttpMessageConverter ownJsonConverter() {
			return new JacksonJsonHttpMessageConverter(JsonMapper.builder().build());
		}

	}

	/**
	 * An application that declares a JSON converter of its own (which Spring Boot puts before
	 * the others) does not change how the API reads its bodies: strictly, the payload kept as
	 * sent.
	 */
	@Test
	void anApplicationsOwnJsonConverterDoesNotReadTheApisBodies() {
		App own = apps.run(RedisTestServers.shared(), OwnJsonConverter.class, "delayqueue.buckets=4",
				"delayqueue.http.enabled=true", "delayqueue.http.tokens=" + TOKEN);
		Response unknown = own.send("POST", "/delayqueue/jobs",
				"{\"topic\":\"own\",\"id\":\"u\",\"delay\":0,\"body\":1,\"bodyy\":2}", "Bearer " + TOKEN);
		assertThat(unknown.status()).as(unknown.body()).isEqualTo(400);
		// the problem written as the API writes it, whatever the application's converters
		assertThat(unknown.json().get("field").asString()).isEqualTo("bodyy");
		String payload = "{\"a\":0.10000000000000000001}";
		assertThat(own.send("POST", "/delayqueue/jobs", "{\"topic\":\"own\",\"id\":\"x\",\"delay\":0,\"body\":"
				+ payload + "}", "Bearer " + TOKEN).status()).isEqualTo(201);
		assertThat(own.send("GET", "/delayqueue/jobs/own/x", null, "Bearer " + TOKEN).body())
			.contains("\"body\":" + payload);
	}

	private static Response add(String topic, String id, String payload) {
		return call("POST", "/jobs", "{\"topic\":\"" + topic + "\",\"id\":\"" + id + "\",\"delay\":0,\"body\":"
				+ payload + "}");
	}

	private static Response call(String method, String path, String body) {
		return app.send(method, "/delayqueue" + path, body, "Bearer " + TOKEN);
	}

}
