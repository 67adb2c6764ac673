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
import org.springframework.util.Assert;

/**
 * When a recurring job ticks: a Spring {@link CronExpression} in a time zone, a fixed rate
 * ticking at the multiples of the period since the epoch, or a fixed delay after the previous
 * occurrence left the queue. Immutable.
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
	 * @param cron six fields from seconds, or a macro, as {@link CronExpression#parse} reads them
	 * @param zone the time zone its fields are read in
	 * @return the schedule
	 * @throws IllegalArgumentException for an expression {@link CronExpression} refuses, or no zone
	 */
	public static RecurringSchedule cron(String cron, ZoneId zone) {
		Assert.hasText(cron, "cron must not be blank");
		Assert.notNull(zone, "zone must not be null");
		Assert.isTrue(cron.chars().noneMatch(Character::isISOControl),
				() -> "cron '" + cron.strip() + "' must not contain control characters");
		try {
			return new RecurringSchedule(cron.trim(), CronExpression.parse(cron.trim()), zone, null, null);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("cron '" + cron + "' is not a valid cron expression (six fields, from "
					+ "seconds, as Spring's CronExpression reads them): " + ex.getMessage(), ex);
		}
	}

	/** {@link #cron(String, ZoneId)} in a zone named by its id ({@link #zone(String)}). */
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
	 * A fixed delay: each occurrence is due this long after the previous one left the queue
	 * (the first, after the put or resume).
	 * @param delay from {@link #MIN_PERIOD} to {@link #MAX_PERIOD}, whole milliseconds
	 * @return the schedule
	 * @throws IllegalArgumentException for a delay out of range
	 */
	public static RecurringSchedule fixedDelay(Duration delay) {
		return new RecurringSchedule(null, null, ZoneOffset.UTC, null, checked("fixedDelay", delay));
	}

	private static Duration checked(String field, Duration value) {
		Assert.notNull(value, () -> field + " must not be null");
		Assert.isTrue(value.compareTo(MIN_PERIOD) >= 0 && value.compareTo(MAX_PERIOD) <= 0,
				() -> field + " must be between " + MIN_PERIOD + " and " + MAX_PERIOD + ", was " + value);
		Assert.isTrue(value.toNanos() % 1_000_000 == 0, () -> field + " must be whole milliseconds, was " + value);
		return value;
	}

	/** Reads a zone id such as {@code Europe/Berlin}; refuses a blank or unknown one. */
	public static ZoneId zone(String zone) {
		Assert.hasText(zone, "zone must not be blank");
		try {
			return ZoneId.of(zone.trim());
		}
		catch (DateTimeException ex) {
			throw new IllegalArgumentException("zone '" + zone + "' is not a time zone id (such as Europe/Berlin or UTC): "
					+ ex.getMessage(), ex);
		}
	}

	/**
	 * The first tick after a moment (for a fixed delay, right after it: when the timer looks).
	 * @param after the moment (exclusive)
	 * @return the tick, or {@code null} when the schedule has no more ticks
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

	/** The cron expression, trimmed, or {@code null} for another schedule. */
	public @Nullable String getCron() {
		return this.cron;
	}

	/** The time zone of a cron schedule, {@code UTC} for another schedule. */
	public ZoneId getZone() {
		return this.zone;
	}

	/** The period of a fixed rate, or {@code null} for another schedule. */
	public @Nullable Duration getPeriod() {
		return this.period;
	}

	/** The delay of a fixed delay, or {@code null} for another schedule. */
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
