package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JobInfo} and {@link ReservedJob} are records: equal when their components are, the
 * payload compared by its bytes (two reads of an unchanged job give equal snapshots), so that
 * callers may compare them, keep them in sets and use them as keys.
 */
class ResultTypesEqualityTests {

	private static final Instant DUE = Instant.parse("2026-01-02T03:04:05Z");

	private static JobInfo job(String payload) {
		return new JobInfo("orders", "o-1", JobState.DEAD, 3, 3, Duration.ofSeconds(30), DUE, DUE.minusSeconds(60),
				null, null, DUE.plusSeconds(5), "boom", payload.getBytes(StandardCharsets.UTF_8), Map.of("tenant", "acme"),
				null, null, 7);
	}

	private static ReservedJob reservation(String payload, long token) {
		return new ReservedJob("orders", "o-1", payload.getBytes(StandardCharsets.UTF_8), 1, 3, DUE, DUE, DUE,
				DUE.plusSeconds(30), Duration.ofSeconds(30), token, Map.of("tenant", "acme"));
	}

	@Test
	void snapshotsWithEqualPayloadsAreEqual() {
		assertThat(job("{\"a\":1}")).isEqualTo(job("{\"a\":1}")).hasSameHashCodeAs(job("{\"a\":1}"));
		assertThat(Set.of(job("{\"a\":1}"))).contains(job("{\"a\":1}"));
		assertThat(job("{\"a\":1}")).isNotEqualTo(job("{\"a\":2}"));
		assertThat(job("{\"a\":1}")).isNotEqualTo(new JobInfo("orders", "o-1", JobState.DEAD, 3, 3,
				Duration.ofSeconds(30), DUE, DUE.minusSeconds(60), null, null, DUE.plusSeconds(5), "boom", null,
				Map.of("tenant", "acme"), null, null, 7));
	}

	@Test
	void reservationsWithEqualPayloadsAreEqual() {
		assertThat(reservation("x", 42)).isEqualTo(reservation("x", 42)).hasSameHashCodeAs(reservation("x", 42));
		assertThat(reservation("x", 42)).isNotEqualTo(reservation("x", 43));
		assertThat(reservation("x", 42)).isNotEqualTo(reservation("y", 42));
		assertThat(ReservedJob.of("orders", "o-1", 9, Duration.ofSeconds(5)))
			.isEqualTo(ReservedJob.of("orders", "o-1", 9, Duration.ofSeconds(5)));
	}

}
