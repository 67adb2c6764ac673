package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a handler thread and the settler each get of a batch.
 */
class JobBatchTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@Test
	void jobsAreClaimedInOrderAndThoseTakenBackAreNeverClaimed() {
		JobBatch batch = new JobBatch(List.of(job("a", 60), job("b", 60), job("c", 60)), 0);
		ReservedJob a = batch.claimNext();
		assertThat(a.id()).isEqualTo("a");
		batch.succeeded(a);
		assertThat(batch.takeUnstarted()).extracting(ReservedJob::id).containsExactly("b", "c");
		assertThat(batch.claimNext()).isNull();
		assertThat(batch.takeUnstarted()).isEmpty();
		assertThat(batch.takeSucceeded()).containsExactly(a);
		assertThat(batch.takeSucceeded()).as("taken once").isEmpty();
	}

	@Test
	void batchIsSettledAfterTheBudgetOrHalfItsShortestTtr() {
		long budget = TimeUnit.MILLISECONDS.toNanos(50);
		assertThat(new JobBatch(List.of(job("a", 60_000), job("b", 30_000)), 0).settleAfterNanos(budget))
			.isEqualTo(budget);
		assertThat(new JobBatch(List.of(job("a", 60_000), job("b", 40)), 0).settleAfterNanos(budget))
			.isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
	}

	private static ReservedJob job(String id, long ttrMillis) {
		return new ReservedJob("t", id, new byte[0], 1, 5, NOW, NOW, NOW, NOW.plusMillis(ttrMillis),
				Duration.ofMillis(ttrMillis), 1, Map.of());
	}

}
