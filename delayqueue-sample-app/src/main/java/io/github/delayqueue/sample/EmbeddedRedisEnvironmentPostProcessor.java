package io.github.delayqueue.sample;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import redis.embedded.core.ExecutableProvider;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.StringUtils;

/**
 * The sample app's "one command on a fresh machine": when no Redis is configured
 * ({@code spring.data.redis.url}, {@code host} and {@code port} unset) and nothing answers
 * on localhost:6379, starts the redis-server binary shipped in
 * {@code com.github.codemonstur:embedded-redis} on a free port, with an append-only file in
 * {@code ./target/embedded-redis} (or {@code sample.embedded-redis.dir}), and points the app
 * at it. Set {@code sample.embedded-redis.enabled=false} to turn it off. This belongs to the
 * sample only: the starter never starts a Redis.
 *
 * <p>
 * The server runs as a daemon, in a session of its own (except on Windows), so that a Ctrl+C
 * in the terminal, which signals every process of the terminal's foreground process group,
 * does not stop it while the application is still stopping: it is stopped when the context
 * is closed, after the queue, the listeners and the Redis clients. A server that an earlier
 * run left behind on the same directory (its JVM killed) is stopped first, so that two never
 * write one append-only file.
 *
 * <p>
 * Nothing is started while the application is processed ahead of time
 * ({@code spring-boot:process-aot}): the build needs no Redis, and the server's bean, which
 * holds a running process, is not one to generate code for. An application started with the
 * generated code ({@code -Dspring.aot.enabled=true}) starts its server as any other does.
 */
class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor {

	static final String BEAN_NAME = "embeddedRedis";

	/** Set by Spring's ahead-of-time processors while they process the application. */
	private static final String AOT_PROCESSING = "spring.aot.processing";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final Log logger;

	EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("sample.embedded-redis.enabled", Boolean.class, true)
				|| Boolean.getBoolean(AOT_PROCESSING)) {
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
		application.addInitializers((context) -> {
			((BeanDefinitionRegistry) context.getBeanFactory()).registerBeanDefinition(BEAN_NAME,
					new RootBeanDefinition(EmbeddedRedis.class, redis::heldByTheContext));
			context.addBeanFactoryPostProcessor(EmbeddedRedisEnvironmentPostProcessor::destroyAfterTheRedisClients);
		});
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port)));
		this.logger.warn("No Redis configured and none on localhost:6379: started the EMBEDDED redis-server 6.2 on "
				+ "127.0.0.1:" + port + " with its append-only file in " + dir + ". For a real Redis set "
				+ "spring.data.redis.host / spring.data.redis.port (e.g. SPRING_DATA_REDIS_PORT=6379).");
	}

	/**
	 * Makes every Redis connection factory depend on the embedded server, so that the server
	 * is destroyed after them (the queue and the listeners stop earlier still, with the
	 * context's lifecycle).
	 */
	private static void destroyAfterTheRedisClients(ConfigurableListableBeanFactory beanFactory) {
		for (String name : beanFactory.getBeanNamesForType(RedisConnectionFactory.class, true, false)) {
			BeanDefinition definition = beanFactory.getBeanDefinition(name);
			definition.setDependsOn(StringUtils.addStringToArray(definition.getDependsOn(), BEAN_NAME));
		}
	}

	private EmbeddedRedis start(Path dir, int port) {
		Path pidFile = dir.resolve("redis.pid");
		Path log = dir.resolve("redis.log");
		boolean daemon = !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
		try {
			Files.createDirectories(dir);
			stopLeftover(pidFile);
			File binary = ExecutableProvider.newJarResourceProvider().get();
			binary.setExecutable(true);
			Process process = new ProcessBuilder(binary.getAbsolutePath(), "--port", String.valueOf(port), "--bind",
					"127.0.0.1", "--dir", dir.toString(), "--appendonly", "yes", "--save", "", "--daemonize",
					daemon ? "yes" : "no", "--pidfile", pidFile.toString(), "--logfile", log.toString())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
			ProcessHandle server = daemon ? null : process.toHandle();
			while (server == null || !answers("127.0.0.1", port)) {
				if (server == null && Files.exists(pidFile)) {
					server = process(readPid(pidFile)).orElse(null);
				}
				boolean ended = (server != null) ? !server.isAlive() : !process.isAlive() && process.exitValue() != 0;
				if (ended || System.nanoTime() > deadline) {
					stop((server != null) ? server : process.toHandle());
					throw new IllegalStateException("The embedded redis-server did not start; see " + log);
				}
				Thread.sleep(20);
			}
			EmbeddedRedis redis = new EmbeddedRedis(server);
			Runtime.getRuntime().addShutdownHook(new Thread(redis::stopAfterTheContext, "embedded-redis-shutdown"));
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

	/**
	 * Stops the redis-server of an earlier run on this directory that is still running (its
	 * JVM was killed): a server removes its pid file when it stops. A pid file left by a
	 * server that did not stop (a machine's crash) may name another process by now, so the
	 * process is stopped only when it runs in this directory, as the embedded server does
	 * ({@code --dir}); where that cannot be read (not Linux), it is left alone.
	 */
	private void stopLeftover(Path pidFile) throws IOException {
		if (!Files.exists(pidFile)) {
			return;
		}
		Path dir = pidFile.getParent();
		Optional<ProcessHandle> named = process(readPid(pidFile));
		Optional<ProcessHandle> leftover = named.filter((candidate) -> runsIn(candidate, dir));
		if (leftover.isPresent()) {
			this.logger.warn("Stopping the embedded redis-server of an earlier run (pid " + leftover.get().pid()
					+ ") that still runs on " + dir);
			stop(leftover.get());
		}
		else if (named.isPresent()) {
			this.logger.info("The pid file " + pidFile + " of an earlier run names process " + named.get().pid()
					+ ", which does not run in " + dir + "; it is left alone");
		}
		Files.deleteIfExists(pidFile);
	}

	/**
	 * Whether a process's working directory is the given one (Linux's {@code /proc}).
	 */
	private static boolean runsIn(ProcessHandle process, Path dir) {
		try {
			Path cwd = Files.readSymbolicLink(Path.of("/proc", String.valueOf(process.pid()), "cwd"));
			return Files.isSameFile(cwd, dir);
		}
		catch (IOException | UnsupportedOperationException | SecurityException ex) {
			return false;
		}
	}

	private static long readPid(Path pidFile) throws IOException {
		String text = Files.readString(pidFile).strip();
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			return -1; // being written, or not a pid file
		}
	}

	private static Optional<ProcessHandle> process(long pid) {
		return (pid > 0) ? ProcessHandle.of(pid) : Optional.empty();
	}

	/**
	 * Stops a redis-server: SIGTERM, on which it writes its append-only file and exits.
	 */
	static void stop(ProcessHandle server) {
		server.destroy();
		try {
			server.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			server.destroyForcibly();
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
	 * beans destroyed, after the queue gave up its timers and the Redis clients closed), or by
	 * the JVM's shutdown hook: at once when no context holds it (start-up failed before its
	 * bean was created), else when the context did not stop it within 30 seconds.
	 */
	static final class EmbeddedRedis implements DisposableBean {

		private final ProcessHandle server;

		private final CountDownLatch stopped = new CountDownLatch(1);

		private volatile boolean held;

		EmbeddedRedis(ProcessHandle server) {
			this.server = server;
		}

		EmbeddedRedis heldByTheContext() {
			this.held = true;
			return this;
		}

		@Override
		public void destroy() {
			try {
				stop(this.server);
			}
			finally {
				this.stopped.countDown();
			}
		}

		void stopAfterTheContext() {
			try {
				if (!this.held || !this.stopped.await(30, TimeUnit.SECONDS)) {
					destroy();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.server.destroy();
			}
		}

	}

}
