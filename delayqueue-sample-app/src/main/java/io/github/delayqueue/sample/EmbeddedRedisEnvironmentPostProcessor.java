package io.github.delayqueue.sample;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import redis.embedded.core.ExecutableProvider;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The sample app's "one command on a fresh machine": when no Redis is configured
 * ({@code spring.data.redis.url}, {@code host} and {@code port} unset) and nothing answers
 * on localhost:6379, starts the redis-server binary shipped in
 * {@code com.github.codemonstur:embedded-redis} on a free port, with an append-only file in
 * {@code ./target/embedded-redis} (or {@code sample.embedded-redis.dir}), and points the app
 * at it. Set {@code sample.embedded-redis.enabled=false} to turn it off. This belongs to the
 * sample only: the starter never starts a Redis.
 */
class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor {

	private final Log logger;

	EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("sample.embedded-redis.enabled", Boolean.class, true)) {
			return;
		}
		for (String property : List.of("spring.data.redis.url", "spring.data.redis.host", "spring.data.redis.port")) {
			if (environment.containsProperty(property)) {
				this.logger.info("Using the Redis configured by " + property);
				return;
			}
		}
		if (answers("localhost", 6379)) {
			this.logger.info("Using the Redis on localhost:6379");
			return;
		}
		Path dir = Path.of(environment.getProperty("sample.embedded-redis.dir", "target/embedded-redis")).toAbsolutePath();
		int port = freePort();
		start(dir, port);
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port)));
		this.logger.warn("No Redis configured and none on localhost:6379: started the EMBEDDED redis-server 6.2 on "
				+ "127.0.0.1:" + port + " with its append-only file in " + dir + ". For a real Redis set "
				+ "spring.data.redis.host / spring.data.redis.port (e.g. SPRING_DATA_REDIS_PORT=6379).");
	}

	private void start(Path dir, int port) {
		try {
			Files.createDirectories(dir);
			File binary = ExecutableProvider.newJarResourceProvider().get();
			binary.setExecutable(true);
			Process process = new ProcessBuilder(binary.getAbsolutePath(), "--port", String.valueOf(port), "--bind",
					"127.0.0.1", "--dir", dir.toString(), "--appendonly", "yes", "--save", "", "--daemonize", "no")
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				process.destroy();
				try {
					process.waitFor(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "embedded-redis-shutdown"));
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
			while (!answers("127.0.0.1", port)) {
				if (!process.isAlive() || System.nanoTime() > deadline) {
					throw new IllegalStateException("The embedded redis-server did not start; see " + dir.resolve("redis.log"));
				}
				Thread.sleep(20);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the embedded redis-server", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting the embedded redis-server", ex);
		}
	}

	private static boolean answers(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
