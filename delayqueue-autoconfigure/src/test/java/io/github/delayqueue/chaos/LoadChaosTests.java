package io.github.delayqueue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sustained load on 3 application instances (worker processes): 2,000 jobs scheduled per
 * second, due 1–5 s later; every job is delivered and the delivery lag is recorded. Quick in
 * {@code verify} (5 s); full size with {@code -Pchaos} (60 s).
 */
class LoadChaosTests {

	@Test
	void threeInstancesKeepUpWith2000JobsPerSecond() throws Exception {
		int perSecond = ChaosRun.size("perSecond", 2_000);
		int seconds = ChaosRun.size("loadSeconds", 5);
		try (ChaosRun run = new ChaosRun(3, 0)) {
			await().atMost(Duration.ofSeconds(60)).until(() -> run.liveInstances() == 3);
			DelayedJobTemplate template = run.template;
			int perTick = perSecond / 10;
			long start = System.nanoTime();
			int scheduled = 0;
			for (int tick = 0; tick < seconds * 10; tick++) {
				List<JobBuilder> batch = new ArrayList<>(perTick);
				for (int i = 0; i < perTick; i++) {
					String id = "job-" + scheduled++;
					batch.add(template.job("chaos", id)
						.payload(id)
						.delay(Duration.ofMillis(1_000 + ThreadLocalRandom.current().nextInt(4_000))));
				}
				template.scheduleAll(batch);
				// paced: tick n is sent at n × 100 ms
				long next = start + (tick + 1) * 100_000_000L;
				long wait = next - System.nanoTime();
				if (wait > 0) {
					Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
				}
			}
			double rate = scheduled / ((System.nanoTime() - start) / 1e9);
			int jobs = scheduled;
			await().atMost(Duration.ofSeconds(60)).until(() -> run.deliveredCount() == jobs);
			long[] lags = run.lags();
			long duplicates = run.deliveries().values().stream().filter((count) -> !"1".equals(count)).count();
			System.out.printf("chaos load: %d jobs scheduled at %.0f/s for %d s, 3 instances; delivered %d, duplicates %d;"
					+ " lag p50 %d ms, p99 %d ms, max %d ms%n", jobs, rate, seconds, run.deliveredCount(), duplicates,
					ChaosRun.percentile(lags, 50), ChaosRun.percentile(lags, 99), ChaosRun.percentile(lags, 100));
			assertThat(rate).isGreaterThan(perSecond * 0.9);
			assertThat(lags).hasSize(jobs);
			assertThat(lags[0]).isGreaterThanOrEqualTo(0);
			run.assertInvariant();
		}
	}

}
