package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The finished jobs that topics keep ({@link Retention}), in two keys per topic in a slot of
 * the topic's own ({@link KeySpace#completed}, {@link KeySpace#completedOrder}), written by
 * {@code completed.lua} right after the finish script of the jobs' bucket said they finished,
 * from the records and the finish time that script answered. Only the topics whose retention
 * this instance knows are read or written: an instance without one sends no command for them.
 *
 * <p>
 * The record is a second call, not part of the finish: between the two calls {@code find}
 * answers "no such job", and a process that dies between them, or a Redis that fails the
 * second, leaves a job finished (gone from its bucket) with no record. That is logged, and never makes a finish fail. A record older than
 * the one kept (a late second call of an earlier run) does not replace it. Thread-safe.
 */
final class CompletedJobs {

	/** The most jobs one {@code completed.lua} call adds. */
	static final int BATCH = 1_000;

	/** The most record bytes one {@code completed.lua} call adds (payloads kept); more are split. */
	static final long BATCH_BYTES = 4L << 20;

	private static final Log logger = LogFactory.getLog(CompletedJobs.class);

	private static final LuaScript COMPLETED = LuaScript.of("completed", 2);

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final Map<String, Retention> retention;

	private final OnceAMinute warning = new OnceAMinute(logger);

	/**
	 * Creates the history of a namespace.
	 * @param runner the runner to call Redis with
	 * @param keys the key space
	 * @param retention the retention of each topic that keeps finished jobs
	 */
	CompletedJobs(ScriptRunner runner, KeySpace keys, Map<String, Retention> retention) {
		this.runner = runner;
		this.keys = keys;
		this.retention = Map.copyOf(retention);
	}

	/**
	 * The retention of a topic.
	 * @param topic the topic
	 * @return its retention, or {@code null} when it keeps no finished jobs
	 */
	@Nullable Retention retentionOf(String topic) {
		return this.retention.get(topic);
	}

	/**
	 * Keeps jobs that have just finished, when their topic keeps finished jobs: from the
	 * records and the finish time the finish script answered (so a job finished through a
	 * reservation that knows only its token is kept as it was). A failure is logged, at most
	 * once a minute at WARN (the jobs are finished all the same).
	 * @param topic the jobs' topic
	 * @param calls the replies of the finish script calls, with the records asked for
	 */
	void add(String topic, List<ScriptReplies.Finished> calls) {
		Retention kept = this.retention.get(topic);
		if (kept == null) {
			return;
		}
		List<byte[]> arguments = new ArrayList<>();
		long bytes = 0;
		for (ScriptReplies.Finished call : calls) {
			for (int i = 0; i < call.records().size(); i++) {
				ReservedJob job = call.finished().get(i);
				byte[] record = record(call.records().get(i), job, call.finishedAt(), kept.payloads());
				if (record == null) {
					continue;
				}
				arguments.add(KeySpace.bytes(KeySpace.jobKey(topic, job.id())));
				arguments.add(KeySpace.bytes(String.valueOf(call.finishedAt())));
				arguments.add(record);
				bytes += record.length;
				if (arguments.size() >= 3 * BATCH || bytes >= BATCH_BYTES) {
					addBatch(topic, kept, arguments);
					arguments.clear();
					bytes = 0;
				}
			}
		}
		if (!arguments.isEmpty()) {
			addBatch(topic, kept, arguments);
		}
	}

	private void addBatch(String topic, Retention kept, List<byte[]> jobs) {
		byte[][] call = new byte[6 + jobs.size()][];
		call[0] = this.keys.completed(topic);
		call[1] = this.keys.completedOrder(topic);
		call[2] = KeySpace.bytes("add");
		call[3] = KeySpace.bytes(String.valueOf(kept.completed()));
		call[4] = KeySpace.bytes(String.valueOf((kept.completedAge() != null) ? kept.completedAge().toMillis() : 0));
		call[5] = KeySpace.bytes(String.valueOf(Retention.TRIM_SLACK));
		for (int i = 0; i < jobs.size(); i++) {
			call[6 + i] = jobs.get(i);
		}
		try {
			this.runner.runReplicated(COMPLETED, call);
		}
		catch (RuntimeException ex) {
			this.warning.warn("Could not keep " + (jobs.size() / 3) + " finished job(s) of topic '" + topic
					+ "' (they are finished; find will not report them COMPLETED): " + ex.getMessage());
		}
	}

	/**
	 * The priority letter and attempt of a kept record from those of the bucket's record
	 * ({@code <priority><attempt>}): the attempt without the leading {@code 0} that marks a
	 * replayed job in the bucket (a finished job keeps no error), {@code 0} when empty.
	 */
	private static String keptAttempt(String field) {
		int letter = (!field.isEmpty() && !Character.isDigit(field.charAt(0))) ? 1 : 0;
		int digits = letter;
		while (digits < field.length() - 1 && field.charAt(digits) == '0') {
			digits++;
		}
		String attempt = field.substring(digits);
		return field.substring(0, letter) + (attempt.isEmpty() ? "0" : attempt);
	}

	/**
	 * The record to keep of a finished job, from the record its bucket held (RESERVED:
	 * {@code S<priority><attempt>,<max>,<ttr>,<createdAt>,<delay>,<token>\n<payload>}, see
	 * {@code lib/keys.lua}):
	 * {@code <priority><attempt>,<max>,<ttr>,<createdAt>,<dueAt>,<deliveredAt>,<finishedAt>}
	 * with the priority letter as the bucket's record has it (none for the default), the times
	 * in base 36 (deliveredAt 0 when the reservation does not know it), then
	 * {@code \n<payload>} when payloads are kept.
	 * @return the record, or {@code null} for a bucket record not in that format
	 */
	static byte @Nullable [] record(byte[] held, ReservedJob job, long finishedAt, boolean payloads) {
		int newline = StoredPayload.indexOf(held, (byte) '\n', 0);
		String header = new String(held, 1, ((newline >= 0) ? newline : held.length) - 1, StandardCharsets.US_ASCII);
		String[] fields = header.split(",", -1);
		if (fields.length != 6) {
			return null;
		}
		try {
			long created = Long.parseLong(fields[3], 36);
			long delay = Long.parseLong(fields[4], 36);
			long delivered = (job.deliveredAt() != null) ? job.deliveredAt().toEpochMilli() : 0;
			String kept = keptAttempt(fields[0]) + "," + fields[1] + "," + fields[2] + "," + fields[3]
					+ "," + Long.toString(created + delay, 36) + "," + Long.toString(Math.max(0, delivered), 36) + ","
					+ Long.toString(finishedAt, 36);
			byte[] text = KeySpace.bytes(kept);
			if (!payloads || newline < 0) {
				return text;
			}
			byte[] record = new byte[text.length + held.length - newline];
			System.arraycopy(text, 0, record, 0, text.length);
			System.arraycopy(held, newline, record, text.length, held.length - newline);
			return record;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * How many finished jobs each topic with a retention keeps: one {@code ZCARD} per topic,
	 * in one pipeline where the connection allows it; nothing for an instance that knows no
	 * retention.
	 * @return the count of each topic with a retention, by topic
	 */
	Map<String, Long> counts() {
		if (this.retention.isEmpty()) {
			return Map.of();
		}
		List<String> topics = List.copyOf(new TreeSet<>(this.retention.keySet()));
		List<Object> counts;
		try {
			counts = this.runner.execute("counting the finished jobs kept", (connection) -> {
				if (ScriptRunner.pipelines(connection)) {
					connection.openPipeline();
					topics.forEach((topic) -> connection.zSetCommands().zCard(this.keys.completedOrder(topic)));
					return connection.closePipeline();
				}
				List<Object> each = new ArrayList<>(topics.size());
				topics.forEach((topic) -> each.add(connection.zSetCommands().zCard(this.keys.completedOrder(topic))));
				return each;
			});
		}
		catch (RuntimeException ex) {
			// the queue's own figures do not depend on them (an ACL user without the keys)
			logger.debug("Could not count the finished jobs kept: " + ex.getMessage());
			return Map.of();
		}
		Map<String, Long> byTopic = new LinkedHashMap<>();
		for (int i = 0; i < topics.size(); i++) {
			byTopic.put(topics.get(i), (counts.get(i) instanceof Long count) ? count : 0L);
		}
		return Collections.unmodifiableMap(byTopic);
	}

	/**
	 * The finished job a topic keeps under an id; read only for a topic whose retention this
	 * instance knows (no command otherwise).
	 * @param topic the topic
	 * @param id the id
	 * @return the job, {@link JobState#COMPLETED}, or empty when none is kept
	 */
	Optional<JobInfo> find(String topic, String id) {
		if (!this.retention.containsKey(topic)) {
			return Optional.empty();
		}
		byte[] field = KeySpace.bytes(KeySpace.jobKey(topic, id));
		byte[] record = this.runner.execute("reading the finished job " + id + " of topic " + topic,
				(connection) -> connection.hashCommands().hGet(this.keys.completed(topic), field));
		return Optional.ofNullable((record != null) ? decode(topic, id, record) : null);
	}

	/**
	 * A page of the finished jobs a topic keeps, the latest first.
	 * @see DelayQueueAdmin#completedJobs
	 */
	@SuppressWarnings("NullAway") // a page of finished jobs sets their finish times
	CompletedJobPage page(String topic, @Nullable String cursor, int limit, boolean payloads) {
		JobConstraints.topic(topic);
		JobConstraints.max("limit", limit, DelayQueueAdmin.MAX_DEAD_PAGE);
		PageCursor after = (cursor != null) ? PageCursor.parse(cursor, "completed jobs") : null;
		if (!this.retention.containsKey(topic)) {
			// a topic this instance keeps nothing of: no command
			return new CompletedJobPage(0, List.of(), null);
		}
		byte[][] call = { this.keys.completed(topic), this.keys.completedOrder(topic), KeySpace.bytes("page"),
				KeySpace.bytes(String.valueOf(limit + 1)), KeySpace.bytes(payloads ? "1" : "0"),
				KeySpace.bytes((after != null) ? String.valueOf(after.at()) : ""),
				KeySpace.bytes((after != null) ? KeySpace.jobKey(topic, after.id()) : "") };
		List<Object> reply = Replies.list(this.runner.run(COMPLETED, call));
		List<JobInfo> jobs = new ArrayList<>(reply.size() / 2);
		for (int i = 1; i + 1 < reply.size(); i += 2) {
			String jobKey = Replies.asString(reply.get(i));
			JobInfo job = decode(topic, jobKey.substring(topic.length() + 1), Replies.asBytes(reply.get(i + 1)));
			if (job != null) {
				jobs.add(job);
			}
		}
		List<JobInfo> page = List.copyOf(jobs.subList(0, Math.min(jobs.size(), limit)));
		String next = (jobs.size() > limit) ? PageCursor.after(page.get(page.size() - 1).finishedAt(),
				page.get(page.size() - 1)) : null;
		return new CompletedJobPage(Replies.asLong(reply.get(0)), page, next);
	}

	/**
	 * Reads a record of {@code completed.lua}.
	 * @return the job, or {@code null} for a record not in this format
	 */
	private static @Nullable JobInfo decode(String topic, String id, byte[] record) {
		int newline = StoredPayload.indexOf(record, (byte) '\n', 0);
		String header = new String(record, 0, (newline >= 0) ? newline : record.length, StandardCharsets.UTF_8);
		String[] fields = header.split(",", -1);
		if (fields.length != 7) {
			return null;
		}
		try {
			long delivered = Long.parseLong(fields[5], 36);
			long finished = Long.parseLong(fields[6], 36);
			StoredPayload.Read stored = (newline >= 0)
					? StoredPayload.decode(Arrays.copyOfRange(record, newline + 1, record.length))
					: new StoredPayload.Read(Map.of(), null);
			// delivered and finished by the same bucket's clock; 0: a reservation that knew
			// only its token finished it
			Duration runTime = (delivered > 0) ? Duration.ofMillis(Math.max(0, finished - delivered)) : null;
			String attempt = fields[0];
			int priority = JobConstraints.DEFAULT_PRIORITY;
			if (!attempt.isEmpty() && attempt.charAt(0) >= 'a' && attempt.charAt(0) <= 'j') {
				priority = attempt.charAt(0) - 'a';
				attempt = attempt.substring(1);
			}
			return new JobInfo(topic, id, JobState.COMPLETED, Integer.parseInt(attempt), Integer.parseInt(fields[1]),
					Duration.ofMillis(Long.parseLong(fields[2], 36)), Instant.ofEpochMilli(Long.parseLong(fields[4], 36)),
					Instant.ofEpochMilli(Long.parseLong(fields[3], 36)), null, null, null, stored.payload(),
					stored.headers(), Instant.ofEpochMilli(finished), runTime, priority);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
