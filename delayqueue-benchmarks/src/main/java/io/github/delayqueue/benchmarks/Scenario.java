package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One benchmark scenario: how consumers are laid out, what one run measures, and how the
 * floor fills its table.
 */
abstract class Scenario {

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

	abstract Subject.Layout layout();

	/**
	 * Runs the scenario once against a started implementation on an empty Redis.
	 * @return figures by column label
	 */
	abstract Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder recorder) throws Exception;

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

	static double perSecond(int jobs, long nanos) {
		return jobs * 1e9 / nanos;
	}

	/**
	 * The harness's settings, from system properties.
	 */
	record Settings(double scale, int runs) {

	}

}
