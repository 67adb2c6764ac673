package io.github.delayqueue.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.delayqueue.test.RedisTestServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Started Lettuce connection factories for test servers (with their password, if any); the
 * caller destroys them.
 */
public final class TestConnections {

	private TestConnections() {
	}

	/**
	 * A started connection factory for a test server.
	 * @param redis the server
	 * @param commandTimeout how long a command may take
	 * @return the factory
	 */
	public static LettuceConnectionFactory lettuce(RedisTestServer redis, Duration commandTimeout) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.host(), redis.port());
		if (redis.password() != null) {
			configuration.setPassword(redis.password());
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * A started connection factory for a local port nothing listens on.
	 * @return the factory
	 */
	public static LettuceConnectionFactory unreachable() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", freePort()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * A local port nothing listens on now.
	 * @return the port
	 */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
