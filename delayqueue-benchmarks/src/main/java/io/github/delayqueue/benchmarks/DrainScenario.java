package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.benchmarks.Table.Column;

/**
 * B. Backlog drain: 200,000 jobs all due at the same instant, scheduled in bulk ahead of it,
 * then drained by consumers of total concurrency 8, each job handled and finished.
 */
final class DrainScenario extends Scenario {

	static final String DRAIN = "drain (jobs/s)";

	static final String REDIS_CPU = "Redis CPU µs/job";

	/** Redis's CPU while it waited for the instant, per second: what it costs at rest, whatever the drain. */
	static final String REDIS_CPU_WAITING = "Redis CPU waiting (ms/s)";

	/**
	 * How long before the instant the drain's window opens: no job can be delivered before it,
	 * and a Redis at rest costs CPU per second in proportion to its memory, so the window
	 * holds as little of the wait as it can.
	 */
	private static final Duration WINDOW_AHEAD = Duration.ofMillis(50);

	private static final String REDIS_COMMANDS = "Redis command µs/job";

	static final String UNDELIVERED = "undelivered at timeout";

	private static final String TOPIC = "drain";

	private static final Duration LEAD = Duration.ofSeconds(Long.getLong("bench.b.lead", 12));

	/** Whether each script's time is logged ({@code SLOWLOG}, which costs Redis some CPU itself). */
	private static final boolean TRACE_SCRIPTS = "on".equals(System.getProperty("bench.b.scripts", "off"));

	private static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("bench.b.timeout", 60));

	/**
	 * Far-future jobs put in Redis before the drain (on the drain's topic, in bulk), so that the
	 * drain runs beside a large pending set whatever the subject: 0 by default.
	 */
	private static final int PENDING = Integer.getInteger("bench.b.pending", 0);

	/** Far-future jobs put in Redis before this drain. */
	private final int pending;

	DrainScenario(Settings settings) {
		this(settings, PENDING);
	}

	DrainScenario(Settings settings, int pending) {
		super(settings);
		this.pending = pending;
	}

	@Override
	String key() {
		return "B";
	}

	@Override
	String title() {
		return "B. Backlog drain: " + String.format("%,d", scaled(200_000)) + " jobs due at one instant, concurrency 8";
	}

	@Override
	List<Column> columns() {
		List<Column> columns = new ArrayList<>(List.of(Column.rate("enqueue bulk (jobs/s)"), Column.rate(DRAIN)));
		columns.addAll(Recorder.lagColumns(""));
		columns.addAll(List.of(Column.count(UNDELIVERED),
				Column.count("duplicates"), Column.count("late enqueues"), Column.decimal(REDIS_CPU),
				Column.decimal(REDIS_CPU_WAITING), Column.decimal(REDIS_COMMANDS)));
		columns.addAll(commandColumns());
		return columns;
	}

	@Override
	Subject.Layout layout() {
		return new Subject.Layout(2, 4, List.of(TOPIC));
	}

	@Override
	Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder holder) throws Exception {
		int n = scaled(200_000);
		if (this.pending > 0) {
			fillPending(subject, this.pending);
		}
		Recorder recorder = new Recorder(n);
		holder.set(recorder);
		long dueAt = System.currentTimeMillis() + LEAD.toMillis();
		List<Job> jobs = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			jobs.add(Job.at(TOPIC, "d" + i, i, dueAt));
		}
		long start = System.nanoTime();
		subject.scheduleBulk(jobs);
		long enqueueNanos = System.nanoTime() - start;
		// jobs enqueued after the instant are due on arrival: the run then does not measure a backlog
		double late = (System.currentTimeMillis() > dueAt) ? 1 : 0;
		// the window opens just before the instant, not at the end of the enqueue: Redis's CPU
		// while it waits is not the drain's (it grows with Redis's memory, not with the drain's work)
		double cpuEnqueued = redis.cpuSeconds();
		long waitStart = System.nanoTime();
		long opens = dueAt - WINDOW_AHEAD.toMillis() - System.currentTimeMillis();
		if (opens > 0) {
			Thread.sleep(opens);
		}
		double waitSeconds = (System.nanoTime() - waitStart) / 1e9;
		redis.resetStats();
		BenchRedis.Calls calls = redis.calls();
		if (TRACE_SCRIPTS) {
			redis.traceScripts();
		}
		double cpuBefore = redis.cpuSeconds();
		double waitingCpu = cpuBefore - cpuEnqueued;
		// the window closes at the last completion, before the grace for stray redeliveries
		recorder.await(WINDOW_AHEAD.plus(TIMEOUT));
		double redisCpu = redis.cpuSeconds() - cpuBefore;
		Thread.sleep(GRACE.toMillis());
		System.out.println("  command time per job: " + BenchRedis.Calls.perJob(redis.commandTimes(), n));
		if (TRACE_SCRIPTS) {
			System.out.println("  script time per job: "
					+ BenchRedis.Calls.perJob(redis.scriptTimes(subject.scriptNames()), n));
		}
		long redisCommands = redis.commandMicros();
		BenchRedis.Calls drained = redis.calls().since(calls);
		Map<String, Double> figures = new LinkedHashMap<>();
		figures.put("enqueue bulk (jobs/s)", perSecond(n, enqueueNanos));
		figures.put(DRAIN, recorder.drainRate());
		recorder.putLag(figures, "");
		figures.put(UNDELIVERED, (double) recorder.lost());
		figures.put("duplicates", (double) recorder.duplicates());
		figures.put("late enqueues", late);
		figures.put(REDIS_CPU, redisCpu * 1e6 / n);
		figures.put(REDIS_CPU_WAITING, (waitSeconds > 0.5) ? waitingCpu * 1e3 / waitSeconds : Double.NaN);
		figures.put(REDIS_COMMANDS, (double) redisCommands / n);
		putCommands(figures, drained, n);
		return figures;
	}

	private static void fillPending(Subject subject, int pending) throws InterruptedException {
		long farAway = System.currentTimeMillis() + Duration.ofDays(1).toMillis();
		long start = System.nanoTime();
		for (int from = 0; from < pending; from += ScaleScenario.FILL_CHUNK) {
			List<Job> jobs = new ArrayList<>(ScaleScenario.FILL_CHUNK);
			for (int i = from; i < Math.min(pending, from + ScaleScenario.FILL_CHUNK); i++) {
				jobs.add(Job.at(TOPIC, "p" + i, i, farAway + i % 3_600_000));
			}
			subject.scheduleBulk(jobs);
		}
		System.out.printf("  filled %,d pending jobs at %,.0f jobs/s%n", pending,
				perSecond(pending, System.nanoTime() - start));
		MemoryScenario.quiesce();
	}

	@Override
	Map<String, Double> floor(Floor floor) {
		return Map.of("enqueue bulk (jobs/s)", floor.perSecondP16(), DRAIN, floor.perSecondP1());
	}

	@Override
	String notes() {
		return "All jobs are scheduled in bulk with one absolute due time " + LEAD.toSeconds()
				+ " s ahead (delayqueue `scheduleAll` with `dueAt`, Redisson `offerAsync` with the remaining delay). "
				+ "Drain = jobs / (last completion − first delivery); for delayqueue a job completes when its "
				+ "`finish` reached Redis, for Redisson and the floor design when its handler returned (they have no acknowledgement). "
				+ "`undelivered at timeout` counts jobs not delivered " + TIMEOUT.toSeconds() + " s after the "
				+ "instant, when the run stops waiting (they are still in Redis, not lost). "
				+ "With `bench.b.scripts=on` each run also prints each script's calls and time per job "
				+ "(`SLOWLOG` at threshold 0, which costs Redis CPU of its own); every run prints each command's "
				+ "(`INFO commandstats`, a script's line including the commands it ran). "
				+ ((this.pending > 0) ? String.format("Before the drain, %,d far-future jobs were put on its topic in bulk "
						+ "and left pending. ", this.pending) : "")
				+ "`late enqueues` = 1 if the bulk enqueue did not finish before the instant. Redis CPU = the server "
				+ "process's CPU time (`INFO cpu`, network included) from " + WINDOW_AHEAD.toMillis() + " ms before the "
				+ "instant to the last completion, per job; Redis CPU waiting = its CPU per second from the end of the "
				+ "enqueue to that window (nothing due: what Redis costs at rest, which on some machines grows with its "
				+ "memory); Redis command time = the sum of `INFO commandstats` in the window, per job; "
				+ COMMANDS_NOTE + ", in the same window. "
				+ "The EVALSHA floor row shows "
				+ "EVALSHA from " + Floor.CLIENTS + " clients, `-P 16` under enqueue and `-P 1` under drain.";
	}

}
