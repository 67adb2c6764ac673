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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import redis.embedded.core.ExecutableProvider;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
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
		EmbeddedRedis redis = start(dir, port);
		// stopped when the context's beans are destroyed: after the queue and Redis clients have stopped
		application.addInitializers((context) -> ((BeanDefinitionRegistry) context.getBeanFactory())
			.registerBeanDefinition("embeddedRedis", new RootBeanDefinition(EmbeddedRedis.class, () -> redis)));
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port)));
		this.logger.warn("No Redis configured and none on localhost:6379: started the EMBEDDED redis-server 6.2 on "
				+ "127.0.0.1:" + port + " with its append-only file in " + dir + ". For a real Redis set "
				+ "spring.data.redis.host / spring.data.redis.port (e.g. SPRING_DATA_REDIS_PORT=6379).");
	}

	private EmbeddedRedis start(Path dir, int port) {
		try {
			Files.createDirectories(dir);
			File binary = ExecutableProvider.newJarResourceProvider().get();
			binary.setExecutable(true);
			Process process = new ProcessBuilder(binary.getAbsolutePath(), "--port", String.valueOf(port), "--bind",
					"127.0.0.1", "--dir", dir.toString(), "--appendonly", "yes", "--save", "", "--daemonize", "no")
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
			EmbeddedRedis redis = new EmbeddedRedis(process);
			Runtime.getRuntime().addShutdownHook(new Thread(redis::stopAfterTheContext, "embedded-redis-shutdown"));
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
			while (!answers("127.0.0.1", port)) {
				if (!process.isAlive() || System.nanoTime() > deadline) {
					redis.destroy();
					throw new IllegalStateException("The embedded redis-server did not start; see " + dir.resolve("redis.log"));
				}
				Thread.sleep(20);
			}
			return redis;
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

	/**
	 * The embedded redis-server process: stopped when the application context is closed (its
	 * beans destroyed, so after the queue gave up its timers), or by the JVM's shutdown hook
	 * when no context closes it within 30 seconds.
	 */
	static final class EmbeddedRedis implements DisposableBean {

		private final Process process;

		private final CountDownLatch stopped = new CountDownLatch(1);

		EmbeddedRedis(Process process) {
			this.process = process;
		}

		@Override
		public void destroy() {
			this.process.destroy();
			try {
				this.process.waitFor(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.stopped.countDown();
			}
		}

		void stopAfterTheContext() {
			try {
				if (!this.stopped.await(30, TimeUnit.SECONDS)) {
					destroy();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.process.destroy();
			}
		}

	}

}
