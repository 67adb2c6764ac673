package io.github.delayqueue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Application instances killed with {@code SIGKILL} at random while they work: 3 worker
 * processes consume jobs with delays spread over a window while one of them is killed and
 * restarted every few seconds. Every job is delivered at least once; duplicates are counted
 * and stay within the jobs that were RESERVED (in flight) at the kills.
 *
 * <p>
 * Quick in {@code verify} (3,000 jobs over 8 s, a kill every 2.5 s); full size with
 * {@code -Pchaos} (20,000 jobs over 20 s, a kill every 3 s).
 */
class KillChaosTests {

	@Test
	void killedInstancesLoseNoJob() throws Exception {
		int jobs = ChaosRun.size("jobs", 3_000);
		int windowSeconds = ChaosRun.size("windowSeconds", 8);
		long killEveryMillis = ChaosRun.size("killEveryMillis", 2_500);
		try (ChaosRun run = new ChaosRun(3, ChaosRun.size("handleMillis", 20))) {
			await().atMost(Duration.ofSeconds(60)).until(() -> run.liveInstances() == 3);
			DelayedJobTemplate template = run.template;
			List<JobBuilder> batch = new ArrayList<>();
			for (int i = 0; i < jobs; i++) {
				String id = "job-" + i;
				batch.add(template.job("chaos", id)
					.payload(id)
					.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(windowSeconds * 1_000))));
				if (batch.size() == 1_000) {
					template.scheduleAll(batch);
					batch.clear();
				}
			}
			template.scheduleAll(batch);

			int kills = 0;
			long inFlightAtKills = 0;
			long end = System.nanoTime() + Duration.ofSeconds(windowSeconds).toNanos();
			while (System.nanoTime() < end) {
				Thread.sleep(killEveryMillis);
				inFlightAtKills += template.getOperations().stats().totals().reserved();
				run.killAndRestart(ThreadLocalRandom.current().nextInt(run.workers()));
				kills++;
			}
			try {
				// every job delivered, and finished: jobs a killed instance held come back after their TTR
				await().atMost(Duration.ofSeconds(120)).until(() -> run.deliveredCount() == jobs
						&& template.getOperations().stats().totals().total() == 0);
			}
			finally {
				Map<Object, Object> deliveries = run.deliveries();
				long duplicates = deliveries.values().stream().filter((count) -> !"1".equals(count)).count();
				long[] lags = run.lags();
				System.out.println("chaos kill: " + jobs + " jobs over " + windowSeconds + " s, 3 instances, " + kills
						+ " kills (SIGKILL + restart), delivered " + deliveries.size() + ", lost "
						+ (jobs - deliveries.size()) + ", duplicates " + duplicates + " (RESERVED at the kills: "
						+ inFlightAtKills + "), lag of the last delivery p50 " + ChaosRun.percentile(lags, 50)
						+ " ms, p99 " + ChaosRun.percentile(lags, 99) + " ms, max " + ChaosRun.percentile(lags, 100)
						+ " ms");
				assertThat(deliveries).as(run::logTail).hasSize(jobs);
				assertThat(duplicates).isLessThanOrEqualTo(inFlightAtKills);
			}
			assertThat(kills).isGreaterThanOrEqualTo(2);
			run.assertInvariant();
		}
	}

}
