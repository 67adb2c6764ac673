package io.github.delayqueue.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.core.ExecutableProvider;

/**
 * Finds a real Redis server for tests, in this order:
 * <ol>
 * <li>the URL in the {@code DELAYQUEUE_TEST_REDIS_URL} environment variable;</li>
 * <li>a Testcontainers container, when Testcontainers is on the class path and a Docker
 * engine answers;</li>
 * <li>a {@code redis-server} on the {@code PATH}, started on a free loopback port;</li>
 * <li>the redis-server binary shipped in {@code com.github.codemonstur:embedded-redis}.</li>
 * </ol>
 * Tests never skip for lack of Docker: the last two always work on Linux, macOS and
 * Windows x86-64. The choice is logged.
 *
 * <p>
 * {@link #shared()} is one server for the whole test JVM, stopped when the JVM exits;
 * {@link #local()} starts extra servers that a test owns, can stop and restart (fault
 * tests) and must close. {@link AutoConfigureTestRedis} gives a Spring test's application
 * context one of these servers.
 */
public final class RedisTestServers {

	/** The environment variable that names an external Redis for tests. */
	public static final String URL_VARIABLE = "DELAYQUEUE_TEST_REDIS_URL";

	private static final Logger logger = LoggerFactory.getLogger(RedisTestServers.class);

	private static @Nullable RedisTestServer shared;

	private static final Map<List<String>, RedisTestServer> sharedLocal = new HashMap<>();

	private RedisTestServers() {
	}

	/**
	 * The server shared by every test of this JVM, chosen and started on first use.
	 * @return the shared server
	 */
	public static synchronized RedisTestServer shared() {
		if (shared == null) {
			shared = choose();
			logger.info("Tests use {}", shared);
			RedisTestServer server = shared;
			Runtime.getRuntime().addShutdownHook(new Thread(server::close, "delayqueue-test-redis-shutdown"));
		}
		return shared;
	}

	/**
	 * A redis-server started with the given command-line arguments, shared by every caller
	 * of this JVM that asks for the same arguments and stopped when the JVM exits.
	 */
	static synchronized RedisTestServer sharedLocal(List<String> arguments) {
		RedisTestServer server = sharedLocal.get(arguments);
		if (server == null) {
			server = local().argument(arguments.toArray(String[]::new)).start();
			logger.info("Tests with redis-server arguments {} use {}", arguments, server);
			Runtime.getRuntime().addShutdownHook(new Thread(server::close, "delayqueue-test-redis-shutdown"));
			sharedLocal.put(List.copyOf(arguments), server);
		}
		return server;
	}

	private static RedisTestServer choose() {
		String url = System.getenv(URL_VARIABLE);
		if (url != null && !url.isBlank()) {
			return new ExternalRedisServer(URI.create(url.trim()));
		}
		if (isPresent("org.testcontainers.DockerClientFactory") && ContainerRedisServer.dockerAvailable()) {
			return ContainerRedisServer.launch();
		}
		logger.info("No {} and no Docker engine: starting a local redis-server", URL_VARIABLE);
		return local().start();
	}

	private static boolean isPresent(String className) {
		try {
			Class.forName(className, false, RedisTestServers.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * Options for an extra redis-server process that the caller owns.
	 * @return a builder; {@link LocalBuilder#start()} starts the server
	 */
	public static LocalBuilder local() {
		return new LocalBuilder();
	}

	/**
	 * Builds a redis-server process: {@code redis-server} from the {@code PATH} when
	 * there is one, else the binary shipped in embedded-redis.
	 */
	public static final class LocalBuilder {

		private final List<String> arguments = new ArrayList<>();

		private @Nullable String password;

		private boolean preferEmbedded;

		private LocalBuilder() {
		}

		/**
		 * Turns the append-only file on, fsynced on every write, so that a restart keeps
		 * every acknowledged write.
		 * @return this builder
		 */
		public LocalBuilder appendOnly() {
			return argument("--appendonly", "yes").argument("--appendfsync", "always");
		}

		/**
		 * Requires a password.
		 * @param password the password
		 * @return this builder
		 */
		public LocalBuilder password(String password) {
			this.password = password;
			return this;
		}

		/**
		 * Adds redis-server command-line arguments.
		 * @param words the arguments
		 * @return this builder
		 */
		public LocalBuilder argument(String... words) {
			this.arguments.addAll(List.of(words));
			return this;
		}

		/**
		 * Uses the embedded binary (Redis 6.2) even when a {@code redis-server} is on the
		 * {@code PATH}: for checks against the oldest supported Redis.
		 * @return this builder
		 */
		public LocalBuilder embedded() {
			this.preferEmbedded = true;
			return this;
		}

		/**
		 * Starts the server.
		 * @return the running server, owned by the caller
		 */
		public RedisTestServer start() {
			LocalRedisServer server = newLocal(this.preferEmbedded, this.arguments, this.password, null);
			server.start();
			return server;
		}

	}

	/**
	 * A redis-server process, not started: the one on the {@code PATH} unless the embedded
	 * one is preferred or there is none.
	 */
	static LocalRedisServer newLocal(boolean preferEmbedded, List<String> arguments, @Nullable String password,
			@Nullable String sentinelConfig) {
		File onPath = preferEmbedded ? null : findOnPath("redis-server");
		return (onPath != null)
				? new LocalRedisServer(onPath, RedisTestServer.Source.PATH, arguments, password, sentinelConfig)
				: new LocalRedisServer(embeddedBinary(), RedisTestServer.Source.EMBEDDED, arguments, password,
						sentinelConfig);
	}

	static @Nullable File findOnPath(String name) {

		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path candidate = Path.of(dir, name);
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate.toFile();
			}
		}
		return null;
	}

	static File embeddedBinary() {
		try {
			File binary = ExecutableProvider.newJarResourceProvider().get();
			binary.setExecutable(true);
			return binary;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not extract the embedded redis-server binary", ex);
		}
	}

}
