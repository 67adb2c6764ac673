package io.github.delayqueue.actuate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
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
 * a free port, and talks HTTP to them. Closes them after each test, or after all tests of
 * the class when registered as a static field built with {@link #perClass()}.
 */
public final class WebApps implements AfterEachCallback, AfterAllCallback {

	private static final JsonMapper json = JsonMapper.builder().build();

	public final String namespace = "a" + UUID.randomUUID().toString().substring(0, 8);

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private final boolean perClass;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	public WebApps() {
		this(false);
	}

	private WebApps(boolean perClass) {
		this.perClass = perClass;
	}

	/**
	 * Apps that live for all tests of a class.
	 * @return the extension
	 */
	public static WebApps perClass() {
		return new WebApps(true);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Boot {

	}

	public App run(RedisTestServer redis, Class<?> configuration, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Boot.class, configuration)
			.web(WebApplicationType.SERVLET)
			.properties(redis.springBootProperties())
			.properties("server.port=0", "spring.data.redis.timeout=2s", "delayqueue.namespace=" + this.namespace,
					"delayqueue.timer.lease-ttl=2s",
					"management.endpoints.web.exposure.include=delayqueue,health,prometheus",
					"management.endpoint.health.show-details=always", "spring.main.banner-mode=off",
					// spring-rabbit is on the test class path for the forwarding tests: no broker here
					"management.health.rabbit.enabled=false")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return new App(context);
	}

	@Override
	public void afterEach(ExtensionContext extensionContext) {
		if (!this.perClass) {
			closeAll();
		}
	}

	@Override
	public void afterAll(ExtensionContext extensionContext) {
		closeAll();
	}

	private void closeAll() {
		for (ConfigurableApplicationContext context : this.contexts) {
			context.close();
		}
		this.contexts.clear();
	}

	/**
	 * A response: its status and body.
	 */
	public record Response(int status, String body, HttpHeaders headers) {

		public JsonNode json() {
			return WebApps.json.readTree(this.body);
		}

	}

	public final class App {

		public final ConfigurableApplicationContext context;

		private final String base;

		App(ConfigurableApplicationContext context) {
			this(context, "local.server.port");
		}

		private App(ConfigurableApplicationContext context, String portProperty) {
			this.context = context;
			this.base = "http://localhost:" + context.getEnvironment().getProperty(portProperty);
		}

		/**
		 * The same application, talked to on its management server's port (with
		 * {@code management.server.port} of its own).
		 * @return the application on that port
		 */
		public App managementServer() {
			return new App(this.context, "local.management.port");
		}

		public <T> T bean(Class<T> type) {
			return this.context.getBean(type);
		}

		public Response get(String path) {
			return send("GET", path, null, null);
		}

		public Response post(String path, String body) {
			return send("POST", path, body, null);
		}

		public Response delete(String path) {
			return send("DELETE", path, null, null);
		}

		/**
		 * Sends a request with an optional JSON body and {@code Authorization} header.
		 * @param method the method
		 * @param path the path from the server's root
		 * @param body the JSON body, or {@code null}
		 * @param authorization the {@code Authorization} header, such as
		 * {@code "Bearer s3cret"}, or {@code null}
		 * @return the response
		 */
		public Response send(String method, String path, String body, String authorization) {
			HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path))
				.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body)
						: HttpRequest.BodyPublishers.noBody());
			if (body != null) {
				request.header("Content-Type", "application/json");
			}
			if (authorization != null) {
				request.header("Authorization", authorization);
			}
			return send(request);
		}

		/**
		 * Sends a request with a form body (none when {@code null}) and headers.
		 * @param method the method
		 * @param path the path from the server's root
		 * @param form the {@code application/x-www-form-urlencoded} body, or {@code null}
		 * @param headers header names and values, alternating
		 * @return the response
		 */
		public Response form(String method, String path, String form, String... headers) {
			HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path))
				.method(method, (form != null) ? HttpRequest.BodyPublishers.ofString(form)
						: HttpRequest.BodyPublishers.noBody());
			if (form != null) {
				request.header("Content-Type", "application/x-www-form-urlencoded");
			}
			for (int i = 0; i < headers.length; i += 2) {
				request.header(headers[i], headers[i + 1]);
			}
			return send(request);
		}

				private Response send(HttpRequest.Builder request) {
			try {
				HttpResponse<String> response = WebApps.this.http.send(request.timeout(Duration.ofSeconds(30)).build(),
						HttpResponse.BodyHandlers.ofString());
				return new Response(response.statusCode(), response.body(), response.headers());
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
