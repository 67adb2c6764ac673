package io.github.delayqueue.core;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * At most {@code permits} jobs of a topic handed out in any window of {@code per}, across
 * all instances that consume the topic, enforced in Redis when jobs are reserved. Written as
 * {@code <permits>/<per>}, such as {@code 50/1s}, {@code 100/s} or {@code 1000/PT1H}.
 *
 * @param permits the most jobs handed out in one window (1 to {@value #MAX_PERMITS})
 * @param per the window (1 s to 1 day, whole milliseconds)
 */
public record RateLimit(int permits, Duration per) {

	/** The most jobs one window may hold. */
	public static final int MAX_PERMITS = 100_000;

	/** The shortest window. */
	public static final Duration MIN_PER = Duration.ofSeconds(1);

	/** The longest window. */
	public static final Duration MAX_PER = Duration.ofDays(1);

	/** How long after its permits were granted a reserve may take jobs. */
	public static final Duration MARGIN = Duration.ofMillis(50);

	private static final Pattern TEXT = Pattern.compile("\\s*(\\d{1,9})\\s*/\\s*(\\S+)\\s*");

	/**
	 * Checks the limit.
	 * @throws IllegalArgumentException naming the rule a value breaks
	 */
	public RateLimit {
		JobConstraints.max("permits", permits, MAX_PERMITS);
		JobConstraints.notNull("per", per);
		if (per.compareTo(MIN_PER) < 0 || per.compareTo(MAX_PER) > 0 || per.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException("per must be whole milliseconds between " + JobConstraints.text(MIN_PER)
					+ " and " + JobConstraints.text(MAX_PER) + ", was " + JobConstraints.text(per));
		}
	}

	/**
	 * Reads a limit written as {@code <permits>/<per>}.
	 * @param text the text
	 * @return the limit
	 * @throws IllegalArgumentException for a text that is no limit, or a limit out of range
	 */
	public static RateLimit parse(@Nullable String text) {
		Matcher matcher = (text != null) ? TEXT.matcher(text) : null;
		if (matcher == null || !matcher.matches()) {
			throw new IllegalArgumentException(
					"rate limit must be <permits>/<interval> such as 50/1s, 100/s or 600/1m, was '" + text + "'");
		}
		String unit = matcher.group(2);
		Duration per;
		try {
			per = Character.isDigit(unit.charAt(0)) || unit.startsWith("P") || unit.startsWith("p")
					? DurationFormatterUtils.detectAndParse(unit) : DurationFormatterUtils.detectAndParse("1" + unit);
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			throw new IllegalArgumentException("rate limit must be <permits>/<interval> such as 50/1s, 100/s or"
					+ " 600/1m: '" + unit + "' in '" + text + "' is no interval");
		}
		return new RateLimit(Integer.parseInt(matcher.group(1)), per);
	}

	@Override
	public String toString() {
		return this.permits + "/" + JobConstraints.text(this.per);
	}

}
