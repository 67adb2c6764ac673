package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ScheduleRequest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * What one schedule call costs, guarantee by guarantee: the floor design's schedule script
 * ({@code HSET} + {@code ZADD}), then the same script with each command or piece of work that
 * delayqueue's schedule adds for one of its guarantees, then delayqueue's own schedule
 * function sent through Lettuce without delayqueue's Java, then
 * {@code DelayQueueOperations.schedule} and {@code DelayedJobTemplate.schedule} of a Spring
 * Boot context (the starter's auto-configuration, no listeners). One thread, one call at a
 * time, each job due in an hour (no timer step runs), the 200-byte order payload. The rows
 * run in turn, {@code bench.cost.calls} calls each ({@code 5,000}), {@code bench.cost.rounds}
 * times ({@code 7}) after {@code bench.cost.warmup} calls of each ({@code 30,000}); the table
 * gives medians of the rounds: Redis's time per call ({@code INFO commandstats}, the call with
 * the commands it ran) and the caller's, and the rate it allows. It shows where the time of the
 * one-call-at-a-time enqueue of scenario A goes, in a JVM that has compiled the path.
 *
 * <pre class="code">
 * ./mvnw -Pbench -pl delayqueue-benchmarks -am -DskipTests verify \
 *     -Dbench.main=io.github.delayqueue.benchmarks.ScheduleCostBenchmark
 * </pre>
 */
public final class ScheduleCostBenchmark {

	private static final String TOPIC = "cost";

	/** The helpers of the header row: delayqueue's base-36 encoding of numbers. */
	private static final String TO36 = "local B36 = { [0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', "
			+ "'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', "
			+ "'x', 'y', 'z' }\n" + "local function to36(x)\n" + "  local s = ''\n" + "  repeat\n"
			+ "    local d = x % 36\n" + "    s = B36[d] .. s\n" + "    x = (x - d) / 36\n" + "  until x == 0\n"
			+ "  return s\n" + "end\n";

	/** Redis's clock: the due time from the delay in ARGV[2]. */
	private static final String NOW = "local t = redis.call('TIME')\n"
			+ "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
			+ "local due = now + tonumber(ARGV[2])\n";

	/** Reads the delay queue's head before the job is added, and announces a new head. */
	private static final String HEAD = "local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')\n";

	private static final String ANNOUNCE = "if head[2] == nil or due < tonumber(head[2]) then\n"
			+ "  redis.call('PUBLISH', KEYS[4], due)\nend\n";

	private static final String KEEP = "if redis.call('HSETNX', KEYS[2], ARGV[1], record) == 0 then\n  return 0\nend\n";

	private static final String COUNT = "redis.call('HINCRBY', KEYS[3], 'D:' .. ARGV[6], 1)\n";

	private ScheduleCostBenchmark() {
	}

	/** A row: what it is, and one call of it. */
	private record Row(String label, String command, Runnable call) {
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			DelayQueueAutoConfiguration.class })
	static class CostApplication {

	}

	/** The scripts of the ladder, each adding one thing to the one above it. */
	private static Map<String, String> ladder() {
		Map<String, String> scripts = new LinkedHashMap<>();
		scripts.put("floor design: `HSET` the record, `ZADD` the due time", "local record = ARGV[3]\n"
				+ "redis.call('HSET', KEYS[2], ARGV[1], record)\n" + "redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])\n"
				+ "return 1\n");
		scripts.put("+ `TIME`: the due time by Redis's clock", NOW + "local record = ARGV[3]\n"
				+ "redis.call('HSET', KEYS[2], ARGV[1], record)\n" + "redis.call('ZADD', KEYS[1], due, ARGV[1])\n"
				+ "return 1\n");
		scripts.put("+ `HSETNX` instead of `HSET`: a duplicate is kept, not overwritten",
				NOW + "local record = ARGV[3]\n" + KEEP + "redis.call('ZADD', KEYS[1], due, ARGV[1])\n" + "return 1\n");
		scripts.put("+ the head read: the timers sleep until the next due time, told of a new head",
				NOW + HEAD + "local record = ARGV[3]\n" + KEEP + "redis.call('ZADD', KEYS[1], due, ARGV[1])\n" + ANNOUNCE
						+ "return 1\n");
		scripts.put("+ `HINCRBY`: per-topic counts of each state",
				NOW + HEAD + "local record = ARGV[3]\n" + KEEP + COUNT + "redis.call('ZADD', KEYS[1], due, ARGV[1])\n"
						+ ANNOUNCE + "return 1\n");
		scripts.put("+ the record's header (state, attempts limit, TTR, created, delay) and the reply",
				TO36 + NOW + HEAD + "local record = 'D,' .. ARGV[5] .. ',' .. to36(tonumber(ARGV[7])) .. ',' "
						+ ".. to36(now) .. ',' .. to36(due - now) .. ',\\n' .. ARGV[3]\n" + KEEP + COUNT
						+ "redis.call('ZADD', KEYS[1], due, ARGV[1])\n" + ANNOUNCE + "return { now, 0, 1, 'D', due }\n");
		return scripts;
	}

	public static void main(String[] args) throws Exception {
		int calls = Integer.getInteger("bench.cost.calls", 5_000);
		int rounds = Integer.getInteger("bench.cost.rounds", 7);
		int warmup = Integer.getInteger("bench.cost.warmup", 30_000);
		String body = JsonMapper.builder().build().writeValueAsString(BenchPayload.of(0, 0));
		byte[] payload = body.getBytes(StandardCharsets.UTF_8);
		String delay = Long.toString(Duration.ofHours(1).toMillis());
		try (BenchRedis redis = new BenchRedis()) {
			RedisClient client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
			ConfigurableApplicationContext context = start(redis);
			try {
				RedisCommands<String, String> lettuce = client.connect().sync();
				RedisCommands<String, String> admin = redis.commands();
				DelayQueueOperations operations = context.getBean(DelayQueueOperations.class);
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				long[] sequence = { 0 };
				List<Row> rows = new ArrayList<>();
				for (Map.Entry<String, String> step : ladder().entrySet()) {
					String sha = lettuce.scriptLoad(step.getValue());
					String[] keys = { "cost:due", "cost:records", "cost:stats", "cost:events" };
					rows.add(new Row(step.getKey(), "evalsha",
							() -> lettuce.evalsha(sha, ScriptOutputType.MULTI, keys, "l" + (sequence[0]++), delay, body,
									Long.toString(System.currentTimeMillis() + 3_600_000L), "5", TOPIC, "60000")));
				}
				// one schedule, so that the library is loaded and its schedule function can be named
				operations.schedule(request("first", payload));
				String function = scheduleFunction(admin)
					.orElseThrow(() -> new IllegalStateException("no delayqueue function library in Redis "
							+ "(functions need Redis 7; run this on Redis 7 or later)"));
				String namespace = "delayqueue";
				rows.add(new Row("delayqueue's schedule function, sent through Lettuce (no delayqueue Java)", "fcall",
						() -> lettuce.dispatch(CommandType.FCALL, new NestedMultiOutput<>(StringCodec.UTF8),
								new CommandArgs<>(StringCodec.UTF8).add(function)
									.add(2)
									.addKey("{" + namespace + ":0}:jobs")
									.addKey("{" + namespace + ":0}:guard")
									.add(namespace + ":events")
									.add("0")
									.add(TOPIC + ":f" + (sequence[0]++))
									.add(TOPIC)
									.add(body)
									.add("d")
									.add(delay)
									.add("60000")
									.add("5")
									.add("0"))));
				rows.add(new Row("`DelayQueueOperations.schedule` (the request's bytes given)", "fcall",
						() -> operations.schedule(request("o" + (sequence[0]++), payload))));
				rows.add(new Row("`DelayedJobTemplate.schedule` (the payload an object, written by Jackson)", "fcall",
						() -> template.schedule(TOPIC, "t" + (sequence[0]++), BenchPayload.of((int) sequence[0], 0),
								Duration.ofHours(1))));
				for (Row row : rows) {
					for (int i = 0; i < warmup; i++) {
						row.call().run();
					}
				}
				Map<Row, List<Double>> caller = new LinkedHashMap<>();
				Map<Row, List<Double>> server = new LinkedHashMap<>();
				for (int round = 0; round < rounds; round++) {
					for (Row row : rows) {
						admin.configResetstat();
						long start = System.nanoTime();
						for (int i = 0; i < calls; i++) {
							row.call().run();
						}
						caller.computeIfAbsent(row, (key) -> new ArrayList<>())
							.add((System.nanoTime() - start) / 1_000.0 / calls);
						server.computeIfAbsent(row, (key) -> new ArrayList<>())
							.add(usecPerCall(admin.info("commandstats"), row.command()));
					}
				}
				print(rows, caller, server, calls, rounds, warmup);
			}
			finally {
				context.close();
				client.shutdown();
			}
		}
	}

	private static ScheduleRequest request(String id, byte[] payload) {
		return new ScheduleRequest(TOPIC, id, payload, Duration.ofHours(1), null, null, null, OnDuplicate.KEEP);
	}

	private static ConfigurableApplicationContext start(BenchRedis redis) {
		return new SpringApplicationBuilder(CostApplication.class).web(WebApplicationType.NONE)
			.properties(redis.contextProperties())
			.run();
	}

	/** The name of the schedule function of delayqueue's library in Redis. */
	private static Optional<String> scheduleFunction(RedisCommands<String, String> admin) {
		for (Object library : admin.functionList()) {
			String text = library.toString();
			int end = text.indexOf("_schedule");
			int start = text.lastIndexOf("delayqueue_", end);
			if (end > 0 && start >= 0) {
				return Optional.of(text.substring(start, end + "_schedule".length()));
			}
		}
		return Optional.empty();
	}

	private static double usecPerCall(String commandstats, String command) {
		return commandstats.lines()
			.filter((line) -> line.startsWith("cmdstat_" + command + ":"))
			.findFirst()
			.map((line) -> Double.parseDouble(line.replaceAll(".*usec_per_call=([0-9.]+).*", "$1")))
			.orElseThrow(() -> new IllegalStateException("Redis ran no " + command));
	}

	private static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		return sorted.get(sorted.size() / 2);
	}

	private static void print(List<Row> rows, Map<Row, List<Double>> caller, Map<Row, List<Double>> server, int calls,
			int rounds, int warmup) throws IOException {
		StringBuilder table = new StringBuilder(String.format(
				"### The cost of one schedule call, guarantee by guarantee (one thread, one call at a time; "
						+ "medians of %d rounds of %,d calls per row, after %,d calls of each)%n%n",
				rounds, calls, warmup));
		table.append("| schedule | Redis µs per call | caller µs per call | calls/s | ÷ floor design |\n");
		table.append("|---|---:|---:|---:|---:|\n");
		double floor = median(caller.get(rows.get(0)));
		for (Row row : rows) {
			double perCall = median(caller.get(row));
			table.append(String.format("| %s | %.1f | %.1f | %,.0f | %.2f× |%n", row.label(), median(server.get(row)),
					perCall, 1_000_000 / perCall, floor / perCall));
		}
		System.out.println();
		System.out.println(table);
		Path out = Path.of(System.getProperty("bench.out", "benchmark-results.md"));
		if (out.getParent() != null) {
			Files.createDirectories(out.getParent());
		}
		Files.writeString(out, table, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
	}

}
