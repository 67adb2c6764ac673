package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ScheduleRequest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * What one schedule call costs with nothing else running, part by part. It starts at the
 * floor design's schedule script ({@code floor-schedule.lua}: {@code HSET} + {@code ZADD}),
 * then the same two commands with the arguments of the rows below, then that script with
 * each command or piece of work that delayqueue's schedule adds for one of its guarantees in
 * turn (a ladder), then two variants of the ladder's last script (the TTR and the delay
 * given in base 36 by the caller; also a reply of one value). The last two rows are
 * {@code DelayQueueOperations.schedule} and {@code DelayedJobTemplate.schedule}, in a Spring
 * Boot context of the starter's auto-configuration, with no timer and no listener.
 * <p>
 * One thread, one call at a time, each job due in an hour, the harness's order payload.
 * The rows run {@code bench.cost.calls} calls each ({@code 5,000}), {@code bench.cost.rounds}
 * times ({@code 7}), in an order that turns by one row each round, after
 * {@code bench.cost.warmup} calls of each ({@code 30,000}). The table gives medians of the
 * rounds: Redis's time per call ({@code INFO commandstats}: the call with the commands it ran;
 * each round checks that Redis counted exactly the row's calls) and the caller's, the rate
 * that allows, and its ratio to the floor design's. Written to
 * {@code schedule-cost-results.md} beside {@code bench.out}.
 *
 * <pre class="code">
 * ./mvnw -Pbench -pl delayqueue-benchmarks -am -DskipTests verify \
 *     -Dbench.main=io.github.delayqueue.benchmarks.ScheduleCostBenchmark
 * </pre>
 */
public final class ScheduleCostBenchmark {

	private static final String TOPIC = "cost";

	/**
	 * The header row's base-36 encoding of numbers: lib/to36.lua's {@code to36} without its branch
	 * for negative numbers, which a job due in an hour does not take.
	 */
	private static final String TO36 = "local B36 = { [0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', "
			+ "'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', "
			+ "'x', 'y', 'z' }\n" + "local function to36(x)\n" + "  local s = ''\n" + "  repeat\n"
			+ "    local d = x % 36\n" + "    s = B36[d] .. s\n" + "    x = (x - d) / 36\n" + "  until x == 0\n"
			+ "  return s\n" + "end\n";

	/** Redis's clock: the due time from the delay in ARGV[2]. */
	private static final String NOW = "local t = redis.call('TIME')\n"
			+ "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
			+ "local due = now + tonumber(ARGV[2])\n";

	/** Reads the delay queue's head before the job is added. */
	private static final String HEAD = "local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')\n";

	/** Tells the timers of a new head. */
	private static final String ANNOUNCE = "if head[2] == nil or due < tonumber(head[2]) then\n"
			+ "  redis.call('PUBLISH', KEYS[4], due)\nend\n";

	private static final String KEEP = "if redis.call('HSETNX', KEYS[2], ARGV[1], record) == 0 then\n  return 0\nend\n";

	private static final String COUNT = "redis.call('HINCRBY', KEYS[3], 'D:' .. ARGV[6], 1)\n";

	/** The ladder's keys: the delay queue, the records, the counts, the channel. */
	private static final String[] LADDER_KEYS = { "cost:due", "cost:records", "cost:stats", "cost:events" };

	private ScheduleCostBenchmark() {
	}

	/**
	 * A row of the table.
	 * @param label what the row runs
	 * @param command the command whose {@code INFO commandstats} line is the row's Redis time
	 * ({@code evalsha})
	 * @param call one call of the row
	 */
	private record Row(String label, String command, Runnable call) {
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			DelayQueueAutoConfiguration.class })
	static class CostApplication {

	}

	/** The ladder's scripts, each adding one thing to the one above it. */
	private static Map<String, String> ladder() {
		Map<String, String> scripts = new LinkedHashMap<>();
		scripts.put("the same two commands with the ladder's arguments (4 keys, 7 arguments)",
				"local record = ARGV[3]\n" + "redis.call('HSET', KEYS[2], ARGV[1], record)\n"
						+ "redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])\n" + "return 1\n");
		scripts.put("+ `TIME`: the due time by Redis's clock", NOW + "local record = ARGV[3]\n"
				+ "redis.call('HSET', KEYS[2], ARGV[1], record)\n" + "redis.call('ZADD', KEYS[1], due, ARGV[1])\n"
				+ "return 1\n");
		scripts.put("+ `HSETNX` instead of `HSET`: a duplicate is kept, not overwritten",
				NOW + "local record = ARGV[3]\n" + KEEP + "redis.call('ZADD', KEYS[1], due, ARGV[1])\n" + "return 1\n");
		scripts.put("+ the head read: the timers sleep until the next due time and are told of a new head",
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
		JsonMapper mapper = JsonMapper.builder().build();
		long due = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
		String body = mapper.writeValueAsString(BenchPayload.of(1, due));
		byte[] payload = body.getBytes(StandardCharsets.UTF_8);
		String delay = Long.toString(Duration.ofHours(1).toMillis());
		try (BenchRedis redis = new BenchRedis()) {
			RedisClient client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
			ConfigurableApplicationContext context = start(redis);
			try {
				RedisCommands<String, String> lettuce = client.connect().sync();
				RedisCommands<String, String> admin = redis.commands();
				String version = redis.version();
				long[] sequence = { 0 };
				List<Row> rows = new ArrayList<>();
				String floorSha = lettuce.scriptLoad(FloorSubject.script("floor-schedule.lua"));
				rows.add(new Row("floor design: `floor-schedule.lua` (`HSET` the record, `ZADD` the due time)", "evalsha",
						() -> lettuce.evalsha(floorSha, ScriptOutputType.INTEGER, new String[] { "floor:due", "floor:records" },
								TOPIC + ":l" + (sequence[0]++), Long.toString(due), body)));
				for (Map.Entry<String, String> step : ladder().entrySet()) {
					String sha = lettuce.scriptLoad(step.getValue());
					rows.add(new Row(step.getKey(), "evalsha", () -> lettuce.evalsha(sha, ScriptOutputType.MULTI,
							LADDER_KEYS, ladderArguments(TOPIC + ":l" + (sequence[0]++), delay, body, due))));
				}
				// two variants of the header row, not steps of the ladder: what the header would cost
				// with less of it worked out in Lua
				for (Map.Entry<String, String> variant : headerVariants().entrySet()) {
					String sha = lettuce.scriptLoad(variant.getValue());
					rows.add(new Row(variant.getKey(), "evalsha", () -> lettuce.evalsha(sha, ScriptOutputType.MULTI,
							LADDER_KEYS, variantArguments(TOPIC + ":l" + (sequence[0]++), delay, body, due))));
				}
				DelayQueueOperations operations = context.getBean(DelayQueueOperations.class);
				rows.add(new Row("`DelayQueueOperations.schedule`", "evalsha",
						() -> operations.schedule(request("o" + (sequence[0]++), payload))));
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				rows.add(new Row("`DelayedJobTemplate.schedule` (the payload an object, written by Jackson)", "evalsha",
						() -> template.schedule(TOPIC, "t" + (sequence[0]++), BenchPayload.of(1, due),
								Duration.ofHours(1))));
				for (Row row : rows) {
					for (int i = 0; i < warmup; i++) {
						row.call().run();
					}
				}
				Map<Row, List<Double>> caller = new LinkedHashMap<>();
				Map<Row, List<Double>> server = new LinkedHashMap<>();
				for (int round = 0; round < rounds; round++) {
					for (int r = 0; r < rows.size(); r++) {
						Row row = rows.get((r + round) % rows.size());
						admin.configResetstat();
						long start = System.nanoTime();
						for (int i = 0; i < calls; i++) {
							row.call().run();
						}
						caller.computeIfAbsent(row, (key) -> new ArrayList<>())
							.add((System.nanoTime() - start) / 1_000.0 / calls);
						server.computeIfAbsent(row, (key) -> new ArrayList<>())
							.add(usecPerCall(redis.info("commandstats"), row, calls));
					}
				}
				print(rows, caller, server, calls, rounds, warmup, payload.length, version);
			}
			finally {
				context.close();
				client.shutdown();
			}
		}
	}

	/**
	 * The header row with the TTR and the delay in base 36 from the caller (ARGV[8], ARGV[9]),
	 * so that Lua encodes only the creation time; then also with a reply of one value.
	 */
	private static Map<String, String> headerVariants() {
		String record = "local record = 'D,' .. ARGV[5] .. ',' .. ARGV[8] .. ',' .. to36(now) .. ',' .. ARGV[9] .. "
				+ "',\\n' .. ARGV[3]\n";
		String writes = KEEP + COUNT + "redis.call('ZADD', KEYS[1], due, ARGV[1])\n" + ANNOUNCE;
		Map<String, String> scripts = new LinkedHashMap<>();
		scripts.put("the header row, with the TTR and the delay given in base 36 by the caller (a variant)",
				TO36 + NOW + HEAD + record + writes + "return { now, 0, 1, 'D', due }\n");
		scripts.put("the same, with a reply of one value (a variant)", TO36 + NOW + HEAD + record + writes + "return due\n");
		return scripts;
	}

	/** The ladder's arguments, then the TTR and the delay in base 36 (the header variants'). */
	private static String[] variantArguments(String id, String delay, String body, long due) {
		String[] ladder = ladderArguments(id, delay, body, due);
		String[] all = Arrays.copyOf(ladder, ladder.length + 2);
		all[ladder.length] = Long.toString(60_000, 36);
		all[ladder.length + 1] = Long.toString(Long.parseLong(delay), 36);
		return all;
	}

	/** The ladder's arguments: id, delay, payload, due time, attempts, topic, TTR. */
	private static String[] ladderArguments(String id, String delay, String body, long due) {
		return new String[] { id, delay, body, Long.toString(due), "5", TOPIC, "60000" };
	}

	private static ScheduleRequest request(String id, byte[] payload) {
		return new ScheduleRequest(TOPIC, id, payload, Duration.ofHours(1), null, null, null, OnDuplicate.KEEP,
				Map.of(), null);
	}

	private static ConfigurableApplicationContext start(BenchRedis redis) {
		Map<String, Object> properties = redis.contextProperties();
		// no timer step, guard re-check or coordination runs beside the calls measured
		properties.put("delayqueue.timer.enabled", false);
		return new SpringApplicationBuilder(CostApplication.class).web(WebApplicationType.NONE)
			.properties(properties)
			.run();
	}

	/**
	 * A row's Redis time per call in {@code INFO commandstats}, after checking that Redis ran
	 * the row's command exactly {@code calls} times since the reset (not another command
	 * beside it).
	 */
	private static double usecPerCall(Map<String, String> commandstats, Row row, int calls) {
		String line = commandstats.get("cmdstat_" + row.command());
		if (line == null) {
			throw new IllegalStateException("Redis ran no " + row.command() + " for " + row.label());
		}
		long counted = Long.parseLong(line.replaceAll("^calls=([0-9]+),.*$", "$1"));
		if (counted != calls) {
			throw new IllegalStateException("Redis counted " + counted + " " + row.command() + " calls for " + calls
					+ " calls of " + row.label() + ": " + line);
		}
		return Double.parseDouble(line.replaceAll(".*usec_per_call=([0-9.]+).*", "$1"));
	}

	private static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	private static void print(List<Row> rows, Map<Row, List<Double>> caller, Map<Row, List<Double>> server, int calls,
			int rounds, int warmup, int payloadBytes, String redisVersion) throws IOException {
		StringBuilder table = new StringBuilder(String.format(
				"### One schedule call, part by part (one thread, one call at a time, a %d-byte payload, Redis %s; "
						+ "medians of %d rounds of %,d calls per row, after %,d calls of each)%n%n",
				payloadBytes, redisVersion, rounds, calls, warmup));
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
		Path results = Path.of(System.getProperty("bench.out", "benchmark-results.md"))
			.resolveSibling("schedule-cost-results.md");
		if (results.getParent() != null) {
			Files.createDirectories(results.getParent());
		}
		Files.writeString(results, table);
	}

}
