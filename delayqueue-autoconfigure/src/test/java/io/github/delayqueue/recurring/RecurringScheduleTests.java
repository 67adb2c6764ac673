package io.github.delayqueue.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ticks of a schedule, across the 2027 daylight-saving changes of Europe/Berlin (28 March,
 * 31 October) and America/New_York (14 March, 7 November): they are {@link CronExpression}'s
 * answers, and what those answers are is written down here (and in the docs).
 */
class RecurringScheduleTests {

	private static List<ZonedDateTime> ticks(RecurringSchedule schedule, ZonedDateTime from, int count) {
		List<ZonedDateTime> ticks = new ArrayList<>();
		Instant at = from.toInstant();
		for (int i = 0; i < count; i++) {
			at = schedule.next(at);
			ticks.add(at.atZone(from.getZone()));
		}
		return ticks;
	}

	private static List<ZonedDateTime> cronTicks(String cron, ZonedDateTime from, int count) {
		CronExpression expression = CronExpression.parse(cron);
		List<ZonedDateTime> ticks = new ArrayList<>();
		ZonedDateTime at = from;
		for (int i = 0; i < count; i++) {
			at = expression.next(at);
			ticks.add(at);
		}
		return ticks;
	}

	@ParameterizedTest
	@CsvSource({ "Europe/Berlin, 2027-03-26T12:00", "Europe/Berlin, 2027-10-29T12:00",
			"America/New_York, 2027-03-12T12:00", "America/New_York, 2027-11-05T12:00" })
	void ticksAcrossADaylightSavingChangeAreCronExpressionsAnswers(String zone, String start) {
		ZonedDateTime from = LocalDateTime.parse(start).atZone(ZoneId.of(zone));
		for (String cron : List.of("0 30 2 * * *", "0 0 * * * *", "0 */15 1-3 * * *", "0 0 2 * * SUN")) {
			RecurringSchedule schedule = RecurringSchedule.cron(cron, zone);
			assertThat(ticks(schedule, from, 20)).as(cron + " in " + zone).isEqualTo(cronTicks(cron, from, 20));
		}
	}

	@Test
	void aDailyTimeInTheSpringForwardGapDoesNotFireThatDayAndOneThatComesTwiceFiresTwice() {
		RecurringSchedule berlin = RecurringSchedule.cron("0 30 2 * * *", "Europe/Berlin");
		// 28 March 2027: 02:00 becomes 03:00, 02:30 does not exist: no tick that day
		assertThat(ticks(berlin, ZonedDateTime.parse("2027-03-27T12:00+01:00[Europe/Berlin]"), 2))
			.extracting(ZonedDateTime::toOffsetDateTime)
			.extracting(Object::toString)
			.containsExactly("2027-03-29T02:30+02:00", "2027-03-30T02:30+02:00");
		// 31 October 2027: 03:00 becomes 02:00, 02:30 comes twice and fires twice, an hour apart
		assertThat(ticks(berlin, ZonedDateTime.parse("2027-10-30T12:00+02:00[Europe/Berlin]"), 3))
			.extracting(ZonedDateTime::toOffsetDateTime)
			.extracting(Object::toString)
			.containsExactly("2027-10-31T02:30+02:00", "2027-10-31T02:30+01:00", "2027-11-01T02:30+01:00");
		RecurringSchedule newYork = RecurringSchedule.cron("0 30 2 * * *", "America/New_York");
		assertThat(ticks(newYork, ZonedDateTime.parse("2027-03-13T12:00-05:00[America/New_York]"), 2))
			.extracting(ZonedDateTime::toOffsetDateTime)
			.extracting(Object::toString)
			.containsExactly("2027-03-15T02:30-04:00", "2027-03-16T02:30-04:00");
		assertThat(ticks(newYork, ZonedDateTime.parse("2027-11-06T12:00-04:00[America/New_York]"), 2))
			.extracting(ZonedDateTime::toOffsetDateTime)
			.extracting(Object::toString)
			.containsExactly("2027-11-07T02:30-05:00", "2027-11-08T02:30-05:00");
		// New York repeats 01:00-02:00 instead: 01:30 comes twice, and fires twice
		assertThat(ticks(RecurringSchedule.cron("0 30 1 * * *", "America/New_York"),
				ZonedDateTime.parse("2027-11-06T12:00-04:00[America/New_York]"), 3))
			.extracting(ZonedDateTime::toOffsetDateTime)
			.extracting(Object::toString)
			.containsExactly("2027-11-07T01:30-04:00", "2027-11-07T01:30-05:00", "2027-11-08T01:30-05:00");
	}

	@Test
	void aFixedRateTicksAtTheMultiplesOfItsPeriodSinceTheEpoch() {
		RecurringSchedule every = RecurringSchedule.every(Duration.ofMinutes(5));
		assertThat(every.next(Instant.parse("2027-03-28T01:02:03.456Z"))).isEqualTo(Instant.parse("2027-03-28T01:05:00Z"));
		assertThat(every.next(Instant.parse("2027-03-28T01:05:00Z"))).isEqualTo(Instant.parse("2027-03-28T01:10:00Z"));
	}

	@Test
	void aScheduleReadsAsPeopleWriteDurations() {
		assertThat(RecurringSchedule.every(Duration.ofSeconds(15))).hasToString("every 15s");
		assertThat(RecurringSchedule.every(Duration.ofMinutes(90))).hasToString("every 1h30m");
		assertThat(RecurringSchedule.fixedDelay(Duration.ofMillis(1500))).hasToString("fixed delay 1s500ms");
		assertThat(RecurringSchedule.cron("0 0 2 * * *", "Europe/Berlin")).hasToString("cron '0 0 2 * * *' in Europe/Berlin");
	}

	@Test
	void badSchedulesAreRefusedNamingTheField() {
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.cron(" ", "UTC"))
			.withMessage("cron must not be blank");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.cron("0 0 * * *", "UTC"))
			.withMessageStartingWith("cron '0 0 * * *' is not a valid cron expression");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.cron("0 0\n* * * *", "UTC"))
			.withMessageContaining("must not contain control characters");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.cron("@daily", "Europe/Nowhere"))
			.withMessageStartingWith("zone 'Europe/Nowhere' is not a time zone id");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.every(Duration.ofDays(400)))
			.withMessageStartingWith("every must be between PT1S and PT8784H");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.every(Duration.ofNanos(1_000_500_000L)))
			.withMessage("every must be whole milliseconds, was PT1.0005S");
	}

}
