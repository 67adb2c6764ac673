package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One benchmark scenario: how consumers are laid out, what one run measures, and how the
 * floor fills its table.
 */
abstract class Scenario extends ScenarioPart {

	/** How long a run waits for stray redeliveries after the last job arrived. */
	static final Duration GRACE = Duration.ofSeconds(1);

	final Settings settings;

	Scenario(Settings settings) {
		this.settings = settings;
	}

	/** The letter of the scenario, as given in {@code bench.scenario}. */
	abstract String key();

	abstract String title();

	abstract List<Table.Column> columns();

	/**
	 * The tables the scenario's figures fill, each title with its columns: one by default.
	 */
	Map<String, List<Table.Column>> tables() {
		return Map.of(title(), columns());
	}

	/**
	 * The parts of one run, each measured with an implementation started for it on an empty
	 * Redis, their figures making one row: the scenario itself unless it says otherwise.
	 */
	List<ScenarioPart> parts() {
		return List.of(this);
	}

	/**
	 * Whether the scenario runs for an implementation: every one unless it says otherwise.
	 */
	boolean supports(Subject.Kind kind) {
		return true;
	}

	/**
	 * Adds the figures of one run to the scenario's tables, in the order of {@link #tables()}:
	 * by default one row per implementation, named {@code row}, in every table.
	 */
	void record(List<Table> tables, String row, Map<String, Double> figures) {
		tables.forEach((table) -> table.add(row, figures));
	}

	/**
	 * The floor's figures for this table, by column label; empty when none apply.
	 */
	Map<String, Double> floor(Floor floor) {
		return Map.of();
	}

	/**
	 * What the table shows, written under it.
	 */
	abstract String notes();

	int scaled(int jobs) {
		return Math.max(1, (int) Math.round(jobs * this.settings.scale()));
	}

	/**
	 * Waits for every job of a phase, then for {@link #GRACE} to count stray redeliveries.
	 */
	static void await(Recorder recorder, Duration timeout) throws InterruptedException {
		recorder.await(timeout);
		Thread.sleep(GRACE.toMillis());
	}

	/** The columns of {@link #putCommands}. */
	static final String COMMANDS_PER_JOB = "Redis commands / job";

	static final String SCRIPTS_PER_JOB = "of which script calls / job";

	/** What the columns of {@link #putCommands} count, for the notes. */
	static final String COMMANDS_NOTE = "Redis commands / job = every command Redis ran (`INFO commandstats` calls: "
			+ "script calls and the commands they ran, consumers' polls and timers included; the harness's own "
			+ "`INFO`, `CONFIG RESETSTAT` and `FLUSHALL` left out) per job, and of them the `EVALSHA` / `EVAL` calls";

	static List<Table.Column> commandColumns() {
		return List.of(Table.Column.decimal(COMMANDS_PER_JOB), Table.Column.decimal(SCRIPTS_PER_JOB));
	}

	/**
	 * Writes the Redis commands a phase of {@code jobs} jobs cost, per job.
	 */
	static void putCommands(Map<String, Double> figures, BenchRedis.Calls calls, int jobs) {
		figures.put(COMMANDS_PER_JOB, (double) calls.commands() / jobs);
		figures.put(SCRIPTS_PER_JOB, (double) calls.scripts() / jobs);
		System.out.println("  commands per job: " + calls.perJob(jobs));
	}

	static double perSecond(int jobs, long nanos) {
		return jobs * 1e9 / nanos;
	}

	/**
	 * The harness's settings, from system properties.
	 */
	record Settings(double scale, int runs) {

	}

}
