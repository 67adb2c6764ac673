package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor: {@code redis-benchmark} running a trivial {@code EVALSHA} ({@code return 1})
 * on the benchmark's Redis from 50 clients, unpipelined and 16 deep, and from one client
 * unpipelined; and the same call from one Java thread through Lettuce's synchronous API (the
 * client every Spring Boot application gets). No design that runs a Lua script per state
 * transition can beat these rates on the same server; a caller that waits for each answer
 * cannot beat the one-client rates.
 *
 * @param perSecondP1 calls per second, 50 clients, {@code -P 1}
 * @param perSecondP16 calls per second, 50 clients, {@code -P 16}
 * @param serverMicrosPerCall Redis's own time per call ({@code INFO commandstats})
 * @param perSecondOneClient calls per second, one client, {@code -P 1}
 * @param perSecondLettuce calls per second from one thread through Lettuce, each waiting
 */
record Floor(double perSecondP1, double perSecondP16, double serverMicrosPerCall, double perSecondOneClient,
		double perSecondLettuce) {

	static final int CLIENTS = 50;

	/** The floor's row in the tables. */
	static final String ROW = "floor: EVALSHA `return 1`";

	private static final Pattern RATE = Pattern.compile("([0-9.]+) requests per second");

	private static final Pattern USEC_PER_CALL = Pattern.compile("usec_per_call=([0-9.]+)");

	static Floor measure(BenchRedis redis, int calls) {
		String sha = redis.commands().scriptLoad("return 1");
		redis.resetStats();
		double p1 = run(redis, sha, calls, CLIENTS, 1);
		String stats = redis.info("commandstats").get("cmdstat_evalsha");
		Matcher usec = USEC_PER_CALL.matcher((stats != null) ? stats : "");
		double perCall = usec.find() ? Double.parseDouble(usec.group(1)) : Double.NaN;
		double p16 = run(redis, sha, calls * 4, CLIENTS, 16);
		double oneClient = run(redis, sha, calls / 4, 1, 1);
		return new Floor(p1, p16, perCall, oneClient, lettuce(redis, sha, calls / 10));
	}

	private static double lettuce(BenchRedis redis, String sha, int calls) {
		RedisCommands<String, String> commands = redis.commands();
		for (int i = 0; i < calls / 10; i++) {
			commands.evalsha(sha, ScriptOutputType.INTEGER);
		}
		long start = System.nanoTime();
		for (int i = 0; i < calls; i++) {
			commands.evalsha(sha, ScriptOutputType.INTEGER);
		}
		return calls / ((System.nanoTime() - start) / 1e9);
	}

	private static double run(BenchRedis redis, String sha, int calls, int clients, int pipeline) {
		List<String> command = List.of("redis-benchmark", "-h", redis.host(), "-p", String.valueOf(redis.port()), "-c",
				String.valueOf(clients), "-n", String.valueOf(calls), "-P", String.valueOf(pipeline), "-q", "EVALSHA",
				sha, "0");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
				throw new IllegalStateException(command + " failed: " + output);
			}
			// -q prints progress lines separated by \r, then the final figure
			Matcher matcher = RATE.matcher(output);
			double rate = Double.NaN;
			while (matcher.find()) {
				rate = Double.parseDouble(matcher.group(1));
			}
			if (Double.isNaN(rate)) {
				throw new IllegalStateException("no rate in the output of " + command + ": " + output);
			}
			return rate;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run redis-benchmark (package redis-tools)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
