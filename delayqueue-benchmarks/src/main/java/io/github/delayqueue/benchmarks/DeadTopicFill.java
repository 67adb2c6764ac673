package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.ReservedJob;

/**
 * The dead topic of scenario G, filled with DEAD jobs through {@link DelayQueueOperations}.
 */
final class DeadTopicFill {

	/** Kill calls in flight at a time. */
	static final int KILLERS = 16;

	private static final Duration TIMEOUT = Duration.ofMinutes(30);

	private DeadTopicFill() {
	}

	/**
	 * Fills the dead topic up to {@code target} DEAD jobs: scheduled in bulk due at once,
	 * reserved {@value DelayQueueConsumer#MAX_RESERVE} at a time and failed for good, as a
	 * listener's non-retryable failure does, {@value #KILLERS} calls at a time.
	 */
	static void fill(Subject subject, DelayQueueOperations operations, int target) throws Exception {
		long dead = operations.deadJobs(ScaleScenario.DEAD_TOPIC, null, 1, false).total();
		long start = System.nanoTime();
		long deadline = start + TIMEOUT.toNanos();
		ForkJoinPool killers = new ForkJoinPool(KILLERS);
		try {
			for (long from = dead; from < target; from += ScaleScenario.FILL_CHUNK) {
				killChunk(subject, operations, from, Math.min(target, from + ScaleScenario.FILL_CHUNK), deadline, killers);
			}
		}
		finally {
			killers.shutdown();
		}
		if (target > dead) {
			System.out.printf("  dead topic filled to %,d DEAD jobs at %,.0f jobs/s%n", target,
					Scenario.perSecond((int) (target - dead), System.nanoTime() - start));
		}
	}

	/**
	 * Schedules the dead jobs {@code from} to {@code to} − 1 and kills them.
	 */
	private static void killChunk(Subject subject, DelayQueueOperations operations, long from, long to, long deadline,
			ForkJoinPool killers) throws Exception {
		List<Job> jobs = new ArrayList<>(ScaleScenario.FILL_CHUNK);
		for (long i = from; i < to; i++) {
			jobs.add(Job.in(ScaleScenario.DEAD_TOPIC, "x" + i, (int) i, 0));
		}
		subject.scheduleBulk(jobs);
		int killed = 0;
		while (killed < jobs.size()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("the dead topic was not filled within " + TIMEOUT);
			}
			List<ReservedJob> reserved = operations.reserve(ScaleScenario.DEAD_TOPIC, DelayQueueConsumer.MAX_RESERVE,
					Duration.ofMinutes(10));
			if (reserved.isEmpty()) {
				operations.awaitWork(ScaleScenario.DEAD_TOPIC, Duration.ofSeconds(1));
			}
			killed += killers.submit(() -> (int) reserved.parallelStream()
				.filter((job) -> operations.kill(job, "scale benchmark") == FailResult.DEAD)
				.count()).get();
		}
	}

}
