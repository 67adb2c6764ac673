package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.JobState;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringSchedule;

/**
 * A recurring job's record in the bucket's {@code recurring} hash: the header line
 * {@code recurring.lua} keeps, then the spec only Java reads ({@code key=value} lines, an empty
 * line, the payload).
 *
 * @param version the definition's version
 * @param gen what a firing must name to fire this version
 * @param paused whether it is paused
 * @param fired occurrences created
 * @param skipped ticks that created none
 * @param misfired ticks fired late
 * @param lastTick the tick of the last occurrence in ms, or -1
 * @param lastScheduled the latest tick fired by the schedule, or -1
 * @param lastKey the job key of the last occurrence, or empty
 * @param job the definition
 */
record RecurringRecord(long version, long gen, boolean paused, long fired, long skipped, long misfired, long lastTick,
		long lastScheduled, String lastKey, RecurringJob job) {

	private static final int HEADER_FIELDS = 9;

	/**
	 * Reads a record.
	 * @throws IllegalStateException when it is not in this format
	 */
	static RecurringRecord decode(String name, byte[] record) {
		String[] header = header(record);
		if (header == null) {
			throw new IllegalStateException("The recurring job " + name + " has a header of another format");
		}
		RecurringJob job = decodeSpec(name, Arrays.copyOfRange(record, indexOf(record, 0) + 1, record.length));
		return new RecurringRecord(Long.parseLong(header[0]), Long.parseLong(header[1]), "1".equals(header[2]),
				Long.parseLong(header[3]), Long.parseLong(header[4]), Long.parseLong(header[5]),
				Long.parseLong(header[6]), Long.parseLong(header[7]), header[8], job);
	}

	/** The gen of a record whose spec may not be readable, or -1 when its header is not either. */
	static long genOf(byte[] record) {
		String[] header = header(record);
		return (header != null) ? Long.parseLong(header[1]) : -1;
	}

	private static String @Nullable [] header(byte[] record) {
		int nl = indexOf(record, 0);
		String[] header = (nl < 0) ? new String[0]
				: new String(record, 0, nl, StandardCharsets.UTF_8).split(",", HEADER_FIELDS);
		if (header.length != HEADER_FIELDS) {
			return null;
		}
		try {
			for (int i = 0; i < HEADER_FIELDS - 1; i++) {
				Long.parseLong(header[i]);
			}
		}
		catch (NumberFormatException ex) {
			return null;
		}
		return header;
	}

	/** The spec of a definition: its fields and payload, which the script compares but never reads. */
	@SuppressWarnings("NullAway") // a schedule without a period or a delay is a cron
	static byte[] encodeSpec(RecurringJob job) {
		StringBuilder text = new StringBuilder();
		line(text, "v", "1");
		line(text, "topic", job.getTopic());
		RecurringSchedule schedule = job.getSchedule();
		if (schedule.getPeriod() != null) {
			line(text, "every", schedule.getPeriod().toMillis());
		}
		else if (schedule.getDelay() != null) {
			line(text, "delay", schedule.getDelay().toMillis());
		}
		else {
			line(text, "cron", schedule.getCron());
			line(text, "zone", schedule.getZone().getId());
		}
		if (job.getTtr() != null) {
			line(text, "ttr", job.getTtr().toMillis());
		}
		if (job.getMaxAttempts() != null) {
			line(text, "max", job.getMaxAttempts());
		}
		line(text, "misfire", job.getMisfirePolicy().name());
		line(text, "threshold", job.getMisfireThreshold().toMillis());
		line(text, "catchup", job.getMaxCatchUp());
		line(text, "overlap", job.getOverlapPolicy().name());
		if (job.isDeclared()) {
			line(text, "declared", "1");
		}
		job.getHeaders().forEach((name, value) -> line(text, "h." + name, value));
		byte[] fields = text.append('\n').toString().getBytes(StandardCharsets.UTF_8);
		byte[] payload = job.getPayload();
		byte[] spec = Arrays.copyOf(fields, fields.length + payload.length);
		System.arraycopy(payload, 0, spec, fields.length, payload.length);
		return spec;
	}

	private static void line(StringBuilder text, String key, Object value) {
		text.append(key).append('=').append(value).append('\n');
	}

	@SuppressWarnings("NullAway") // the builder refuses a spec without its topic or schedule: unreadable
	private static RecurringJob decodeSpec(String name, byte[] spec) {
		Map<String, String> fields = new LinkedHashMap<>();
		Map<String, String> headers = new LinkedHashMap<>();
		int at = 0;
		for (int nl = indexOf(spec, at); nl != at; nl = indexOf(spec, at)) {
			if (nl < 0) {
				throw new IllegalStateException("The recurring job " + name + " has a spec without an end of its fields");
			}
			String line = new String(spec, at, nl - at, StandardCharsets.UTF_8);
			int eq = line.indexOf('=');
			if (eq < 0) {
				throw new IllegalStateException("The recurring job " + name + " has a spec line without '=': " + line);
			}
			boolean header = line.startsWith("h.");
			(header ? headers : fields).put(line.substring(header ? 2 : 0, eq), line.substring(eq + 1));
			at = nl + 1;
		}
		RecurringJob.Builder builder = RecurringJob.builder(name)
			.topic(fields.get("topic"))
			.payload(Arrays.copyOfRange(spec, at + 1, spec.length))
			.headers(headers)
			.misfirePolicy(MisfirePolicy.valueOf(fields.getOrDefault("misfire", MisfirePolicy.FIRE_ONCE.name())))
			.overlapPolicy(OverlapPolicy.valueOf(fields.getOrDefault("overlap", OverlapPolicy.ALLOW.name())))
			.declared("1".equals(fields.get("declared")));
		if (fields.containsKey("every")) {
			builder.every(millis(fields.get("every")));
		}
		else if (fields.containsKey("delay")) {
			builder.fixedDelay(millis(fields.get("delay")));
		}
		else {
			builder.cron(fields.get("cron"), fields.get("zone"));
		}
		if (fields.containsKey("ttr")) {
			builder.ttr(millis(fields.get("ttr")));
		}
		if (fields.containsKey("max")) {
			builder.maxAttempts(Integer.parseInt(fields.get("max")));
		}
		if (fields.containsKey("threshold")) {
			builder.misfireThreshold(millis(fields.get("threshold")));
		}
		if (fields.containsKey("catchup")) {
			builder.maxCatchUp(Integer.parseInt(fields.get("catchup")));
		}
		return builder.build();
	}

	private static Duration millis(String value) {
		return Duration.ofMillis(Long.parseLong(value));
	}

	private static int indexOf(byte[] bytes, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == '\n') {
				return i;
			}
		}
		return -1;
	}

	/** The record as the API shows it, given its next tick (-1: none) and last occurrence's state letter. */
	RecurringJobInfo info(long nextTick, String lastState) {
		String lastId = this.lastKey.isEmpty() ? null : this.lastKey.substring(this.lastKey.indexOf(':') + 1);
		@Nullable JobState state = lastState.isEmpty() ? null : JobState.fromCode(lastState.charAt(0));
		return new RecurringJobInfo(this.job, this.version, this.paused,
				(nextTick >= 0) ? Instant.ofEpochMilli(nextTick) : null, this.fired, this.skipped, this.misfired,
				(this.lastTick >= 0) ? Instant.ofEpochMilli(this.lastTick) : null, lastId,
				(lastId != null) ? state : null);
	}

}
