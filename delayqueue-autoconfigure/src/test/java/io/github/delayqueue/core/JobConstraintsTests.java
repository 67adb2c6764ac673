package io.github.delayqueue.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The messages of the duration rules of {@link JobConstraints}: the bounds and the value in
 * one unit, ISO-8601 with days.
 */
class JobConstraintsTests {

	@Test
	void delayIsReportedInDaysOnBothSides() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.delay(Duration.ofHours(2_399_999_976L)))
			.withMessage("delay must be between -P36500D and P36500D, was P99999999D");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.delay(Duration.ofDays(36_500).plusMillis(1)))
			.withMessage("delay must be between -P36500D and P36500D, was P36500DT0.001S");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.delay(Duration.ofDays(-40_000)))
			.withMessage("delay must be between -P36500D and P36500D, was -P40000D");
		assertThat(JobConstraints.delay(Duration.ofDays(-36_500))).isEqualTo(Duration.ofDays(-36_500));
	}

	@Test
	void ttrIsReportedWithBothBounds() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.ttr(Duration.ofHours(204)))
			.withMessage("ttr must be between PT0.001S and P7D, was P8DT12H");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.ttr(Duration.ZERO))
			.withMessage("ttr must be between PT0.001S and P7D, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.ttr(Duration.ofNanos(999_999)))
			.withMessage("ttr must be between PT0.001S and P7D, was PT0.000999999S");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.ttr(Duration.ofSeconds(-5)))
			.withMessage("ttr must be between PT0.001S and P7D, was -PT5S");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.ttr(null))
			.withMessage("ttr must not be null");
		assertThat(JobConstraints.ttr(Duration.ofDays(7))).isEqualTo(Duration.ofDays(7));
	}

	@Test
	void aDurationTooLongForNanosecondsIsRefusedByTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.ttr(Duration.ofDays(1_000_000)))
			.withMessage("ttr must be between PT0.001S and P7D, was P1000000D");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobConstraints.positive("backOffMax", Duration.ofSeconds(Long.MAX_VALUE),
					JobConstraints.MAX_DELAY))
			.withMessageStartingWith("backOffMax must be between PT0.001S and P36500D, was P");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.delay(Duration.ofSeconds(Long.MIN_VALUE)))
			.withMessageStartingWith("delay must be between -P36500D and P36500D, was -P");
	}

	@Test
	void backOffIsZeroUpToTheLongestDelay() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.backOff("retryIn", Duration.ofSeconds(-1)))
			.withMessage("retryIn must be between PT0S and P36500D, was -PT1S");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.backOff("backOff", Duration.ofDays(40_000)))
			.withMessage("backOff must be between PT0S and P36500D, was P40000D");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.backOff("backOff", null))
			.withMessage("backOff must not be null");
		assertThat(JobConstraints.backOff("backOff", Duration.ZERO)).isZero();
	}

	@Test
	void otherDurationRulesNameTheirFieldAndBounds() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobConstraints.positive("waitTimeout", Duration.ofMinutes(2), Duration.ofMinutes(1)))
			.withMessage("waitTimeout must be between PT0.001S and PT1M, was PT2M");
	}

	@Test
	void textIsIsoWithDaysAndParsesBack() {
		assertThat(JobConstraints.text(Duration.ofDays(36_500))).isEqualTo("P36500D");
		assertThat(JobConstraints.text(Duration.ofHours(36).plusMillis(1))).isEqualTo("P1DT12H0.001S");
		assertThat(JobConstraints.text(Duration.ofSeconds(-90))).isEqualTo("-PT1M30S");
		assertThat(JobConstraints.text(Duration.ofDays(-2).minusHours(3))).isEqualTo("-P2DT3H");
		assertThat(JobConstraints.text(Duration.ZERO)).isEqualTo("PT0S");
		for (Duration duration : new Duration[] { Duration.ofDays(36_500), Duration.ofHours(36).plusMillis(1),
				Duration.ofSeconds(-90), Duration.ofDays(-2).minusHours(3), Duration.ofNanos(-500) }) {
			assertThat(Duration.parse(JobConstraints.text(duration))).isEqualTo(duration);
		}
	}

}
