package io.github.delayqueue.redis;

import java.io.ByteArrayOutputStream;
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
 * A recurring job's record in the bucket's {@code recurring} hash, as {@code recurring.lua}
 * describes it: a header line the script keeps (version, paused, counts, last occurrence), then
 * the spec, which only Java reads: one {@code key=value} line per field, an empty line, and the
 * payload bytes. Header names and values, the cron expression and the zone contain no line
 * breaks (the rules refuse control characters), so the first empty line ends the fields.
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
	 * @param name the definition's name (the hash field)
	 * @param record the value
	 * @return the record
	 * @throws IllegalStateException when it is not in this format
	 */
	static RecurringRecord decode(String name, byte[] record) {
		int nl = indexOf(record, (byte) '\n', 0);
		if (nl < 0) {
			throw new IllegalStateException("The recurring job " + name + " has no header line");
		}
		String[] header = new String(record, 0, nl, StandardCharsets.UTF_8).split(",", HEADER_FIELDS);
		if (header.length != HEADER_FIELDS) {
			throw new IllegalStateException("The recurring job " + name + " has a header of another format");
		}
		RecurringJob job = decodeSpec(name, Arrays.copyOfRange(record, nl + 1, record.length));
		try {
			return new RecurringRecord(Long.parseLong(header[0]), Long.parseLong(header[1]), "1".equals(header[2]),
					Long.parseLong(header[3]), Long.parseLong(header[4]), Long.parseLong(header[5]),
					Long.parseLong(header[6]), Long.parseLong(header[7]), header[8], job);
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException("The recurring job " + name + " has a header of another format", ex);
		}
	}

	/**
	 * The gen of a record whose spec may not be readable.
	 * @param record the value
	 * @return the gen, or -1 when the header is not in this format either
	 */
	static long genOf(byte[] record) {
		int nl = indexOf(record, (byte) '\n', 0);
		if (nl < 0) {
			return -1;
		}
		String[] header = new String(record, 0, nl, StandardCharsets.UTF_8).split(",", HEADER_FIELDS);
		try {
			return (header.length == HEADER_FIELDS) ? Long.parseLong(header[1]) : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/**
	 * The spec of a definition: its fields and payload, the part of the record the script
	 * compares but never reads.
	 * @param job the definition
	 * @return the bytes
	 */
	@SuppressWarnings("NullAway") // a schedule without a period or a delay is a cron
	static byte[] encodeSpec(RecurringJob job) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(256 + job.getPayload().length);
		line(out, "v", "1");
		line(out, "topic", job.getTopic());
		RecurringSchedule schedule = job.getSchedule();
		if (schedule.getPeriod() != null) {
			line(out, "every", Long.toString(schedule.getPeriod().toMillis()));
		}
		else if (schedule.getDelay() != null) {
			line(out, "delay", Long.toString(schedule.getDelay().toMillis()));
		}
		else {
			line(out, "cron", schedule.getCron());
			line(out, "zone", schedule.getZone().getId());
		}
		if (job.getTtr() != null) {
			line(out, "ttr", Long.toString(job.getTtr().toMillis()));
		}
		if (job.getMaxAttempts() != null) {
			line(out, "max", job.getMaxAttempts().toString());
		}
		line(out, "misfire", job.getMisfirePolicy().name());
		line(out, "threshold", Long.toString(job.getMisfireThreshold().toMillis()));
		line(out, "catchup", Integer.toString(job.getMaxCatchUp()));
		line(out, "overlap", job.getOverlapPolicy().name());
		if (job.isDeclared()) {
			line(out, "declared", "1");
		}
		job.getHeaders().forEach((name, value) -> line(out, "h." + name, value));
		out.write('\n');
		out.writeBytes(job.getPayload());
		return out.toByteArray();
	}

	private static void line(ByteArrayOutputStream out, String key, String value) {
		out.writeBytes(key.getBytes(StandardCharsets.UTF_8));
		out.write('=');
		out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
		out.write('\n');
	}

	@SuppressWarnings("NullAway") // the builder refuses a spec without its topic or schedule: unreadable
	private static RecurringJob decodeSpec(String name, byte[] spec) {
		Map<String, String> fields = new LinkedHashMap<>();
		Map<String, String> headers = new LinkedHashMap<>();
		int at = 0;
		while (true) {
			int nl = indexOf(spec, (byte) '\n', at);
			if (nl < 0) {
				throw new IllegalStateException("The recurring job " + name + " has a spec without an end of its fields");
			}
			if (nl == at) {
				at = nl + 1;
				break;
			}
			String line = new String(spec, at, nl - at, StandardCharsets.UTF_8);
			int eq = line.indexOf('=');
			if (eq < 0) {
				throw new IllegalStateException("The recurring job " + name + " has a spec line without '=': " + line);
			}
			String key = line.substring(0, eq);
			if (key.startsWith("h.")) {
				headers.put(key.substring(2), line.substring(eq + 1));
			}
			else {
				fields.put(key, line.substring(eq + 1));
			}
			at = nl + 1;
		}
		RecurringJob.Builder builder = RecurringJob.builder(name)
			.topic(fields.get("topic"))
			.payload(Arrays.copyOfRange(spec, at, spec.length))
			.headers(headers)
			.misfirePolicy(MisfirePolicy.valueOf(fields.getOrDefault("misfire", MisfirePolicy.FIRE_ONCE.name())))
			.overlapPolicy(OverlapPolicy.valueOf(fields.getOrDefault("overlap", OverlapPolicy.ALLOW.name())))
			.declared("1".equals(fields.get("declared")));
		if (fields.containsKey("every")) {
			builder.every(Duration.ofMillis(Long.parseLong(fields.get("every"))));
		}
		else if (fields.containsKey("delay")) {
			builder.fixedDelay(Duration.ofMillis(Long.parseLong(fields.get("delay"))));
		}
		else {
			builder.cron(fields.get("cron"), fields.get("zone"));
		}
		if (fields.containsKey("ttr")) {
			builder.ttr(Duration.ofMillis(Long.parseLong(fields.get("ttr"))));
		}
		if (fields.containsKey("max")) {
			builder.maxAttempts(Integer.parseInt(fields.get("max")));
		}
		if (fields.containsKey("threshold")) {
			builder.misfireThreshold(Duration.ofMillis(Long.parseLong(fields.get("threshold"))));
		}
		if (fields.containsKey("catchup")) {
			builder.maxCatchUp(Integer.parseInt(fields.get("catchup")));
		}
		return builder.build();
	}

	private static int indexOf(byte[] bytes, byte value, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == value) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * The record as the API shows it.
	 * @param nextTick the next tick in ms, or -1
	 * @param lastState the state letter of the last occurrence, or empty when it is gone
	 * @return the view
	 */
	RecurringJobInfo info(long nextTick, String lastState) {
		String lastId = this.lastKey.isEmpty() ? null : this.lastKey.substring(this.lastKey.indexOf(':') + 1);
		@Nullable JobState state = lastState.isEmpty() ? null : JobState.fromCode(lastState.charAt(0));
		return new RecurringJobInfo(this.job, this.version, this.paused,
				(nextTick >= 0) ? Instant.ofEpochMilli(nextTick) : null, this.fired, this.skipped, this.misfired,
				(this.lastTick >= 0) ? Instant.ofEpochMilli(this.lastTick) : null, lastId,
				(lastId != null) ? state : null);
	}

}
