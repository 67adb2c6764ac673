package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The floor: {@code redis-benchmark} running a trivial {@code EVALSHA} ({@code return 1})
 * from 50 clients on the benchmark's Redis, unpipelined and 16 deep. No design that runs a
 * Lua script per state transition can beat these rates on the same server.
 *
 * @param perSecondP1 calls per second, {@code -P 1}
 * @param perSecondP16 calls per second, {@code -P 16}
 * @param serverMicrosPerCall Redis's own time per call ({@code INFO commandstats})
 */
record Floor(double perSecondP1, double perSecondP16, double serverMicrosPerCall) {

	static final int CLIENTS = 50;

	/** The floor's row in the tables. */
	static final String ROW = "floor: EVALSHA `return 1`, " + CLIENTS + " clients";

	private static final Pattern RATE = Pattern.compile("([0-9.]+) requests per second");

	private static final Pattern USEC_PER_CALL = Pattern.compile("usec_per_call=([0-9.]+)");

	static Floor measure(BenchRedis redis, int calls) {
		String sha = redis.commands().scriptLoad("return 1");
		redis.resetStats();
		double p1 = run(redis, sha, calls, 1);
		String stats = redis.info("commandstats").get("cmdstat_evalsha");
		Matcher usec = USEC_PER_CALL.matcher((stats != null) ? stats : "");
		double perCall = usec.find() ? Double.parseDouble(usec.group(1)) : Double.NaN;
		double p16 = run(redis, sha, calls * 4, 16);
		return new Floor(p1, p16, perCall);
	}

	private static double run(BenchRedis redis, String sha, int calls, int pipeline) {
		List<String> command = List.of("redis-benchmark", "-h", redis.host(), "-p", String.valueOf(redis.port()), "-c",
				String.valueOf(CLIENTS), "-n", String.valueOf(calls), "-P", String.valueOf(pipeline), "-q", "EVALSHA",
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
