package io.github.delayqueue.model;

import java.security.SecureRandom;

import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;

/**
 * The model-based randomized test: seeded random sequences of every queue operation, run on
 * a real Redis and on {@link QueueModel}; after every step the answers agree, the touched
 * jobs read the same, and the invariant holds (see {@link QueueModelRun} for what is compared
 * when).
 *
 * <p>
 * Each run prints its seed first. System properties: {@code model.seed} (the first run's
 * seed; run {@code i} uses {@code seed + i}; random when not set), {@code model.runs},
 * {@code model.steps} (per run), {@code model.invariantEvery}, {@code model.deepEvery},
 * {@code model.statsEvery}. A failure names the seed and the step and prints the steps
 * before it; {@code -Dmodel.seed=<seed> -Dmodel.runs=1 -Dmodel.steps=<step>} replays it. The
 * long run is the {@code model} Maven profile.
 */
class QueueModelTests {

	@Test
	void queueAgreesWithItsModelOverRandomOperations() {
		long seed = Long.getLong("model.seed", new SecureRandom().nextLong() & Long.MAX_VALUE);
		int runs = Integer.getInteger("model.runs", 2);
		int steps = Integer.getInteger("model.steps", 1_200);
		int invariantEvery = Integer.getInteger("model.invariantEvery", 1);
		int deepEvery = Integer.getInteger("model.deepEvery", 20);
		int statsEvery = Integer.getInteger("model.statsEvery", 10);
		long totalSteps = 0;
		long started = System.nanoTime();
		for (int i = 0; i < runs; i++) {
			QueueModelRun.Settings settings = new QueueModelRun.Settings(seed + i, steps, invariantEvery, deepEvery,
					statsEvery);
			System.out.println("model run " + (i + 1) + " of " + runs + ": seed " + settings.seed() + ", " + steps
					+ " steps (replay: -Dmodel.seed=" + settings.seed() + " -Dmodel.runs=1 -Dmodel.steps=" + steps + ")");
			QueueModelRun.Result result = new QueueModelRun(RedisTestServers.shared(), settings).run();
			System.out.println("model run " + (i + 1) + ": " + result);
			totalSteps += result.steps();
		}
		System.out.println("model: " + totalSteps + " steps in " + runs + " run(s), " + (System.nanoTime() - started) / 1_000_000
				+ " ms, no divergence");
	}

}
