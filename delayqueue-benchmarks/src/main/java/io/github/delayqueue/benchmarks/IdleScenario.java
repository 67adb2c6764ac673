package io.github.delayqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.benchmarks.Table.Column;

/**
 * E. Idle cost: 1,000,000 far-future jobs pending, 2 instances with 4 listeners each
 * (one per topic), nothing due: Redis commands per second and consumer CPU.
 */
final class IdleScenario extends Scenario {

	private static final List<String> TOPICS = List.of("idle-0", "idle-1", "idle-2", "idle-3");

	private static final int INSTANCES = 2;

	private static final String SCRIPTS = "of which script calls/s";

	private static final Duration SETTLE = Duration.ofSeconds(5);

	private static final Duration WINDOW = Duration.ofSeconds(Long.getLong("bench.e.window", 30));

	IdleScenario(Settings settings) {
		super(settings);
	}

	@Override
	String key() {
		return "E";
	}

	@Override
	String title() {
		return "E. Idle cost: " + String.format("%,d", scaled(1_000_000)) + " far-future jobs, " + INSTANCES
				+ " instances × " + TOPICS.size() + " listeners, " + WINDOW.toSeconds() + " s with nothing due";
	}

	@Override
	List<Column> columns() {
		return Column.of(Column.decimal("Redis commands/s per instance"), Column.decimal(SCRIPTS),
				Column.decimal("CPU % of a core per instance"),
				Column.decimal("connections per instance"));
	}

	@Override
	Subject.Layout layout() {
		return new Subject.Layout(INSTANCES, 1, TOPICS);
	}

	@Override
	Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder holder) throws Exception {
		int n = scaled(1_000_000);
		holder.set(new Recorder(0));
		long farAway = System.currentTimeMillis() + Duration.ofDays(1).toMillis();
		List<Job> jobs = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			jobs.add(Job.at(TOPICS.get(i % TOPICS.size()), "e" + i, i, farAway));
		}
		subject.scheduleBulk(jobs);
		jobs = null;
		Thread.sleep(SETTLE.toMillis());

		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		BenchRedis.Calls callsBefore = redis.calls();
		long commandsBefore = redis.commandsProcessed();
		long cpuBefore = os.getProcessCpuTime();
		long start = System.nanoTime();
		Thread.sleep(WINDOW.toMillis());
		long cpu = os.getProcessCpuTime() - cpuBefore;
		long elapsed = System.nanoTime() - start;
		// the first INFO is counted in the difference, the second is not
		long commands = redis.commandsProcessed() - commandsBefore - 1;
		BenchRedis.Calls calls = redis.calls().since(callsBefore);
		long scripts = calls.scripts();
		// per command and instance, per second (the harness's INFO calls are left out of calls())
		System.out.println("  commands per second and instance: "
				+ calls.perJob((int) Math.max(1, Math.round(elapsed / 1e9 * INSTANCES))));
		long clients = Long.parseLong(redis.info("clients").get("connected_clients")) - 1;

		Map<String, Double> figures = new LinkedHashMap<>();
		figures.put("Redis commands/s per instance", commands * 1e9 / elapsed / INSTANCES);
		figures.put(SCRIPTS, scripts * 1e9 / elapsed / INSTANCES);
		figures.put("CPU % of a core per instance", 100.0 * cpu / elapsed / INSTANCES);
		figures.put("connections per instance", (double) clients / INSTANCES);
		return figures;
	}

	@Override
	String notes() {
		return "After the jobs are scheduled and " + SETTLE.toSeconds() + " s of settling, the harness measures "
				+ WINDOW.toSeconds() + " s: Redis `total_commands_processed` (the harness's own INFO excluded; it counts "
				+ "the commands a script runs as well as the script call) and the "
				+ "CPU time of the benchmark JVM, which holds both instances and nothing else busy, each divided by "
				+ "the instances. Script calls = `EVALSHA` / `EVAL` requests (`INFO commandstats`). Connections = Redis "
				+ "clients per instance. The EVALSHA floor does nothing when idle, so it has no row here; the floor "
				+ "design's mover calls its script every " + FloorSubject.POLL_MILLIS + " ms when nothing is due.";
	}

}
