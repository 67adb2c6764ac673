package io.github.delayqueue.redis;

import java.util.Properties;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a test server says of itself: its version and its command counts.
 */
public final class RedisStats {

	private RedisStats() {
	}

	/**
	 * A field of a command's {@code INFO commandstats} line ({@code calls}, {@code failed_calls},
	 * {@code rejected_calls}, ...).
	 * @return its value, 0 when the command has no line yet
	 */
	public static long commandStat(RedisConnectionFactory factory, String command, String field) {
		try (RedisConnection connection = factory.getConnection()) {
			Properties stats = connection.serverCommands().info("commandstats");
			assertThat(stats).isNotNull();
			String line = stats.getProperty("cmdstat_" + command);
			if (line == null) {
				return 0;
			}
			for (String stat : line.split(",")) {
				if (stat.startsWith(field + "=")) {
					return Long.parseLong(stat.substring(field.length() + 1));
				}
			}
			throw new IllegalStateException("No " + field + " in " + line);
		}
	}

	/** The server's major version (6 for the embedded binary, 7 for Debian's redis-server). */
	public static int majorVersion(RedisConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			Properties server = connection.serverCommands().info("server");
			assertThat(server).isNotNull();
			String version = server.getProperty("redis_version");
			return Integer.parseInt(version.substring(0, version.indexOf('.')));
		}
	}

}
