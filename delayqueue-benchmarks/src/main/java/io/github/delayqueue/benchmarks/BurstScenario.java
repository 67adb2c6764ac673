package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.github.delayqueue.benchmarks.Table.Column;

/**
 * A. Delayed burst: 100,000 jobs with delays uniform in 1–6 s, scheduled once one call at a
 * time and once with the bulk API, each time delivered to consumers of total concurrency 8.
 */
final class BurstScenario extends Scenario {

	/** The prefix of the bulk run's lag columns. */
	static final String BULK = "bulk: ";

	private static final String TOPIC = "burst";

	private static final String ASYNC_RATE = "enqueue 1-by-1 async (jobs/s)";

	/**
	 * The floor's trivial EVALSHA from one thread through Lettuce: a figure of the floor row
	 * that the table does not show, quoted in the line checking the targets.
	 */
	static final String LETTUCE_FLOOR = "EVALSHA from one thread through Lettuce (calls/s)";

	BurstScenario(Settings settings) {
		super(settings);
	}

	@Override
	String key() {
		return "A";
	}

	@Override
	String title() {
		return "A. Delayed burst: " + String.format("%,d", scaled(100_000)) + " jobs, delays 1–6 s, concurrency 8";
	}

	@Override
	List<Column> columns() {
		List<Column> columns = new ArrayList<>(
				List.of(Column.rate("enqueue 1-by-1 (jobs/s)"), Column.rate(ASYNC_RATE), Column.rate("enqueue bulk (jobs/s)")));
		columns.addAll(Recorder.lagColumns(""));
		columns.addAll(Recorder.lagColumns(BULK));
		columns.addAll(commandColumns());
		columns.addAll(List.of(Column.count("lost"), Column.count("duplicates")));
		return columns;
	}

	@Override
	Subject.Layout layout() {
		return new Subject.Layout(2, 4, List.of(TOPIC));
	}

	@Override
	Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder holder) throws Exception {
		int n = scaled(100_000);
		SplittableRandom random = new SplittableRandom(n);
		Map<String, Double> figures = new LinkedHashMap<>();

		Recorder single = new Recorder(n);
		holder.set(single);
		BenchRedis.Calls calls = redis.calls();
		long start = System.nanoTime();
		for (int i = 0; i < n; i++) {
			subject.schedule(Job.in(TOPIC, "s" + i, i, 1_000 + random.nextInt(5_001)));
		}
		figures.put("enqueue 1-by-1 (jobs/s)", perSecond(n, System.nanoTime() - start));
		await(single, Duration.ofSeconds(90));
		putCommands(figures, redis.calls().since(calls), n);

		Recorder async = new Recorder(n);
		holder.set(async);
		List<Job> asyncJobs = jobs("a", n, random);
		start = System.nanoTime();
		subject.scheduleAsync(asyncJobs);
		figures.put(ASYNC_RATE, perSecond(n, System.nanoTime() - start));
		await(async, Duration.ofSeconds(90));

		Recorder bulk = new Recorder(n);
		holder.set(bulk);
		List<Job> jobs = jobs("b", n, random);
		start = System.nanoTime();
		subject.scheduleBulk(jobs);
		figures.put("enqueue bulk (jobs/s)", perSecond(n, System.nanoTime() - start));
		await(bulk, Duration.ofSeconds(90));

		single.putLag(figures, "");
		bulk.putLag(figures, BULK);
		figures.put("lost", (double) (single.lost() + async.lost() + bulk.lost()));
		figures.put("duplicates", (double) (single.duplicates() + async.duplicates() + bulk.duplicates()));
		return figures;
	}

	/**
	 * The jobs of a run, built before it is timed, with delays uniform in 1–6 s.
	 */
	private static List<Job> jobs(String prefix, int n, SplittableRandom random) {
		List<Job> jobs = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			jobs.add(Job.in(TOPIC, prefix + i, i, 1_000 + random.nextInt(5_001)));
		}
		return jobs;
	}

	@Override
	Map<String, Double> floor(Floor floor) {
		return Map.of("enqueue 1-by-1 (jobs/s)", floor.perSecondOneClient(), ASYNC_RATE, floor.perSecondP16(),
				"enqueue bulk (jobs/s)", floor.perSecondP16(), LETTUCE_FLOOR, floor.perSecondLettuce());
	}

	@Override
	String notes() {
		return "Enqueue 1-by-1: one producer thread, one call per job (delayqueue `DelayedJobTemplate.schedule`, "
				+ "Redisson `RDelayedQueue.offer`), each waiting for Redis. 1-by-1 async: one producer thread, one "
				+ "call per job without waiting (delayqueue `JobBuilder.scheduleAsync`, which writes the calls that "
				+ "pile up while a batch is on its way as the next batch; Redisson `offerAsync`, as in its bulk run), "
				+ "until every job is acknowledged. Bulk: delayqueue `scheduleAll` in chunks of "
				+ DelayQueueSubject.BULK_CHUNK + "; Redisson `offerAsync` with " + RedissonSubject.WINDOW
				+ " calls in flight (it has no batch API); the floor design one script call per job, waited for, "
				+ "sent without waiting, and pipelined " + FloorSubject.BATCH + " at a time. Lag = handler start − the job's due time; first columns "
				+ "for the 1-by-1 run, `bulk:` columns for the bulk run; " + COMMANDS_NOTE + " during the 1-by-1 run, "
				+ "from its first schedule to the end of its deliveries; lost and duplicates count all three runs. The "
				+ "EVALSHA floor row shows `redis-benchmark` EVALSHA from one client, `-P 1`, under 1-by-1 (what a caller "
				+ "that waits for each answer cannot beat) and from " + Floor.CLIENTS + " clients, `-P 16`, under "
				+ "async and bulk.";
	}

}
