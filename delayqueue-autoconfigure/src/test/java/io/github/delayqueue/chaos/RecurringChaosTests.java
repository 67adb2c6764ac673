package io.github.delayqueue.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A recurring job every second on 3 worker processes while one of them is killed
 * ({@code SIGKILL}) and restarted every few seconds: no tick is lost (a tick whose timer died
 * is fired by the instance that takes the bucket over, within the misfire threshold), none
 * is created twice, and only occurrences in flight at a kill are delivered twice.
 *
 * <p>
 * Quick in {@code verify} (15 s, a kill every 2.5 s); full size with {@code -Pchaos} (60 s).
 */
class RecurringChaosTests {

	@Test
	void killedInstancesLoseNoTick() throws Exception {
		int seconds = ChaosRun.size("recurringSeconds", 15);
		long killEveryMillis = ChaosRun.size("killEveryMillis", 2_500);
		try (ChaosRun run = new ChaosRun(3, ChaosRun.size("handleMillis", 20))) {
			await().atMost(Duration.ofSeconds(60)).until(() -> run.liveInstances() == 3);
			RecurringJobs recurring = run.producer.getBean(RecurringJobs.class);
			recurring.put(RecurringJob.builder("beat").topic("chaos").every(Duration.ofSeconds(1)).payload("beat").build());
			int kills = 0;
			long inFlightAtKills = 0;
			long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
			while (System.nanoTime() < end) {
				Thread.sleep(killEveryMillis);
				inFlightAtKills += run.template.getOperations().stats().totals().reserved();
				run.killAndRestart(ThreadLocalRandom.current().nextInt(run.workers()));
				kills++;
			}
			assertThat(recurring.pause("beat")).isTrue();
			RecurringJobInfo info = recurring.find("beat").orElseThrow();
			try {
				// every occurrence created is delivered and finished (one a killed instance held
				// comes back after its TTR)
				await().atMost(Duration.ofSeconds(60)).until(() -> run.deliveredCount() == info.fired()
						&& run.template.getOperations().stats().totals().total() == 0);
			}
			finally {
				Map<Object, Object> deliveries = run.deliveries();
				TreeMap<Instant, String> ticks = new TreeMap<>();
				deliveries.keySet().forEach((id) -> ticks.put(tickOf((String) id), (String) id));
				long spanned = ticks.isEmpty() ? 0
						: Duration.between(ticks.firstKey(), ticks.lastKey()).toSeconds() + 1;
				long duplicates = deliveries.values().stream().filter((count) -> !"1".equals(count)).count();
				long[] lags = run.lags();
				System.out.println("chaos recurring: every 1 s for " + seconds + " s, 3 instances, " + kills
						+ " kills (SIGKILL + restart), ticks fired " + info.fired() + ", delivered " + deliveries.size()
						+ " of " + spanned + " from the first to the last, misfired " + info.misfired() + ", skipped "
						+ info.skipped() + ", duplicates " + duplicates + " (RESERVED at the kills: " + inFlightAtKills
						+ "), lag from the tick p50 " + ChaosRun.percentile(lags, 50) + " ms, p99 "
						+ ChaosRun.percentile(lags, 99) + " ms, max " + ChaosRun.percentile(lags, 100) + " ms");
				assertThat(ticks).as(run::logTail).hasSize((int) spanned);
				assertThat(info.fired()).isEqualTo(spanned);
				assertThat(info.skipped()).isZero();
				assertThat(duplicates).isLessThanOrEqualTo(inFlightAtKills);
			}
			assertThat(kills).isGreaterThanOrEqualTo(2);
			run.assertInvariant();
		}
	}

	/** The tick an occurrence id {@code beat@yyyyMMdd'T'HHmmss'Z'[~n]} names. */
	private static Instant tickOf(String id) {
		String s = id.substring("beat@".length(), "beat@".length() + 16);
		return Instant.parse(s.substring(0, 4) + "-" + s.substring(4, 6) + "-" + s.substring(6, 11) + ":"
				+ s.substring(11, 13) + ":" + s.substring(13, 15) + "Z");
	}

}
