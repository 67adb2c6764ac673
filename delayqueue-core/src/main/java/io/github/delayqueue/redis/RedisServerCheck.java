package io.github.delayqueue.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.UnsupportedRedisVersionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * The start-up checks of the Redis servers: refuses Redis older than 6.2, warns when keys
 * may be evicted, and logs how data is persisted.
 */
final class RedisServerCheck {

	private static final Log logger = LogFactory.getLog(RedisServerCheck.class);

	private RedisServerCheck() {
	}

	/**
	 * Runs the checks.
	 * @throws UnsupportedRedisVersionException when a server runs Redis older than 6.2
	 * @throws DelayQueueConnectionException when Redis is unreachable
	 */
	static void check(ScriptRunner runner) {
		Properties info;
		try {
			info = runner.execute("INFO", (connection) -> connection.serverCommands().info());
		}
		catch (DelayQueueConnectionException ex) {
			throw ex;
		}
		catch (DelayQueueException ex) {
			// INFO is in @dangerous: a least-privilege ACL user may not run it
			logger.warn("Could not read Redis's INFO (" + ex.getMessage() + "): the Redis version (6.2 or newer),"
					+ " maxmemory-policy and persistence are not checked. Allow the command INFO to the Redis user"
					+ " for these checks");
			return;
		}
		if (info == null) {
			return;
		}
		checkVersion(values(info, "redis_version"));
		checkEviction(values(info, "maxmemory_policy"));
		logPersistence(values(info, "aof_enabled"), persistenceConfig(runner));
	}

	/** The values of an INFO field by node ({@code ""} on a single server). */
	static Map<String, String> values(Properties info, String field) {
		Map<String, String> values = new TreeMap<>();
		for (String name : info.stringPropertyNames()) {
			if (name.equals(field)) {
				values.put("", info.getProperty(name).trim());
			}
			else if (name.endsWith("." + field)) {
				values.put(name.substring(0, name.length() - field.length() - 1), info.getProperty(name).trim());
			}
		}
		return values;
	}

	static void checkVersion(Map<String, String> versions) {
		versions.forEach((node, version) -> {
			if (!isSupported(version)) {
				throw new UnsupportedRedisVersionException(node, version);
			}
		});
	}

	static void checkEviction(Map<String, String> policies) {
		policies.forEach((node, policy) -> {
			if (!"noeviction".equals(policy)) {
				logger.warn("Redis" + on(node) + " has maxmemory-policy '" + policy + "': under memory pressure "
						+ "Redis may evict delayqueue's keys and jobs would be lost without an error. Fix: set "
						+ "'maxmemory-policy noeviction' in redis.conf (or CONFIG SET maxmemory-policy noeviction); "
						+ "a full Redis then refuses new jobs with an error instead");
			}
		});
	}

	static void logPersistence(Map<String, String> aofEnabled, Map<String, String> config) {
		List<String> parts = new ArrayList<>();
		boolean aof = aofEnabled.values().stream().anyMatch("1"::equals);
		parts.add(aof ? "AOF on" + ((config.get("appendfsync") != null)
				? " (appendfsync " + config.get("appendfsync") + ")" : "") : "AOF off");
		String save = config.get("save");
		if (save == null) {
			parts.add("RDB snapshots unknown (CONFIG GET is not allowed)");
		}
		else {
			parts.add(save.isBlank() ? "RDB snapshots off" : "RDB snapshots 'save " + save + "'");
		}
		String summary = "Redis persistence: " + String.join(", ", parts);
		if (!aof && save != null && save.isBlank()) {
			logger.warn(summary + ": a Redis restart loses every job. Turn on 'appendonly yes' (appendfsync "
					+ "everysec may lose the last second of acknowledged changes on a crash; always loses none)");
		}
		else {
			logger.info(summary + (aof ? "" : ": a crash loses the changes since the last snapshot; "
					+ "'appendonly yes' narrows that to at most a second"));
		}
	}

	private static Map<String, String> persistenceConfig(ScriptRunner runner) {
		Map<String, String> config = new TreeMap<>();
		try {
			runner.execute("CONFIG GET", (connection) -> {
				read(connection, "save", config);
				read(connection, "appendfsync", config);
				return null;
			});
		}
		catch (RuntimeException ex) {
			logger.debug("CONFIG GET is not allowed; persistence settings unknown: " + ex.getMessage());
		}
		return config;
	}

	private static void read(RedisConnection connection, String name, Map<String, String> config) {
		Properties values = connection.serverCommands().getConfig(name);
		if (values != null) {
			String value = values.getProperty(name);
			if (value == null) {
				// a cluster answers per node: "<node>.<name>"
				value = values(values, name).values().stream().findFirst().orElse(null);
			}
			if (value != null) {
				config.put(name, value.trim());
			}
		}
	}

	static boolean isSupported(String version) {
		int[] numbers = majorAndMinor(version);
		return numbers == null || numbers[0] > 6 || (numbers[0] == 6 && numbers[1] >= 2);
	}

	/** A version's major and minor numbers, or null when unreadable. */
	private static int @Nullable [] majorAndMinor(String version) {
		String[] parts = version.trim().split("\\.");
		try {
			return new int[] { Integer.parseInt(parts[0]), (parts.length > 1) ? Integer.parseInt(parts[1]) : 0 };
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static String on(String node) {
		return node.isEmpty() ? "" : " " + node;
	}

}
