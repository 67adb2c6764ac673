package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueSampler;
import io.github.delayqueue.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.benchmarks.Table.Column;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.redis.RedisDelayQueue;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * G. Scale, delayqueue only: the same probes with 0, 1,000,000 and 10,000,000 far-future jobs
 * pending, for each bucket count of {@code bench.g.buckets} (1 and 16) and each topic count of
 * {@code bench.g.topics} (1 and 1,000, a listener on each topic, spread over the instances).
 * Runs only when named.
 */
final class ScaleScenario extends Scenario {

	private static final String PREFIX = "scale-";

	static final String DEAD_TOPIC = "scale-dead";

	/** Jobs per {@code scheduleBulk} call when filling a level, so that no level is held in memory whole. */
	static final int FILL_CHUNK = 100_000;

	private static final int ONE_BY_ONE = 2_000;

	private static final int BULK = 20_000;

	/** Times each read is measured (the median is shown). */
	private static final int READS = 5;

	private static final String SCHEDULE = "1-by-1";

	private static final String BULK_RATE = "bulk";

	private static final String RATE = " (jobs/s)";

	private static final String BYTES = "bytes / job";

	private static final String DRAIN = "drain";

	private static final String DRAIN_CPU = "drain Redis CPU µs/job";

	private static final String WAITING_CPU = "Redis CPU at rest (ms/s)";

	private static final String TRICKLE = "trickle";

	private static final String LAG = "trickle lag p99 (ms)";

	private static final String COMMANDS = "trickle commands / job";

	private static final String LOST = "probe jobs undelivered";

	private static final String STATS = "stats()";

	private static final String ROOT = "endpoint root";

	private static final String TOPIC = "endpoint topic";

	private static final String DEAD_PAGE = "dead page";

	private static final String MILLIS = " (ms)";

	private static final String SAMPLER = "sampler";

	private static final String SAMPLER_COMMANDS = "sampler commands/min";

	private static final String SAMPLER_TIME = "sampler Redis ms/min";

	private static final String JOIN = "join";

	private static final String STARTED = "join: started (ms)";

	private static final String COORDINATED = "join: first coordination (ms)";

	private static final String SLOWEST = " slowest (µs)";

	/** The trickle of scenario F, 500 jobs at 100/s. */
	private final Scenario trickle = PrecisionScenario.trickle(new Settings(500 / 3_000.0, 1));

	/** The drain of scenario B, 5,000 jobs due at one instant. */
	private final DrainScenario drain = new DrainScenario(new Settings(5_000 / 200_000.0, 1), 0);

	private final List<Part> parts = new ArrayList<>();

	ScaleScenario(Settings settings) {
		super(settings);
		for (int buckets : counts("bench.g.buckets", "1,16")) {
			for (int topics : counts("bench.g.topics", "1,1000")) {
				this.parts.add(new Part(buckets, topics));
			}
		}
	}

	private static int[] counts(String property, String defaults) {
		String value = System.getProperty(property, defaults);
		try {
			int[] counts = Arrays.stream(value.split(",")).mapToInt((count) -> Integer.parseInt(count.strip())).toArray();
			if (Arrays.stream(counts).allMatch((count) -> count > 0)) {
				return counts;
			}
		}
		catch (NumberFormatException ex) {
			// refused below
		}
		throw new IllegalArgumentException(
				property + " must be counts above 0, comma-separated (" + defaults + "); got '" + value + "'");
	}

	@Override
	String key() {
		return "G";
	}

	@Override
	String title() {
		return "G. Scale";
	}

	@Override
	boolean supports(Subject.Kind kind) {
		return kind == Subject.Kind.DELAYQUEUE;
	}

	private int[] levels() {
		return new int[] { 0, scaled(1_000_000), scaled(10_000_000) };
	}

	private static String row(int level) {
		return MemoryScenario.label(level) + " jobs";
	}

	@Override
	List<Column> columns() {
		return Column.of(Column.rate(SCHEDULE + RATE), Column.count(SCHEDULE + SLOWEST), Column.rate(BULK_RATE + RATE),
				Column.count(BULK_RATE + SLOWEST), Column.count(BYTES), Column.rate(DRAIN + RATE),
				Column.decimal(DRAIN_CPU), Column.decimal(WAITING_CPU), Column.count(DRAIN + SLOWEST), Column.millis(LAG), Column.decimal(COMMANDS),
				Column.count(TRICKLE + SLOWEST), Column.count(LOST));
	}

	private static List<Column> readColumns() {
		List<Column> columns = new ArrayList<>();
		for (String read : List.of(STATS, ROOT, TOPIC, DEAD_PAGE)) {
			columns.add(Column.decimal(read + MILLIS));
			columns.add(Column.count(read + SLOWEST));
		}
		columns.addAll(Column.of(Column.decimal(SAMPLER_COMMANDS), Column.decimal(SAMPLER_TIME),
				Column.count(SAMPLER + SLOWEST), Column.count(STARTED), Column.count(COORDINATED),
				Column.count(JOIN + SLOWEST)));
		return columns;
	}

	/**
	 * Two tables per part, writes and reads, each with a row per level and the growth
	 * between the levels.
	 */
	@Override
	Map<String, List<Column>> tables() {
		Map<String, List<Column>> tables = new LinkedHashMap<>();
		for (Part part : this.parts) {
			tables.put("G. Scale, " + part.name() + ": writes and deliveries", columns());
			tables.put("G. Scale, " + part.name() + ": reads and start-up", readColumns());
		}
		return tables;
	}

	@Override
	void record(List<Table> tables, String row, Map<String, Double> figures) {
		int[] levels = levels();
		for (int p = 0; p < this.parts.size(); p++) {
			for (Table table : tables.subList(2 * p, 2 * p + 2)) {
				for (int level : levels) {
					String prefix = this.parts.get(p).name() + "|" + row(level) + "|";
					Map<String, Double> cells = new LinkedHashMap<>();
					figures.forEach((label, value) -> {
						if (label.startsWith(prefix)) {
							cells.put(label.substring(prefix.length()), value);
						}
					});
					table.add(row(level), cells);
				}
				table.addRatio(row(levels[1]), row(levels[0]));
				table.addRatio(row(levels[2]), row(levels[0]));
				table.addRatio(row(levels[2]), row(levels[1]));
			}
		}
	}

	@Override
	List<ScenarioPart> parts() {
		return List.copyOf(this.parts);
	}

	/** The first part's layout (the harness starts each part with its own). */
	@Override
	Subject.Layout layout() {
		return this.parts.get(0).layout();
	}

	/** Runs the first part (the harness runs each part by itself). */
	@Override
	Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder recorder) throws Exception {
		return this.parts.get(0).run(subject, redis, recorder);
	}

	/**
	 * One bucket count and topic count: the levels filled one after the other, each measured.
	 */
	private final class Part extends ScenarioPart {

		private final int buckets;

		private final int topics;

		Part(int buckets, int topics) {
			this.buckets = buckets;
			this.topics = topics;
		}

		String name() {
			return this.buckets + ((this.buckets == 1) ? " bucket, " : " buckets, ") + String.format("%,d", this.topics)
					+ ((this.topics == 1) ? " topic" : " topics");
		}

		@Override
		Subject.Layout layout() {
			return new Subject.Layout(2, 4, List.of(ScaleScenario.this.trickle.layout().topics().get(0),
					ScaleScenario.this.drain.layout().topics().get(0)),
					Map.of("delayqueue.buckets", this.buckets, "bench.spread.count", this.topics, "bench.spread.prefix",
							PREFIX));
		}

		@Override
		Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder holder) throws Exception {
			if (!(subject instanceof DelayQueueSubject queue)) {
				throw new IllegalArgumentException("scenario G measures delayqueue only");
			}
			DelayQueueOperations operations = queue.bean(DelayQueueOperations.class);
			RedisDelayQueue instance = queue.bean(RedisDelayQueue.class);
			DelayQueueEndpoint endpoint = new DelayQueueEndpoint(operations,
					queue.bean(DelayedListenerEndpointRegistry.class)::getListenerContainers, instance.getInstanceId(),
					true, instance.getRecurringJobs(), "benchmark");
			Duration sampleInterval = queue.bean(DelayQueueProperties.class).metrics().sampleInterval();
			DelayQueueSampler sampler = new DelayQueueSampler(operations, sampleInterval);
			Map<String, Double> figures = new LinkedHashMap<>();
			long farAway = System.currentTimeMillis() + Duration.ofDays(1).toMillis();
			int pending = 0;
			for (int level : levels()) {
				String at = name() + "|" + row(level) + "|";
				long memory = redis.usedMemory();
				long start = System.nanoTime();
				for (int from = pending; from < level; from += FILL_CHUNK) {
					List<Job> jobs = new ArrayList<>(FILL_CHUNK);
					for (int i = from; i < Math.min(level, from + FILL_CHUNK); i++) {
						jobs.add(Job.at(PREFIX + (i % this.topics), "j" + i, i, farAway + i % 3_600_000));
					}
					subject.scheduleBulk(jobs);
				}
				if (level > pending) {
					figures.put(at + BYTES, (double) (redis.usedMemory() - memory) / (level - pending));
					System.out.printf("  %s: filled to %s pending at %,.0f jobs/s%n", name(), MemoryScenario.label(level),
							perSecond(level - pending, System.nanoTime() - start));
				}
				pending = level;
				DeadTopicFill.fill(subject, operations, Math.min(level, scaled(1_000_000)));
				MemoryScenario.quiesce();

				figures.put(at + SCHEDULE + RATE, traced(redis, figures, at + SCHEDULE, () -> {
					long begin = System.nanoTime();
					for (int i = 0; i < ONE_BY_ONE; i++) {
						subject.schedule(Job.at(PREFIX + (i % this.topics), "o" + level + "-" + i, i, farAway));
					}
					return perSecond(ONE_BY_ONE, System.nanoTime() - begin);
				}));
				List<Job> bulk = new ArrayList<>(BULK);
				for (int i = 0; i < BULK; i++) {
					bulk.add(Job.at(PREFIX + (i % this.topics), "b" + level + "-" + i, i, farAway));
				}
				figures.put(at + BULK_RATE + RATE, traced(redis, figures, at + BULK_RATE, () -> {
					long begin = System.nanoTime();
					subject.scheduleBulk(bulk);
					return perSecond(BULK, System.nanoTime() - begin);
				}));
				Map<String, Double> drained = traced(redis, figures, at + DRAIN,
						() -> ScaleScenario.this.drain.run(subject, redis, holder));
				Map<String, Double> trickled = traced(redis, figures, at + TRICKLE,
						() -> ScaleScenario.this.trickle.run(subject, redis, holder));
				figures.put(at + DRAIN + RATE, drained.get(DrainScenario.DRAIN));
				figures.put(at + DRAIN_CPU, drained.get(DrainScenario.REDIS_CPU));
				figures.put(at + WAITING_CPU, drained.get(DrainScenario.REDIS_CPU_WAITING));
				figures.put(at + LAG, trickled.get(Recorder.LAG_P99));
				figures.put(at + COMMANDS, trickled.get(COMMANDS_PER_JOB));
				figures.put(at + LOST, drained.get(DrainScenario.UNDELIVERED) + trickled.get("lost"));

				timed(redis, figures, at + STATS, operations::stats);
				timed(redis, figures, at + ROOT, endpoint::queue);
				timed(redis, figures, at + TOPIC, () -> endpoint.topic(PREFIX + 0, null, null, null));
				timed(redis, figures, at + DEAD_PAGE, () -> operations.deadJobs(DEAD_TOPIC, null, 20, true));
				double perMinute = Duration.ofMinutes(1).toMillis() / (double) sampleInterval.toMillis() / READS;
				traced(redis, figures, at + SAMPLER, () -> {
					BenchRedis.Calls calls = redis.calls();
					long micros = redis.commandMicros();
					for (int i = 0; i < READS; i++) {
						sampler.sample();
					}
					figures.put(at + SAMPLER_TIME, (redis.commandMicros() - micros) / 1e3 * perMinute);
					figures.put(at + SAMPLER_COMMANDS, redis.calls().since(calls).commands() * perMinute);
					return null;
				});
				join(queue, operations, redis, figures, at);
				System.out.printf("  %s at %s: %s%n", name(), row(level), figures.entrySet()
					.stream()
					.filter((figure) -> figure.getKey().startsWith(at))
					.map((figure) -> figure.getKey().substring(at.length()) + " "
							+ String.format(Locale.ROOT, "%,.2f", figure.getValue()))
					.toList());
			}
			return figures;
		}

		/**
		 * Starts one more instance and waits until its first coordination wrote its heartbeat,
		 * then stops it.
		 */
		private void join(DelayQueueSubject queue, DelayQueueOperations operations, BenchRedis redis,
				Map<String, Double> figures, String at) throws Exception {
			traced(redis, figures, at + JOIN, () -> {
				long start = System.nanoTime();
				ConfigurableApplicationContext joined = queue.join();
				try {
					figures.put(at + STARTED, (System.nanoTime() - start) / 1e6);
					String id = joined.getBean(RedisDelayQueue.class).getInstanceId();
					long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
					while (!operations.instances().containsKey(id)) {
						if (System.nanoTime() - deadline > 0) {
							throw new IllegalStateException("the joining instance did not coordinate within a minute");
						}
						Thread.sleep(1);
					}
					figures.put(at + COORDINATED, (System.nanoTime() - start) / 1e6);
				}
				finally {
					joined.close();
				}
				return null;
			});
		}

	}

	/**
	 * Runs a read {@value #READS} times: the median time (ms) and Redis's slowest call meanwhile.
	 */
	private static void timed(BenchRedis redis, Map<String, Double> figures, String column, Callable<?> read)
			throws Exception {
		traced(redis, figures, column, () -> {
			long[] nanos = new long[READS];
			for (int i = 0; i < READS; i++) {
				long start = System.nanoTime();
				read.call();
				nanos[i] = System.nanoTime() - start;
			}
			Arrays.sort(nanos);
			figures.put(column + MILLIS, nanos[READS / 2] / 1e6);
			return null;
		});
	}

	/**
	 * Runs a probe with Redis logging every call, and writes the longest under
	 * {@code probe + SLOWEST}.
	 * @return what the probe returned
	 */
	private static <T> T traced(BenchRedis redis, Map<String, Double> figures, String column, Callable<T> probe)
			throws Exception {
		redis.traceCalls();
		T result = probe.call();
		BenchRedis.SlowestCall slowest = redis.slowestCall();
		figures.put(column + SLOWEST, (double) slowest.micros());
		if (slowest.micros() > 50_000 || slowest.overflowed()) {
			System.out.printf("    %s: slowest call %,d µs: %s%s%n", column.substring(column.lastIndexOf('|') + 1),
					slowest.micros(), slowest.command(), slowest.overflowed() ? " (log overflowed: the oldest calls "
							+ "are not counted)" : "");
		}
		return result;
	}

	@Override
	String notes() {
		return "delayqueue only, 2 instances; each part (bucket count × topic count) starts on an empty Redis and fills "
				+ "the levels one after the other with far-future jobs (`scheduleAll`, 100,000 per call of the "
				+ "harness, 1,000 per script), spread round-robin over the part's topics, each topic with a listener, "
				+ "the listeners spread over the instances. A dead topic holds as many DEAD jobs as the level, at "
				+ "most " + String.format("%,d", scaled(1_000_000)) + ": scheduled due at once, reserved "
				+ String.format("%,d", DelayQueueConsumer.MAX_RESERVE) + " at a time and killed job by job, " + DeadTopicFill.KILLERS
				+ " calls in flight, through `DelayQueueOperations` (the script a non-retryable failure runs). At each level: "
				+ String.format("%,d", ONE_BY_ONE) + " schedules one call at a time and " + String.format("%,d", BULK)
				+ " in bulk (far future, left pending); bytes / job = `used_memory` growth over the level's fill ÷ its "
				+ "jobs; the drain of scenario B with 5,000 jobs and its Redis CPU per job (from just before the instant the "
				+ "jobs are due to the last completion) and Redis's CPU per second while the drain waited for that "
				+ "instant with nothing due (`at rest`); the trickle of scenario F "
				+ "with 500 jobs (lag p99, Redis commands per job); `stats()`, the Actuator endpoint's root and topic "
				+ "reads (the endpoint object called in the JVM, the topic one with a page of dead jobs) and a page "
				+ "of 20 DEAD jobs with payloads, each the median of " + READS + " calls; the metrics sampler's reading "
				+ "(" + READS + " readings, scaled to `delayqueue.metrics.sample-interval`) in Redis commands and Redis "
				+ "command time per minute; a third instance started (`join: started`: the Spring Boot context "
				+ "built and started) until its heartbeat is in Redis (`first coordination`), then stopped. "
				+ "`slowest call` = the longest command in Redis's `SLOWLOG` (threshold 0, reset before) while that "
				+ "probe ran, every client's commands included. Rows `… ÷ …` are the growth between two levels (at 0 "
				+ "jobs nothing was filled and the dead topic is empty).";
	}

}
