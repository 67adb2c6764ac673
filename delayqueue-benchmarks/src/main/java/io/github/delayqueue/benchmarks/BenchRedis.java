package io.github.delayqueue.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The benchmark's own redis-server (from the {@code PATH}, on a free loopback port,
 * persistence off) and an admin connection for {@code INFO}, {@code FLUSHALL} and
 * {@code CONFIG RESETSTAT}.
 */
final class BenchRedis implements AutoCloseable {

	private final RedisTestServer server;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	BenchRedis() {
		this.server = RedisTestServers.local().argument("--appendonly", "no").start();
		this.client = RedisClient.create(RedisURI.create(this.server.host(), this.server.port()));
		this.connection = this.client.connect();
	}

	String host() {
		return this.server.host();
	}

	int port() {
		return this.server.port();
	}

	RedisCommands<String, String> commands() {
		return this.connection.sync();
	}

	/**
	 * One {@code INFO} section as a map.
	 */
	Map<String, String> info(String section) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : commands().info(section).split("\r\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon), line.substring(colon + 1));
			}
		}
		return fields;
	}

	long usedMemory() {
		return Long.parseLong(info("memory").get("used_memory"));
	}

	long commandsProcessed() {
		return Long.parseLong(info("stats").get("total_commands_processed"));
	}

	/**
	 * Microseconds Redis spent in commands since the last {@link #resetStats()}, all
	 * commands but {@code INFO} and {@code CONFIG}.
	 */
	long commandMicros() {
		long micros = 0;
		for (Map.Entry<String, String> entry : info("commandstats").entrySet()) {
			if (entry.getKey().startsWith("cmdstat_info") || entry.getKey().startsWith("cmdstat_config")) {
				continue;
			}
			for (String part : entry.getValue().split(",")) {
				if (part.startsWith("usec=")) {
					micros += Long.parseLong(part.substring(5));
				}
			}
		}
		return micros;
	}

	/**
	 * CPU seconds the Redis process used so far (user + system), from {@code INFO cpu}.
	 */
	double cpuSeconds() {
		Map<String, String> cpu = info("cpu");
		return Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
	}

	/**
	 * Script calls ({@code EVAL}, {@code EVALSHA}) since the last {@link #resetStats()}:
	 * requests, where {@link #commandsProcessed()} also counts the commands run inside scripts.
	 */
	long scriptCalls() {
		long calls = 0;
		for (Map.Entry<String, String> entry : info("commandstats").entrySet()) {
			if (entry.getKey().equals("cmdstat_evalsha") || entry.getKey().equals("cmdstat_eval")) {
				calls += Long.parseLong(entry.getValue().replaceAll("^calls=(\\d+),.*$", "$1"));
			}
		}
		return calls;
	}

	void resetStats() {
		commands().configResetstat();
	}

	void flush() {
		commands().flushall();
	}

	String version() {
		return info("server").get("redis_version");
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
		this.server.close();
	}

}
