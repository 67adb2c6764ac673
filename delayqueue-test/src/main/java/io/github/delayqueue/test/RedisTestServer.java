package io.github.delayqueue.test;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

/**
 * A Redis server that a test talks to. Obtain one from {@link RedisTestServers}.
 *
 * <p>
 * Servers that the test support started itself ({@link #isManaged()}) can be stopped,
 * started again on the same port and with the same data directory, and closed. An
 * external server (from {@code DELAYQUEUE_TEST_REDIS_URL}) can only be used.
 */
public interface RedisTestServer extends AutoCloseable {

	/**
	 * Where a server came from, in the order the test support tries them.
	 */
	enum Source {

		/** The URL in the {@code DELAYQUEUE_TEST_REDIS_URL} environment variable. */
		EXTERNAL,

		/** A Testcontainers container (when a Docker engine answers). */
		TESTCONTAINERS,

		/** A {@code redis-server} found on the {@code PATH}, started on a free port. */
		PATH,

		/** The redis-server binary shipped in {@code com.github.codemonstur:embedded-redis}. */
		EMBEDDED

	}

	/**
	 * The host to connect to.
	 * @return the host name or address
	 */
	String host();

	/**
	 * The port to connect to.
	 * @return the port
	 */
	int port();

	/**
	 * The password to send with {@code AUTH}, or {@code null}.
	 * @return the password, or {@code null} when none is needed
	 */
	@Nullable String password();

	/**
	 * A new Lettuce connection to this server, authenticated when it has a password; the
	 * caller closes it. Connections come from one {@code RedisClient} shared by the JVM, do
	 * not reconnect, and wait up to 30 s for a reply.
	 * @return the connection
	 * @throws io.lettuce.core.RedisConnectionException when the server cannot be reached
	 */
	default StatefulRedisConnection<String, String> connect() {
		return TestRedisClient.connect(host(), port(), password());
	}

	/**
	 * Where the server comes from.
	 * @return its source
	 */
	Source source();

	/**
	 * A {@code redis://} URI for this server.
	 * @return the URI, with the password when there is one
	 */
	default URI uri() {
		String auth = (password() != null) ? ":" + password() + "@" : "";
		return URI.create("redis://" + auth + host() + ":" + port());
	}

	/**
	 * The Spring Boot properties that connect an application to this server:
	 * {@code spring.data.redis.host}, {@code spring.data.redis.port}, and
	 * {@code spring.data.redis.password} when the server has one. They are what
	 * {@link AutoConfigureTestRedis} puts into a test's environment, in the form that
	 * {@code ApplicationContextRunner.withPropertyValues} and
	 * {@code SpringApplicationBuilder.properties} take.
	 * @return {@code name=value} pairs, a new array on each call
	 */
	default String[] springBootProperties() {
		List<String> properties = new ArrayList<>();
		properties.add("spring.data.redis.host=" + host());
		properties.add("spring.data.redis.port=" + port());
		if (password() != null) {
			properties.add("spring.data.redis.password=" + password());
		}
		return properties.toArray(String[]::new);
	}

	/**
	 * Whether this support started the server, so that it may stop and restart it.
	 * @return {@code true} for a server this support manages
	 */
	boolean isManaged();

	/**
	 * Stops the server (a managed server only); its data directory is kept for
	 * {@link #start()}.
	 */
	void stop();

	/**
	 * Kills the server at once, as a crash would ({@code SIGKILL} for a local process: no
	 * shutdown, no final write); its data directory is kept for {@link #start()}. Servers that
	 * cannot be killed are stopped.
	 */
	default void kill() {
		stop();
	}

	/**
	 * Starts a stopped managed server again on the same port with the same data.
	 */
	void start();

	/**
	 * Stops the server if it runs and deletes what it left on disk.
	 */
	@Override
	void close();

}
