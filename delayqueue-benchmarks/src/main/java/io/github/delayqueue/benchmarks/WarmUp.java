package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The warm-up of an implementation in a fresh JVM: {@value #JOBS} jobs with short delays
 * spread over its topics, half scheduled one call at a time and half in bulk, each delivered
 * before the measured run starts, so that it meets compiled code rather than the JIT compiler
 * at work.
 */
final class WarmUp {

	static final int JOBS = 2_000;

	/** The numbers of the warm-up jobs, beyond those of any scenario. */
	private static final int FIRST_SEQ = 1_000_000_000;

	private WarmUp() {
	}

	static void run(Subject subject, Subject.Layout layout, RecorderHolder holder) throws InterruptedException {
		Recorder recorder = new Recorder(JOBS, FIRST_SEQ);
		holder.set(recorder);
		long start = System.nanoTime();
		List<Job> bulk = new ArrayList<>(JOBS / 2);
		for (int i = 0; i < JOBS; i++) {
			Job job = Job.in(layout.topics().get(i % layout.topics().size()), "w" + i, FIRST_SEQ + i, 10 + i % 100);
			if (i < JOBS / 2) {
				subject.schedule(job);
			}
			else {
				bulk.add(job);
			}
		}
		subject.scheduleBulk(bulk);
		boolean all = recorder.await(Duration.ofSeconds(60));
		System.out.printf("  warm-up: %,d jobs in %.1f s%s%n", JOBS, (System.nanoTime() - start) / 1e9,
				all ? "" : ", " + recorder.lost() + " of them not delivered within 60 s");
	}

}
