package io.github.delayqueue.recurring;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.support.CronExpression;

/**
 * When a recurring job ticks: a cron expression in a time zone (Spring's
 * {@link CronExpression}, six fields from seconds, macros such as {@code @daily}), a fixed
 * rate, or a fixed delay. Fixed-rate ticks are the multiples of the period since
 * 1970-01-01T00:00:00Z, so every instance, and every restart, agrees on them:
 * {@code every(5 minutes)} ticks at :00, :05, :10 and so on. A fixed delay creates the next
 * occurrence, due after the delay, once the previous one has left the queue (finished,
 * cancelled or DEAD), as seen by the timer, which looks every second at most (or every delay,
 * when shorter) while an occurrence is due or running. Immutable.
 *
 * <p>
 * Daylight-saving changes are as {@link CronExpression} defines them: a time that does not
 * exist on a spring-forward night (02:30 in Europe/Berlin on the last Sunday of March) does not
 * fire that day; a time that exists twice on a fall-back night fires once, at its first
 * instance (the earlier offset). A fixed rate ignores zones.
 */
public final class RecurringSchedule {

	/** The shortest fixed rate. */
	public static final Duration MIN_PERIOD = Duration.ofSeconds(1);

	/** The longest fixed rate. */
	public static final Duration MAX_PERIOD = Duration.ofDays(366);

	private final @Nullable String cron;

	private final @Nullable CronExpression expression;

	private final ZoneId zone;

	private final @Nullable Duration period;

	private final @Nullable Duration delay;

	private RecurringSchedule(@Nullable String cron, @Nullable CronExpression expression, ZoneId zone,
			@Nullable Duration period, @Nullable Duration delay) {
		this.cron = cron;
		this.expression = expression;
		this.zone = zone;
		this.period = period;
		this.delay = delay;
	}

	/**
	 * A cron schedule.
	 * @param cron six fields (second, minute, hour, day of month, month, day of week) or a
	 * macro, as {@link CronExpression#parse} reads them
	 * @param zone the time zone its fields are read in
	 * @return the schedule
	 * @throws IllegalArgumentException for an expression {@link CronExpression} refuses, or
	 * a missing zone
	 */
	public static RecurringSchedule cron(String cron, ZoneId zone) {
		if (cron == null || cron.isBlank()) {
			throw new IllegalArgumentException("cron must not be blank");
		}
		if (zone == null) {
			throw new IllegalArgumentException("zone must not be null");
		}
		if (cron.chars().anyMatch(Character::isISOControl)) {
			throw new IllegalArgumentException("cron '" + cron.strip() + "' must not contain control characters");
		}
		CronExpression expression;
		try {
			expression = CronExpression.parse(cron.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("cron '" + cron + "' is not a valid cron expression (six fields, from "
					+ "seconds, as Spring's CronExpression reads them): " + ex.getMessage(), ex);
		}
		return new RecurringSchedule(cron.trim(), expression, zone, null, null);
	}

	/**
	 * A cron schedule in a time zone named by its id.
	 * @param cron the expression, see {@link #cron(String, ZoneId)}
	 * @param zone a zone id such as {@code Europe/Berlin} or {@code UTC}
	 * @return the schedule
	 * @throws IllegalArgumentException for a bad expression or an unknown zone
	 */
	public static RecurringSchedule cron(String cron, String zone) {
		return cron(cron, zone(zone));
	}

	/**
	 * A fixed rate: ticks at the multiples of the period since the epoch.
	 * @param period from {@link #MIN_PERIOD} to {@link #MAX_PERIOD}, whole milliseconds
	 * @return the schedule
	 * @throws IllegalArgumentException for a period out of range
	 */
	public static RecurringSchedule every(Duration period) {
		return new RecurringSchedule(null, null, ZoneOffset.UTC, checked("every", period), null);
	}

	/**
	 * A fixed delay: the next occurrence is due this long after the previous one left the
	 * queue. The first is due this long after the definition was put (or resumed).
	 * @param delay from {@link #MIN_PERIOD} to {@link #MAX_PERIOD}, whole milliseconds
	 * @return the schedule
	 * @throws IllegalArgumentException for a delay out of range
	 */
	public static RecurringSchedule fixedDelay(Duration delay) {
		return new RecurringSchedule(null, null, ZoneOffset.UTC, null, checked("fixedDelay", delay));
	}

	private static Duration checked(String field, Duration value) {
		if (value == null) {
			throw new IllegalArgumentException(field + " must not be null");
		}
		if (value.compareTo(MIN_PERIOD) < 0 || value.compareTo(MAX_PERIOD) > 0) {
			throw new IllegalArgumentException(
					field + " must be between " + MIN_PERIOD + " and " + MAX_PERIOD + ", was " + value);
		}
		if (value.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException(field + " must be whole milliseconds, was " + value);
		}
		return value;
	}

	/**
	 * Reads a zone id.
	 * @param zone the id
	 * @return the zone
	 * @throws IllegalArgumentException naming the field for an unknown or blank id
	 */
	public static ZoneId zone(String zone) {
		if (zone == null || zone.isBlank()) {
			throw new IllegalArgumentException("zone must not be blank");
		}
		try {
			return ZoneId.of(zone.trim());
		}
		catch (DateTimeException ex) {
			throw new IllegalArgumentException("zone '" + zone + "' is not a time zone id (such as Europe/Berlin or UTC): "
					+ ex.getMessage(), ex);
		}
	}

	/**
	 * The first tick after a moment. A fixed delay's ticks are when the timer looks at the
	 * previous occurrence: the first is right after the moment.
	 * @param after the moment (exclusive)
	 * @return the tick, or {@code null} when the schedule has no more ticks (a cron expression
	 * for a date that never comes)
	 */
	public @Nullable Instant next(Instant after) {
		if (this.delay != null) {
			return after.plusMillis(1);
		}
		if (this.period != null) {
			long periodMillis = this.period.toMillis();
			long at = after.toEpochMilli();
			return Instant.ofEpochMilli(Math.floorDiv(at, periodMillis) * periodMillis + periodMillis);
		}
		ZonedDateTime next = Objects.requireNonNull(this.expression).next(ZonedDateTime.ofInstant(after, this.zone));
		return (next != null) ? next.toInstant() : null;
	}

	/**
	 * The cron expression as given (trimmed).
	 * @return the expression, or {@code null} for a fixed rate
	 */
	public @Nullable String getCron() {
		return this.cron;
	}

	/**
	 * The time zone of a cron schedule ({@code UTC} for a fixed rate).
	 * @return the zone
	 */
	public ZoneId getZone() {
		return this.zone;
	}

	/**
	 * The period of a fixed rate.
	 * @return the period, or {@code null} for another schedule
	 */
	public @Nullable Duration getPeriod() {
		return this.period;
	}

	/**
	 * The delay of a fixed delay.
	 * @return the delay, or {@code null} for another schedule
	 */
	public @Nullable Duration getDelay() {
		return this.delay;
	}

	@Override
	public boolean equals(@Nullable Object other) {

		return (other instanceof RecurringSchedule that) && Objects.equals(this.cron, that.cron)
				&& this.zone.equals(that.zone) && Objects.equals(this.period, that.period)
				&& Objects.equals(this.delay, that.delay);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.cron, this.zone, this.period, this.delay);
	}

	@Override
	public String toString() {
		if (this.delay != null) {
			return "fixed delay " + DurationFormatterUtils.print(this.delay, DurationFormat.Style.COMPOSITE);
		}
		return (this.period != null) ? "every " + DurationFormatterUtils.print(this.period, DurationFormat.Style.COMPOSITE)
				: "cron '" + this.cron + "' in " + this.zone;
	}

}
