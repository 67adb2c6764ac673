package io.github.delayqueue.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.JobState;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringSchedule;

/**
 * A recurring job's record: the header line {@code recurring.lua} keeps, then the spec only Java
 * reads ({@code key=value} lines, an empty line, the payload).
 */
final class RecurringRecord {

	private static final Pattern HEADER = Pattern
		.compile("(\\d+),(\\d+),([01]),(\\d+),(\\d+),(\\d+),(-?\\d+),(-?\\d+),(.*)");

	private RecurringRecord() {
	}

	/** Reads a definition from {@code at} of a {@code recurring.lua} reply: record, next tick (-1: none), state letter. */
	@SuppressWarnings("NullAway") // the script's reply has these values; job() refuses a header of another format
	static RecurringJobInfo decode(String name, List<Object> reply, int at) {
		byte[] record = ScriptReplies.asBytes(reply.get(at));
		String lastState = ScriptReplies.asString(reply.get(at + 2));
		RecurringJob job = job(name, record);
		Matcher header = header(record);
		String lastKey = header.group(9);
		String lastId = lastKey.isEmpty() ? null : lastKey.substring(lastKey.indexOf(':') + 1);
		long nextTick = ScriptReplies.asLong(reply.get(at + 1));
		return new RecurringJobInfo(job, Long.parseLong(header.group(1)), "1".equals(header.group(3)),
				instant(nextTick), Long.parseLong(header.group(4)), Long.parseLong(header.group(5)),
				Long.parseLong(header.group(6)), instant(Long.parseLong(header.group(7))), lastId,
				(lastId != null && !lastState.isEmpty()) ? JobState.fromCode(lastState.charAt(0)) : null);
	}

	/** The gen of a record whose spec may not be readable, or -1 when its header is not either. */
	static long genOf(byte[] record) {
		Matcher header = header(record);
		return (header != null) ? Long.parseLong(header.group(2)) : -1;
	}

	private static @Nullable Matcher header(byte[] record) {
		int nl = newline(record, 0);
		Matcher header = HEADER.matcher((nl < 0) ? "" : new String(record, 0, nl, StandardCharsets.UTF_8));
		return header.matches() ? header : null;
	}

	private static @Nullable Instant instant(long millis) {
		return (millis >= 0) ? Instant.ofEpochMilli(millis) : null;
	}

	/** The spec of a definition: its fields and payload. */
	@SuppressWarnings("NullAway") // a schedule without a period or a delay is a cron
	static byte[] encodeSpec(RecurringJob job) {
		StringBuilder text = new StringBuilder();
		RecurringSchedule schedule = job.getSchedule();
		line(text, "v", "1");
		line(text, "topic", job.getTopic());
		line(text, "every", (schedule.getPeriod() != null) ? schedule.getPeriod().toMillis() : null);
		line(text, "delay", (schedule.getDelay() != null) ? schedule.getDelay().toMillis() : null);
		line(text, "cron", schedule.getCron());
		line(text, "zone", (schedule.getCron() != null) ? schedule.getZone().getId() : null);
		line(text, "ttr", (job.getTtr() != null) ? job.getTtr().toMillis() : null);
		line(text, "max", job.getMaxAttempts());
		line(text, "misfire", job.getMisfirePolicy().name());
		line(text, "threshold", job.getMisfireThreshold().toMillis());
		line(text, "catchup", job.getMaxCatchUp());
		line(text, "overlap", job.getOverlapPolicy().name());
		line(text, "declared", job.isDeclared() ? "1" : null);
		job.getHeaders().forEach((name, value) -> line(text, "h." + name, value));
		byte[] fields = text.append('\n').toString().getBytes(StandardCharsets.UTF_8);
		byte[] payload = job.getPayload();
		return ByteBuffer.allocate(fields.length + payload.length).put(fields).put(payload).array();
	}

	/** Appends {@code key=value}, unless the value is {@code null}. */
	private static void line(StringBuilder text, String key, @Nullable Object value) {
		if (value != null) {
			text.append(key).append('=').append(value).append('\n');
		}
	}

	/** The definition a record's spec describes; refuses a record whose header or spec is of another format. */
	@SuppressWarnings("NullAway") // the builder refuses a spec without its topic or schedule: unreadable
	static RecurringJob job(String name, byte[] record) {
		if (header(record) == null) {
			throw new IllegalStateException("The recurring job " + name + " has a header of another format");
		}
		RecurringJob.Builder builder = RecurringJob.builder(name);
		Map<String, String> fields = new HashMap<>();
		int at = newline(record, 0) + 1;
		for (int nl = newline(record, at); nl != at; at = nl + 1, nl = newline(record, at)) {
			String line = (nl < 0) ? "" : new String(record, at, nl - at, StandardCharsets.UTF_8);
			int eq = line.indexOf('=');
			if (eq < 0) {
				throw new IllegalStateException("The recurring job " + name + " has a malformed spec line '" + line + "'");
			}
			if (line.startsWith("h.")) {
				builder.header(line.substring(2, eq), line.substring(eq + 1));
			}
			else {
				fields.put(line.substring(0, eq), line.substring(eq + 1));
			}
		}
		String every = fields.get("every");
		String delay = fields.get("delay");
		builder.topic(fields.get("topic"))
			.payload(Arrays.copyOfRange(record, at + 1, record.length))
			.misfirePolicy(MisfirePolicy.valueOf(fields.getOrDefault("misfire", MisfirePolicy.FIRE_ONCE.name())))
			.overlapPolicy(OverlapPolicy.valueOf(fields.getOrDefault("overlap", OverlapPolicy.ALLOW.name())))
			.declared("1".equals(fields.get("declared")))
			.schedule((every != null) ? RecurringSchedule.every(millis(every))
					: (delay != null) ? RecurringSchedule.fixedDelay(millis(delay))
							: RecurringSchedule.cron(fields.get("cron"), fields.get("zone")));
		Optional.ofNullable(fields.get("ttr")).ifPresent((ttr) -> builder.ttr(millis(ttr)));
		Optional.ofNullable(fields.get("max")).ifPresent((max) -> builder.maxAttempts(Integer.parseInt(max)));
		Optional.ofNullable(fields.get("threshold")).ifPresent((t) -> builder.misfireThreshold(millis(t)));
		Optional.ofNullable(fields.get("catchup")).ifPresent((n) -> builder.maxCatchUp(Integer.parseInt(n)));
		return builder.build();
	}

	private static Duration millis(String value) {
		return Duration.ofMillis(Long.parseLong(value));
	}

	private static int newline(byte[] record, int from) {
		return StoredPayload.indexOf(record, (byte) '\n', from);
	}

}
