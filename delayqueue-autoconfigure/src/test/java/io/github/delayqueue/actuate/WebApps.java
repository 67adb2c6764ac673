package io.github.delayqueue.actuate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Runs whole Boot web applications with the starter, Actuator, Micrometer and Prometheus on
 * a free port, and talks HTTP to them. Closes them after each test.
 */
final class WebApps implements AfterEachCallback {

	private static final JsonMapper json = JsonMapper.builder().build();

	final String namespace = "a" + UUID.randomUUID().toString().substring(0, 8);

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Boot {

	}

	App run(RedisTestServer redis, Class<?> configuration, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Boot.class, configuration)
			.web(WebApplicationType.SERVLET)
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=2s",
					"delayqueue.namespace=" + this.namespace, "delayqueue.timer.lease-ttl=2s",
					"management.endpoints.web.exposure.include=delayqueue,health,prometheus",
					"management.endpoint.health.show-details=always", "spring.main.banner-mode=off")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return new App(context);
	}

	@Override
	public void afterEach(ExtensionContext extensionContext) {
		for (ConfigurableApplicationContext context : this.contexts) {
			context.close();
		}
		this.contexts.clear();
	}

	/**
	 * A response: its status and body.
	 */
	record Response(int status, String body) {

		JsonNode json() {
			return WebApps.json.readTree(this.body);
		}

	}

	final class App {

		final ConfigurableApplicationContext context;

		private final String base;

		App(ConfigurableApplicationContext context) {
			this.context = context;
			this.base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
		}

		<T> T bean(Class<T> type) {
			return this.context.getBean(type);
		}

		Response get(String path) {
			return send(HttpRequest.newBuilder(URI.create(this.base + path)).GET());
		}

		Response post(String path, String body) {
			return send(HttpRequest.newBuilder(URI.create(this.base + path))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString(body)));
		}

		Response delete(String path) {
			return send(HttpRequest.newBuilder(URI.create(this.base + path)).DELETE());
		}

		private Response send(HttpRequest.Builder request) {
			try {
				HttpResponse<String> response = WebApps.this.http.send(request.timeout(Duration.ofSeconds(30)).build(),
						HttpResponse.BodyHandlers.ofString());
				return new Response(response.statusCode(), response.body());
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

	}

}
