package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.benchmarks.Table.Column;

/**
 * C. Memory and scale: 1,000,000 jobs due in one hour. Bytes per pending job from Redis's
 * {@code used_memory}, the bulk enqueue rate, and at 10k, 100k and 1M pending jobs the cost
 * of scheduling and of delivering (promote + reserve + finish), in Redis time per job. Then,
 * each on an empty Redis, bytes per pending job of 100,000 jobs with payloads of
 * {@link #PAYLOAD_SIZES} bytes.
 */
final class MemoryScenario extends Scenario {

	private static final String TOPIC = "scale";

	private static final String UNDELIVERED = "probe jobs undelivered";

	/** The sizes of the payloads' JSON forms whose memory is measured. */
	private static final int[] PAYLOAD_SIZES = { 50, 100, 200, 500, 1_000, 4_000 };

	/** Jobs per payload size. */
	private static final int PAYLOAD_JOBS = 100_000;

	/** Single-call schedules per probe. */
	private static final int SCHEDULE_PROBE = 2_000;

	/** Jobs delivered per probe. */
	private static final int DELIVERY_PROBE = 5_000;

	private static final Duration PROBE_LEAD = Duration.ofMillis(1_500);

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(Long.getLong("bench.c.timeout", 60));

	MemoryScenario(Settings settings) {
		super(settings);
	}

	@Override
	String key() {
		return "C";
	}

	@Override
	String title() {
		return "C. Memory and scale: " + String.format("%,d", scaled(1_000_000)) + " jobs due in one hour";
	}

	private int[] levels() {
		return new int[] { scaled(10_000), scaled(100_000), scaled(1_000_000) };
	}

	static String label(int level) {
		return (level >= 1_000_000 && level % 1_000_000 == 0) ? (level / 1_000_000) + "M"
				: (level >= 1_000 && level % 1_000 == 0) ? (level / 1_000) + "k" : String.valueOf(level);
	}

	private String schedule(int level) {
		return "schedule µs @" + label(level);
	}

	private String deliver(int level) {
		return "deliver µs @" + label(level);
	}

	private static String bytesPerJob(int payloadBytes) {
		return String.format("%,d", payloadBytes) + " B payload";
	}

	@Override
	List<Column> columns() {
		int[] levels = levels();
		List<Column> columns = new ArrayList<>(List.of(Column.count("bytes / pending job"),
				Column.rate("enqueue bulk (jobs/s)")));
		for (int level : levels) {
			columns.add(Column.decimal(schedule(level)));
		}
		columns.add(Column.decimal("schedule growth"));
		for (int level : levels) {
			columns.add(Column.decimal(deliver(level)));
		}
		columns.add(Column.decimal("deliver growth"));
		columns.add(Column.count(UNDELIVERED));
		return columns;
	}

	/**
	 * The table of memory and scale, and that of bytes per job by payload size.
	 */
	@Override
	Map<String, List<Column>> tables() {
		List<Column> sizes = new ArrayList<>();
		for (int bytes : PAYLOAD_SIZES) {
			sizes.add(Column.count(bytesPerJob(bytes)));
		}
		Map<String, List<Column>> tables = new LinkedHashMap<>();
		tables.put(title(), columns());
		tables.put("C. Memory by payload size: " + String.format("%,d", scaled(PAYLOAD_JOBS))
				+ " jobs due in one hour, bytes per pending job", sizes);
		return tables;
	}

	@Override
	List<ScenarioPart> parts() {
		List<ScenarioPart> parts = new ArrayList<>(List.of(this));
		for (int bytes : PAYLOAD_SIZES) {
			parts.add(new PayloadMemory(bytes));
		}
		return parts;
	}

	@Override
	Subject.Layout layout() {
		return new Subject.Layout(2, 4, List.of(TOPIC));
	}

	@Override
	Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder holder) throws Exception {
		Map<String, Double> figures = new LinkedHashMap<>();
		long baseline = redis.usedMemory();
		long farAway = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
		int pending = 0;
		int undelivered = 0;
		int filled = 0;
		long fillNanos = 0;
		int[] levels = levels();
		for (int level : levels) {
			List<Job> jobs = new ArrayList<>(Math.max(0, level - pending));
			for (int i = pending; i < level; i++) {
				jobs.add(Job.at(TOPIC, "f" + i, i, farAway));
			}
			long start = System.nanoTime();
			subject.scheduleBulk(jobs);
			fillNanos += System.nanoTime() - start;
			filled += jobs.size();
			pending += jobs.size();
			if (level == levels[levels.length - 1]) {
				figures.put("bytes / pending job", (double) (redis.usedMemory() - baseline) / pending);
			}

			quiesce();
			double cpu = redis.cpuSeconds();
			start = System.nanoTime();
			for (int i = 0; i < SCHEDULE_PROBE; i++) {
				subject.schedule(Job.at(TOPIC, "p" + level + "-" + i, i, farAway));
			}
			long clientNanos = System.nanoTime() - start;
			figures.put(schedule(level), (redis.cpuSeconds() - cpu) * 1e6 / SCHEDULE_PROBE);
			pending += SCHEDULE_PROBE;

			int offset = level * 10;
			Recorder recorder = new Recorder(DELIVERY_PROBE, offset);
			holder.set(recorder);
			long dueAt = System.currentTimeMillis() + PROBE_LEAD.toMillis();
			List<Job> probe = new ArrayList<>(DELIVERY_PROBE);
			for (int i = 0; i < DELIVERY_PROBE; i++) {
				probe.add(Job.at(TOPIC, "q" + level + "-" + i, offset + i, dueAt));
			}
			subject.scheduleBulk(probe);
			cpu = redis.cpuSeconds();
			recorder.await(PROBE_TIMEOUT);
			double deliverCpu = redis.cpuSeconds() - cpu;
			// a probe that did not complete in time has no cost figure (the table shows a dash)
			figures.put(deliver(level), (recorder.lost() == 0) ? deliverCpu * 1e6 / DELIVERY_PROBE : Double.NaN);
			undelivered += recorder.lost();
			if (recorder.lost() > 0) {
				System.out.printf("    %s pending: %,d of %,d probe jobs not delivered within %d s%n", label(level),
						recorder.lost(), DELIVERY_PROBE, PROBE_TIMEOUT.toSeconds());
			}
			System.out.printf("    %s pending: schedule %.1f µs/call at the client, %.2f µs in Redis; "
					+ "deliver %.2f µs in Redis per job%n", label(level), clientNanos / 1e3 / SCHEDULE_PROBE,
					figures.get(schedule(level)), figures.get(deliver(level)));
		}
		figures.put("enqueue bulk (jobs/s)", perSecond(filled, fillNanos));
		figures.put("schedule growth", figures.get(schedule(levels[2])) / figures.get(schedule(levels[0])));
		figures.put("deliver growth", figures.get(deliver(levels[2])) / figures.get(deliver(levels[0])));
		figures.put(UNDELIVERED, (double) undelivered);
		return figures;
	}

	/**
	 * Bytes per pending job with payloads of one size: the growth of {@code used_memory} over
	 * an empty queue filled in bulk with far-future jobs.
	 */
	private final class PayloadMemory extends ScenarioPart {

		private final int payloadBytes;

		PayloadMemory(int payloadBytes) {
			this.payloadBytes = payloadBytes;
		}

		@Override
		Subject.Layout layout() {
			return MemoryScenario.this.layout();
		}

		@Override
		Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder recorder) {
			int n = scaled(PAYLOAD_JOBS);
			long farAway = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
			List<Job> jobs = new ArrayList<>(n);
			for (int i = 0; i < n; i++) {
				jobs.add(Job.at(TOPIC, "m" + i, i, farAway).withPayloadBytes(this.payloadBytes));
			}
			long baseline = redis.usedMemory();
			subject.scheduleBulk(jobs);
			return Map.of(bytesPerJob(this.payloadBytes), (double) (redis.usedMemory() - baseline) / n);
		}

	}

	/**
	 * Lets the benchmark JVM's garbage from filling the queue be collected before a probe, so
	 * that the probe does not share the CPU with it.
	 */
	static void quiesce() throws InterruptedException {
		System.gc();
		Thread.sleep(1_000);
	}

	@Override
	Map<String, Double> floor(Floor floor) {
		Map<String, Double> figures = new LinkedHashMap<>();
		figures.put("enqueue bulk (jobs/s)", floor.perSecondP16());
		for (int level : levels()) {
			figures.put(schedule(level), floor.serverMicrosPerCall());
		}
		return figures;
	}

	@Override
	String notes() {
		return "Bytes per pending job = growth of Redis `used_memory` over the jobs pending at the last level "
				+ "(payload about 200 bytes of JSON). Enqueue is the bulk rate of filling the queue. At each level, "
				+ "`schedule µs` = Redis CPU time (`INFO cpu`, user + system, network included) per job over "
				+ SCHEDULE_PROBE + " single-call schedules; `deliver µs` = Redis CPU time per job while "
				+ DELIVERY_PROBE + " jobs, all due at one instant among the pending ones, are promoted, delivered and "
				+ "finished (everything Redis did in that window, timers and consumers included). CPU time, not "
				+ "command time: on two cores the benchmark JVM preempts Redis, which inflates wall-clock figures. Growth = cost at the last "
				+ "level / cost at the first. The EVALSHA floor row shows EVALSHA from " + Floor.CLIENTS + " clients, `-P 16`, under enqueue and Redis's command time "
				+ "per trivial EVALSHA under schedule. `probe jobs undelivered`: probe jobs not delivered " + PROBE_TIMEOUT.toSeconds()
				+ " s after they were due "
				+ "(that level's delivery cost is then left out). By payload size: the same growth of "
				+ "`used_memory` over " + String.format("%,d", scaled(PAYLOAD_JOBS)) + " far-future jobs scheduled in "
				+ "bulk on an empty Redis, per job, with JSON payloads of that size (`{\"seq\":…,\"due\":…,\"reason\":\"xx…\"}`), "
				+ "each size measured with the implementation started anew.";
	}

}
