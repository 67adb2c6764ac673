package io.github.delayqueue.benchmarks;

import java.util.Map;

/**
 * What one implementation, started for it on an empty Redis, measures of a scenario run: the
 * whole scenario, or one of its {@linkplain Scenario#parts() parts}.
 */
abstract class ScenarioPart {

	abstract Subject.Layout layout();

	/**
	 * Runs the part once against a started implementation on an empty Redis.
	 * @return figures by column label
	 */
	abstract Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder recorder) throws Exception;

}
