package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.redisson.Redisson;

import org.springframework.boot.SpringBootVersion;

/**
 * The benchmark harness: starts its own redis-server, runs the chosen scenarios for each
 * implementation {@code bench.runs} times (implementations interleaved, Redis flushed before
 * each), and prints one Markdown table per scenario with the machine's facts and each
 * implementation's figures divided by the floor design's, also written to {@code bench.out}.
 *
 * <p>
 * System properties: {@code bench.scenario} ({@code all}: A to F; or letters, e.g. {@code A,D} or {@code G}),
 * {@code bench.impl} ({@code all}, or {@code delayqueue}, {@code redisson}, {@code floor} or
 * {@code floor-alo}, comma-separated), {@code bench.runs} (3), {@code bench.scale} (1: the job counts of the
 * issue; 0.1 for a quick look), {@code bench.jvm} ({@code fresh}: each scenario run of each
 * implementation in a JVM of its own, started with {@code bench.jvmArgs}; {@code warm}: all
 * in this JVM), {@code bench.out}, {@code bench.headers} ({@code name=value,...}: headers on
 * every job delayqueue schedules in bulk, to measure their cost; none by default),
 * {@code bench.priorities} (1 to 10: the priorities delayqueue's jobs are spread over, to
 * measure what priorities cost; 1, the default, sets none).
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws Exception {
		Scenario.Settings settings = new Scenario.Settings(Double.parseDouble(System.getProperty("bench.scale", "1")),
				Integer.getInteger("bench.runs", 3));
		if (settings.runs() < 1 || !(settings.scale() > 0)) {
			throw new IllegalArgumentException("bench.runs must be at least 1 and bench.scale above 0");
		}
		List<Scenario> scenarios = select(System.getProperty("bench.scenario", "all"), settings);
		Set<Subject.Kind> kinds = kinds(System.getProperty("bench.impl", "all"));
		ForkedRun fork = fork(System.getProperty("bench.jvm", "fresh"));
		Path out = Path.of(System.getProperty("bench.out", "benchmark-results.md"));

		StringBuilder report = new StringBuilder();
		try (BenchRedis redis = new BenchRedis()) {
			report.append(machine(redis, settings, fork)).append('\n');
			System.out.println(report);
			List<Floor> floors = new ArrayList<>();
			for (int run = 0; run < settings.runs(); run++) {
				redis.flush();
				floors.add(Floor.measure(redis, 200_000));
				Floor floor = floors.get(run);
				System.out.printf(
						"floor run %d: EVALSHA 50 clients -P 1 %,.0f/s, -P 16 %,.0f/s, %.2f µs in Redis per call; "
								+ "one client %,.0f/s; one thread through Lettuce %,.0f/s%n",
						run + 1, floor.perSecondP1(), floor.perSecondP16(), floor.serverMicrosPerCall(),
						floor.perSecondOneClient(), floor.perSecondLettuce());
			}
			if (fork == null) {
				warmUp(kinds, redis, settings);
			}
			for (Scenario scenario : scenarios) {
				List<Table> tables = run(scenario, kinds, floors, redis, settings, fork);
				String section = tables.stream().map(Table::toMarkdown).collect(Collectors.joining("\n")) + '\n'
						+ scenario.notes() + '\n' + verdict(scenario, tables);
				System.out.println('\n' + section);
				report.append(section).append('\n');
			}
		}
		Files.createDirectories(out.toAbsolutePath().getParent());
		Files.writeString(out, report);
		System.out.println("Written to " + out.toAbsolutePath());
		System.exit(0);
	}

	private static List<Table> run(Scenario scenario, Set<Subject.Kind> kinds, List<Floor> floors, BenchRedis redis,
			Scenario.Settings settings, ForkedRun fork) throws Exception {
		String mode = (fork != null) ? "fresh JVM per run" : "one warm JVM";
		List<Table> tables = scenario.tables()
			.entrySet()
			.stream()
			.map((table) -> new Table(table.getKey() + " (" + mode + ")", table.getValue()))
			.toList();
		for (int run = 0; run < settings.runs(); run++) {
			for (Subject.Kind kind : kinds) {
				if (!scenario.supports(kind)) {
					continue;
				}
				long start = System.nanoTime();
				Map<String, Double> figures = (fork != null) ? fork.run(scenario, kind, redis)
						: measure(scenario, kind, redis, false);
				if (figures.isEmpty()) {
					System.out.printf("%s run %d/%d %s FAILED%n", scenario.key(), run + 1, settings.runs(),
							kind.label());
					continue;
				}
				scenario.record(tables, kind.label(), figures);
				System.out.printf("%s run %d/%d %s (%.0f s): %s%n", scenario.key(), run + 1, settings.runs(),
						kind.label(), (System.nanoTime() - start) / 1e9, format(scenario, figures));
			}
			Map<String, Double> floor = scenario.floor(floors.get(run));
			if (!floor.isEmpty()) {
				tables.get(0).add(Floor.ROW, floor);
			}
		}
		for (Subject.Kind kind : kinds) {
			if (kind != Subject.Kind.FLOOR) {
				tables.forEach((table) -> table.addRatio(kind.label(), Subject.Kind.FLOOR.label()));
			}
		}
		return tables;
	}

	/**
	 * Runs a scenario once for one implementation: each part on an emptied Redis with the
	 * implementation started for it, and warmed up first when asked. A part that fails (e.g.
	 * Redis kept busy by this implementation past the admin connection's timeout) leaves its
	 * figures out; the other parts, runs and scenarios go on.
	 * @return the figures of the parts that succeeded
	 */
	static Map<String, Double> measure(Scenario scenario, Subject.Kind kind, BenchRedis redis, boolean warmUp)
			throws Exception {
		Map<String, Double> figures = new LinkedHashMap<>();
		for (ScenarioPart part : scenario.parts()) {
			redis.flushWhenAnswering();
			RecorderHolder recorder = new RecorderHolder();
			try (Subject subject = kind.create(redis, part.layout(), recorder)) {
				if (warmUp) {
					WarmUp.run(subject, part.layout(), recorder);
				}
				figures.putAll(part.run(subject, redis, recorder));
				warnOfLeftovers(scenario, subject);
			}
			catch (RuntimeException ex) {
				System.out.printf("  %s %s: a part FAILED: %s%n", scenario.key(), kind.label(), ex);
			}
		}
		return figures;
	}

	/**
	 * Says when jobs are still in Redis after a scenario whose jobs should all be gone.
	 */
	private static void warnOfLeftovers(Scenario scenario, Subject subject) {
		if ("C".equals(scenario.key()) || "E".equals(scenario.key()) || "G".equals(scenario.key())) {
			return;
		}
		try {
			long left = subject.pending();
			if (left != 0) {
				System.out.printf("  WARNING: %,d jobs left in Redis after the run%n", left);
			}
		}
		catch (RuntimeException ex) {
			System.out.println("  WARNING: could not count the jobs left in Redis: " + ex.getMessage());
		}
	}

	/**
	 * Runs a small burst through each implementation first, so that the measured runs meet
	 * compiled code rather than the JIT compiler at work.
	 */
	private static void warmUp(Set<Subject.Kind> kinds, BenchRedis redis, Scenario.Settings settings)
			throws Exception {
		Scenario warmUp = new BurstScenario(new Scenario.Settings(Math.min(0.2, settings.scale()), 1));
		for (Subject.Kind kind : kinds) {
			redis.flush();
			RecorderHolder recorder = new RecorderHolder();
			long start = System.nanoTime();
			try (Subject subject = kind.create(redis, warmUp.layout(), recorder)) {
				warmUp.run(subject, redis, recorder);
			}
			System.out.printf("warm-up %s: %.0f s%n", kind.label(), (System.nanoTime() - start) / 1e9);
		}
	}

	private static ForkedRun fork(String jvm) {
		return switch (jvm.toLowerCase(Locale.ROOT)) {
			case "fresh" -> new ForkedRun(System.getProperty("bench.jvmArgs", ""));
			case "warm" -> null;
			default -> throw new IllegalArgumentException("bench.jvm must be fresh or warm; got '" + jvm + "'");
		};
	}

	/**
	 * The figures of a run in the order of the table's columns.
	 */
	private static String format(Scenario scenario, Map<String, Double> figures) {
		return scenario.tables()
			.values()
			.stream()
			.flatMap(List::stream)
			.filter((column) -> figures.containsKey(column.label()))
			.map((column) -> column.label() + "="
					+ String.format(Locale.ROOT, "%,.2f", figures.get(column.label())))
			.collect(Collectors.joining(", "));
	}

	/**
	 * The scenarios named: letters, or {@code all} for A to F (G, scale, runs only when named).
	 */
	static List<Scenario> select(String selection, Scenario.Settings settings) {
		List<Scenario> all = List.of(new BurstScenario(settings), new DrainScenario(settings),
				new MemoryScenario(settings), PrecisionScenario.precision(settings), new IdleScenario(settings),
				PrecisionScenario.trickle(settings));
		if ("all".equalsIgnoreCase(selection)) {
			return all;
		}
		List<Scenario> named = new ArrayList<>(all);
		named.add(new ScaleScenario(settings));
		List<Scenario> chosen = new ArrayList<>();
		for (String key : selection.split(",")) {
			Scenario scenario = named.stream()
				.filter((candidate) -> candidate.key().equalsIgnoreCase(key.trim()))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"bench.scenario must be 'all' or letters among A, B, C, D, E, F, G; got '" + selection + "'"));
			chosen.add(scenario);
		}
		return chosen;
	}

	private static Set<Subject.Kind> kinds(String selection) {
		if ("all".equalsIgnoreCase(selection.trim())) {
			return EnumSet.allOf(Subject.Kind.class);
		}
		Set<Subject.Kind> kinds = EnumSet.noneOf(Subject.Kind.class);
		for (String name : selection.split(",")) {
			try {
				kinds.add(Subject.Kind.named(name.trim()));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						"bench.impl must be all, or delayqueue, redisson, floor or floor-alo, comma-separated; got '" + selection
								+ "'");
			}
		}
		return kinds;
	}

	/**
	 * The performance targets, checked against the medians: ratios to the floor design
	 * measured in the same run, and a few absolute figures. The at-least-once floor design's
	 * ratio is printed beside a ratio target for reference (what at least once alone costs).
	 */
	private static String verdict(Scenario scenario, List<Table> tables) {
		Table table = tables.get(0);
		String dq = Subject.Kind.DELAYQUEUE.label();
		Map<String, Boolean> checks = new LinkedHashMap<>();
		switch (scenario.key()) {
			case "A" -> {
				checks.put("lost 0", table.median(dq, "lost") == 0);
				checks.put("duplicates 0", table.median(dq, "duplicates") == 0);
				atLeast(checks, table, "enqueue 1-by-1 (jobs/s)", 0.8);
				atLeast(checks, table, "enqueue bulk (jobs/s)", 0.8);
				checks.put("lag p99 after the bulk burst ≤ 20 ms",
						table.median(dq, BurstScenario.BULK + Recorder.LAG_P99) <= 20);
				atMost(checks, table, Scenario.COMMANDS_PER_JOB, 2);
			}
			case "B" -> atLeast(checks, table, DrainScenario.DRAIN, 0.8);
			case "C" -> {
				Table sizes = tables.get(tables.size() - 1);
				for (Table.Column column : sizes.columns()) {
					atMost(checks, sizes, column.label(), 1.05);
				}
			}
			case "D" -> {
				checks.put("lag p99 ≤ 5 ms", table.median(dq, Recorder.LAG_P99) <= 5);
				checks.put("lag max ≤ 25 ms", table.median(dq, Recorder.LAG_MAX) <= 25);
			}
			case "E" -> {
				checks.put("≤ 1 Redis command/s per instance", table.median(dq, "Redis commands/s per instance") <= 1);
				checks.put("CPU ≤ 1% of a core", table.median(dq, "CPU % of a core per instance") <= 1);
			}
			case "F" -> {
				atMost(checks, table, Scenario.COMMANDS_PER_JOB, 2);
				double redisson = table.median(Subject.Kind.REDISSON.label(), Recorder.LAG_P99);
				if (!Double.isNaN(redisson)) {
					checks.put(String.format(Locale.ROOT, "lag p99 ≤ Redisson's (%.1f ms)", redisson),
							table.median(dq, Recorder.LAG_P99) <= redisson);
				}
			}
			default -> {
			}
		}
		if (checks.isEmpty() || Double.isNaN(table.median(dq, scenario.columns().get(0).label()))) {
			return "";
		}
		return "\nTargets for delayqueue (medians): " + checks.entrySet()
			.stream()
			.map((check) -> check.getKey() + (check.getKey().startsWith("(") ? "" : check.getValue() ? " ✅" : " ❌"))
			.collect(Collectors.joining("; ")) + "\n";
	}

	private static void atLeast(Map<String, Boolean> checks, Table table, String column, double ratio) {
		ratioCheck(checks, table, column, ratio, true);
	}

	private static void atMost(Map<String, Boolean> checks, Table table, String column, double ratio) {
		ratioCheck(checks, table, column, ratio, false);
	}

	/**
	 * A target on delayqueue's median of a column divided by the floor design's, with the
	 * at-least-once floor design's own ratio beside it when it ran.
	 */
	private static void ratioCheck(Map<String, Boolean> checks, Table table, String column, double ratio,
			boolean atLeast) {
		double floor = table.median(Subject.Kind.FLOOR.label(), column);
		double dq = table.median(Subject.Kind.DELAYQUEUE.label(), column) / floor;
		if (Double.isNaN(dq)) {
			return;
		}
		double alo = table.median(Subject.Kind.FLOOR_ALO.label(), column) / floor;
		String reference = Double.isNaN(alo) ? "" : String.format(Locale.ROOT, "; at-least-once floor %.2f×", alo);
		checks.put(String.format(Locale.ROOT, "%s %s %.2f× floor (%.2f×%s)", column, atLeast ? "≥" : "≤", ratio, dq,
				reference),
				atLeast ? dq >= ratio : dq <= ratio);
	}

	private static String machine(BenchRedis redis, Scenario.Settings settings, ForkedRun fork) throws IOException {
		String cpu = read("/proc/cpuinfo").lines()
			.filter((line) -> line.startsWith("model name"))
			.map((line) -> line.substring(line.indexOf(':') + 1).trim())
			.findFirst()
			.orElse("unknown");
		String memory = read("/proc/meminfo").lines()
			.filter((line) -> line.startsWith("MemTotal"))
			.map((line) -> String.format(Locale.ROOT, "%.1f GiB",
					Long.parseLong(line.replaceAll("\\D", "")) / 1024.0 / 1024.0))
			.findFirst()
			.orElse("unknown");
		String os = read("/etc/os-release").lines()
			.filter((line) -> line.startsWith("PRETTY_NAME="))
			.map((line) -> line.substring(line.indexOf('=') + 1).replace("\"", ""))
			.findFirst()
			.orElse(System.getProperty("os.name"));
		return Stream.of("### Machine and run",
				"",
				"- date: " + LocalDate.now(),
				"- CPU: " + cpu + ", " + Runtime.getRuntime().availableProcessors() + " cores; memory " + memory,
				"- OS: " + os + ", kernel " + System.getProperty("os.version"),
				"- JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ", "
						+ ((fork != null) ? "a fresh JVM per scenario, run and implementation, " + fork.flags() + ", "
								+ String.format(Locale.ROOT, "%,d", WarmUp.JOBS) + " warm-up jobs first"
								: String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
									.filter((arg) -> arg.startsWith("-X"))
									.toList()) + ", all runs in one JVM after a warm-up burst"),
				"- Redis: redis-server " + redis.version() + " on 127.0.0.1 (same machine), persistence off",
				"- delayqueue " + revision() + " on Spring Boot "
						+ SpringBootVersion.getVersion() + " (Lettuce); Redisson "
						+ Redisson.class.getPackage().getImplementationVersion() + "; the floor designs on Lettuce",
				"- runs per figure: " + settings.runs() + " (median, min–max in brackets); scale " + settings.scale()
						+ (Integer.getInteger("bench.priorities", 1) > 1
								? "; delayqueue's jobs spread over " + Integer.getInteger("bench.priorities") + " priorities"
								: ""),
				"- rows `… ÷ " + Subject.Kind.FLOOR.label() + "`: an implementation's medians divided by the floor "
						+ "design's, from the same run")
			.collect(Collectors.joining("\n")) + "\n";
	}

	/**
	 * The commit the benchmark was built from, as {@code git describe} tells it.
	 */
	private static String revision() {
		try {
			Process git = new ProcessBuilder("git", "describe", "--always", "--dirty").redirectErrorStream(true).start();
			String out = new String(git.getInputStream().readAllBytes()).trim();
			return (git.waitFor() == 0) ? "commit " + out : "(no git)";
		}
		catch (IOException ex) {
			return "(no git)";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "(no git)";
		}
	}

	private static String read(String file) {
		try {
			return Files.readString(Path.of(file));
		}
		catch (IOException ex) {
			return "";
		}
	}

}
