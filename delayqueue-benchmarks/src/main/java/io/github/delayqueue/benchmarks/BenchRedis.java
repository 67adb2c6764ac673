package io.github.delayqueue.benchmarks;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The benchmark's own redis-server (from the {@code PATH}, on a free loopback port,
 * persistence off), or in a child JVM the parent's, and an admin connection for
 * {@code INFO}, {@code FLUSHALL} and {@code CONFIG RESETSTAT}.
 */
final class BenchRedis implements AutoCloseable {

	/** Commands of the harness itself, left out of the counts of {@link #calls()}. */
	/** The most commands {@link #traceCalls()} logs. */
	static final int TRACED_CALLS = 100_000;

	/** The most commands {@link #traceScripts()} logs. */
	static final int TRACED_SCRIPT_CALLS = 1_000_000;

	private static final Set<String> ADMIN = Set.of("cmdstat_info", "cmdstat_config|resetstat", "cmdstat_flushall");

	private final RedisTestServer server;

	private final String host;

	private final int port;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	/**
	 * Starts a redis-server of its own.
	 */
	BenchRedis() {
		this(RedisTestServers.local().argument("--appendonly", "no").start());
	}

	private BenchRedis(RedisTestServer server) {
		this(server, server.host(), server.port());
	}

	private BenchRedis(RedisTestServer server, String host, int port) {
		this.server = server;
		this.host = host;
		this.port = port;
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
	}

	/**
	 * Connects to a redis-server that another JVM of the harness started and stops.
	 */
	static BenchRedis connect(String host, int port) {
		return new BenchRedis(null, host, port);
	}

	String host() {
		return this.host;
	}

	int port() {
		return this.port;
	}

	/**
	 * The properties every Spring Boot context of the harness starts with: this server, no
	 * banner, no JMX, warnings only (and no warning that the server runs without persistence,
	 * as it does on purpose).
	 * @return a new map, for the caller to add to
	 */
	Map<String, Object> contextProperties() {
		Map<String, Object> properties = new HashMap<>();
		properties.put("spring.main.banner-mode", "off");
		properties.put("spring.jmx.enabled", "false");
		properties.put("spring.data.redis.host", this.host);
		properties.put("spring.data.redis.port", this.port);
		properties.put("logging.level.root", "WARN");
		properties.put("logging.level.io.github.delayqueue.redis.StartupChecks", "ERROR");
		return properties;
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
	 * Commands Redis ran so far by {@code INFO commandstats}, the harness's own {@code INFO},
	 * {@code CONFIG RESETSTAT} and {@code FLUSHALL} left out; reset by {@link #resetStats()}.
	 */
	Calls calls() {
		long commands = 0;
		long scripts = 0;
		Map<String, Long> byCommand = new java.util.TreeMap<>();
		for (Map.Entry<String, String> entry : info("commandstats").entrySet()) {
			if (ADMIN.contains(entry.getKey())) {
				continue;
			}
			long calls = Long.parseLong(entry.getValue().replaceAll("^calls=(\\d+),.*$", "$1"));
			commands += calls;
			byCommand.put(entry.getKey().substring("cmdstat_".length()), calls);
			if (entry.getKey().equals("cmdstat_evalsha") || entry.getKey().equals("cmdstat_eval")) {
				scripts += calls;
			}
		}
		return new Calls(commands, scripts, byCommand);
	}

	/**
	 * Starts logging every command Redis runs to an emptied {@code SLOWLOG} (threshold 0, up
	 * to {@value #TRACED_CALLS} entries), until {@link #slowestCall()}.
	 */
	void traceCalls() {
		commands().configSet("slowlog-max-len", String.valueOf(TRACED_CALLS));
		commands().configSet("slowlog-log-slower-than", "0");
		commands().slowlogReset();
	}

	/**
	 * The longest command Redis ran since {@link #traceCalls()}; puts the log back to Redis's
	 * defaults, emptied.
	 */
	SlowestCall slowestCall() {
		List<Object> entries = commands().slowlogGet(TRACED_CALLS);
		commands().configSet("slowlog-log-slower-than", "10000");
		commands().configSet("slowlog-max-len", "128");
		commands().slowlogReset();
		SlowestCall slowest = new SlowestCall(0, "none", entries.size() >= TRACED_CALLS);
		for (Object entry : entries) {
			List<?> fields = (List<?>) entry;
			long micros = (Long) fields.get(2);
			if (micros > slowest.micros()) {
				String command = ((List<?>) fields.get(3)).stream()
					.limit(4)
					.map(String::valueOf)
					.map((arg) -> (arg.length() > 40) ? arg.substring(0, 40) + "…" : arg)
					.collect(Collectors.joining(" "));
				slowest = new SlowestCall(micros, command, slowest.overflowed());
			}
		}
		return slowest;
	}

	/**
	 * Starts logging every command to an emptied {@code SLOWLOG} (threshold 0, up to
	 * {@value #TRACED_SCRIPT_CALLS} entries), until {@link #scriptTimes}.
	 */
	void traceScripts() {
		commands().configSet("slowlog-max-len", String.valueOf(TRACED_SCRIPT_CALLS));
		commands().configSet("slowlog-log-slower-than", "0");
		commands().slowlogReset();
	}

	/**
	 * The calls and microseconds of each script since {@link #traceScripts()}, by {@code SLOWLOG}
	 * (a script's time includes the commands it ran), by their names in {@code names} (else by
	 * their SHA-1); puts the log back to Redis's defaults, emptied.
	 */
	Map<String, Calls.Time> scriptTimes(Map<String, String> names) {
		List<Object> entries = commands().slowlogGet(TRACED_SCRIPT_CALLS);
		commands().configSet("slowlog-log-slower-than", "10000");
		commands().configSet("slowlog-max-len", "128");
		commands().slowlogReset();
		if (entries.size() >= TRACED_SCRIPT_CALLS) {
			System.out.println("  SLOWLOG overflowed: the script times below miss the oldest calls");
		}
		Map<String, Calls.Time> times = new java.util.TreeMap<>();
		for (Object entry : entries) {
			List<?> fields = (List<?>) entry;
			List<?> args = (List<?>) fields.get(3);
			String command = String.valueOf(args.get(0)).toLowerCase(java.util.Locale.ROOT);
			if (command.startsWith("eval") && args.size() > 1) {
				String sha = String.valueOf(args.get(1));
				times.merge(names.getOrDefault(sha, sha), new Calls.Time(1, (Long) fields.get(2)), Calls.Time::plus);
			}
		}
		return times;
	}

	/**
	 * The microseconds and calls of each command since the last {@link #resetStats()}, by
	 * {@code INFO commandstats} (a script's own line includes the commands it ran, which also
	 * have their lines), the harness's own commands left out.
	 */
	Map<String, Calls.Time> commandTimes() {
		Map<String, Calls.Time> times = new java.util.TreeMap<>();
		for (Map.Entry<String, String> entry : info("commandstats").entrySet()) {
			if (ADMIN.contains(entry.getKey())) {
				continue;
			}
			String stats = entry.getValue();
			times.put(entry.getKey().substring("cmdstat_".length()),
					new Calls.Time(Long.parseLong(stats.replaceAll("^calls=(\\d+),.*$", "$1")),
							Long.parseLong(stats.replaceAll("^.*usec=(\\d+),.*$", "$1"))));
		}
		return times;
	}

	/**
	 * Resets Redis's statistics ({@code CONFIG RESETSTAT}) and empties the {@code SLOWLOG}.
	 */
	void resetStats() {
		commands().configResetstat();
		commands().slowlogReset();
	}

	void flush() {
		commands().flushall();
	}

	/**
	 * Empties Redis for the next run, waiting up to ten minutes for a Redis that an earlier run
	 * left busy.
	 */
	void flushWhenAnswering() throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
		while (true) {
			try {
				flush();
				return;
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() - deadline > 0) {
					throw ex;
				}
				System.out.println("  Redis does not answer yet (" + ex.getMessage() + "); waiting");
				Thread.sleep(5_000);
			}
		}
	}

	String version() {
		return info("server").get("redis_version");
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
		if (this.server != null) {
			this.server.close();
		}
	}

	/**
	 * The longest command of a window, by {@code SLOWLOG}.
	 *
	 * @param micros how long Redis ran it
	 * @param command its first arguments, shortened
	 * @param overflowed whether the window ran more commands than the log holds (the oldest were dropped)
	 */
	record SlowestCall(long micros, String command, boolean overflowed) {

	}

	/**
	 * Commands Redis ran, as {@code INFO commandstats} counts them: every command, those a
	 * script runs included, and of them the script calls ({@code EVALSHA}, {@code EVAL}).
	 *
	 * @param commands every command
	 * @param scripts the script calls among them
	 * @param byCommand the calls of each command (lower case, as {@code INFO} names them)
	 */
	record Calls(long commands, long scripts, Map<String, Long> byCommand) {

		Calls since(Calls earlier) {
			Map<String, Long> difference = new java.util.TreeMap<>();
			this.byCommand.forEach((command, calls) -> {
				long more = calls - earlier.byCommand.getOrDefault(command, 0L);
				if (more > 0) {
					difference.put(command, more);
				}
			});
			return new Calls(this.commands - earlier.commands, this.scripts - earlier.scripts, difference);
		}

		/**
		 * Calls of a script or command and the microseconds Redis ran them.
		 */
		record Time(long calls, long micros) {

			Time plus(Time other) {
				return new Time(this.calls + other.calls, this.micros + other.micros);
			}

		}

		/**
		 * Each script's or command's calls and microseconds per job, most time first, e.g.
		 * {@code "finish 0.13 calls 4.20 µs"}.
		 */
		static String perJob(Map<String, Time> times, int jobs) {
			return times.entrySet()
				.stream()
				.sorted(Map.Entry.<String, Time>comparingByValue(
						java.util.Comparator.comparingLong(Time::micros)).reversed())
				.map((entry) -> String.format("%s %.3f calls %.2f µs", entry.getKey(),
						(double) entry.getValue().calls() / jobs, (double) entry.getValue().micros() / jobs))
				.collect(java.util.stream.Collectors.joining("; "));
		}

		/**
		 * The commands per job, most frequent first, e.g. {@code "evalsha 5.7, zrange 9.1"}.
		 */
		String perJob(int jobs) {
			return this.byCommand.entrySet()
				.stream()
				.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
				.map((entry) -> String.format("%s %.2f", entry.getKey(), (double) entry.getValue() / jobs))
				.collect(java.util.stream.Collectors.joining(", "));
		}

	}

}
