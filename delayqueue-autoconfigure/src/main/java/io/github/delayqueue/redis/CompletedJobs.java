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
 * {@code completed.lua} right after the finish script of the jobs' bucket said they finished.
 *
 * <p>
 * The record is a second call, not part of the finish: a bucket's script cannot write the
 * topic's slot on a Redis Cluster, and one key per topic is what keeps exactly the last
 * {@code completed} jobs of a topic, whatever their buckets. So a process that dies between
 * the two calls, or a Redis that fails the second, leaves a job finished (gone from its
 * bucket) with no record: {@code find} then answers "no such job" for it. That is logged, and
 * never makes a finish fail. Thread-safe.
 */
final class CompletedJobs {

	/** The most jobs one {@code completed.lua} call adds. */
	static final int BATCH = 1_000;

	private static final Log logger = LogFactory.getLog(CompletedJobs.class);

	private static final LuaScript COMPLETED = LuaScript.standalone("completed", 2);

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final Map<String, Retention> retention;

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
	 * Keeps jobs that have just finished, when their topic keeps finished jobs; a failure is
	 * logged (the jobs are finished all the same).
	 * @param topic the jobs' topic
	 * @param finished the jobs the finish script finished
	 */
	void add(String topic, List<ReservedJob> finished) {
		Retention kept = this.retention.get(topic);
		if (kept == null || finished.isEmpty()) {
			return;
		}
		for (int from = 0; from < finished.size(); from += BATCH) {
			List<ReservedJob> batch = finished.subList(from, Math.min(finished.size(), from + BATCH));
			try {
				this.runner.run(COMPLETED, addArguments(topic, kept, batch));
			}
			catch (RuntimeException ex) {
				logger.warn("Could not keep " + batch.size() + " finished job(s) of topic '" + topic
						+ "' (they are finished; find will not report them COMPLETED): " + ex.getMessage());
			}
		}
	}

	private byte[][] addArguments(String topic, Retention kept, List<ReservedJob> jobs) {
		byte[][] call = new byte[6 + 3 * jobs.size()][];
		call[0] = this.keys.completed(topic);
		call[1] = this.keys.completedOrder(topic);
		call[2] = KeySpace.bytes("add");
		call[3] = KeySpace.bytes(String.valueOf(kept.completed()));
		call[4] = KeySpace.bytes(String.valueOf((kept.completedAge() != null) ? kept.completedAge().toMillis() : 0));
		call[5] = KeySpace.bytes(String.valueOf(Retention.TRIM_SLACK));
		for (int i = 0; i < jobs.size(); i++) {
			ReservedJob job = jobs.get(i);
			int at = 6 + 3 * i;
			call[at] = KeySpace.bytes(KeySpace.jobKey(topic, job.id()));
			call[at + 1] = KeySpace.bytes(job.attempt() + "," + job.maxAttempts() + "," + ttrMillis(job) + ","
					+ base36(job.createdAt()) + "," + base36(job.dueAt()) + "," + base36(job.deliveredAt()));
			call[at + 2] = kept.payloads() ? withNewline(StoredPayload.encode(job.headers(), job.payload()))
					: new byte[0];
		}
		return call;
	}

	private static String ttrMillis(ReservedJob job) {
		return Long.toString((job.ttr() != null) ? job.ttr().toMillis() : 0, 36);
	}

	private static String base36(@Nullable Instant time) {
		return Long.toString((time != null) ? Math.max(0, time.toEpochMilli()) : 0, 36);
	}

	private static byte[] withNewline(byte[] payload) {
		byte[] tail = new byte[payload.length + 1];
		tail[0] = '\n';
		System.arraycopy(payload, 0, tail, 1, payload.length);
		return tail;
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
		List<Object> counts = this.runner.execute("counting the finished jobs kept", (connection) -> {
			if (ScriptRunner.pipelines(connection)) {
				connection.openPipeline();
				topics.forEach((topic) -> connection.zSetCommands().zCard(this.keys.completedOrder(topic)));
				return connection.closePipeline();
			}
			List<Object> each = new ArrayList<>(topics.size());
			topics.forEach((topic) -> each.add(connection.zSetCommands().zCard(this.keys.completedOrder(topic))));
			return each;
		});
		Map<String, Long> byTopic = new LinkedHashMap<>();
		for (int i = 0; i < topics.size(); i++) {
			byTopic.put(topics.get(i), (counts.get(i) instanceof Long count) ? count : 0L);
		}
		return Collections.unmodifiableMap(byTopic);
	}

	/**
	 * The finished job a topic keeps under an id.
	 * @param topic the topic
	 * @param id the id
	 * @return the job, {@link JobState#COMPLETED}, or empty when none is kept
	 */
	Optional<JobInfo> find(String topic, String id) {
		byte[] field = KeySpace.bytes(KeySpace.jobKey(topic, id));
		byte[] record = this.runner.execute("reading the finished job " + id + " of topic " + topic,
				(connection) -> connection.hashCommands().hGet(this.keys.completed(topic), field));
		return Optional.ofNullable((record != null) ? decode(topic, id, record) : null);
	}

	/**
	 * A page of the finished jobs a topic keeps, the latest first.
	 * @see DelayQueueAdmin#completedJobs
	 */
	CompletedJobPage page(String topic, @Nullable String cursor, int limit, boolean payloads) {
		JobConstraints.topic(topic);
		JobConstraints.max("limit", limit, DelayQueueAdmin.MAX_DEAD_PAGE);
		PageCursor after = (cursor != null) ? PageCursor.parse(cursor, "completed jobs") : null;
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
			Instant delivered = Instant.ofEpochMilli(Long.parseLong(fields[5], 36));
			Instant finished = Instant.ofEpochMilli(Long.parseLong(fields[6], 36));
			StoredPayload.Read stored = (newline >= 0)
					? StoredPayload.decode(Arrays.copyOfRange(record, newline + 1, record.length))
					: new StoredPayload.Read(Map.of(), null);
			Duration runTime = Duration.between(delivered, finished);
			return new JobInfo(topic, id, JobState.COMPLETED, Integer.parseInt(fields[0]), Integer.parseInt(fields[1]),
					Duration.ofMillis(Long.parseLong(fields[2], 36)), Instant.ofEpochMilli(Long.parseLong(fields[4], 36)),
					Instant.ofEpochMilli(Long.parseLong(fields[3], 36)), null, null, null, stored.payload(),
					stored.headers(), finished, runTime.isNegative() ? Duration.ZERO : runTime);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
