package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;

import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * The finished and DEAD jobs that topics keep ({@link Retention}): finished jobs are written
 * by {@code completed.lua} after the finish script, deaths are listed by {@code failed.lua}
 * and the DEAD jobs beyond the limits deleted. Only topics whose retention this instance knows
 * are read or written; a failure is logged and never fails the finish or the kill. Thread-safe.
 */
final class RetainedJobs {

	/** The most jobs one {@code completed.lua} or {@code failed.lua} call adds. */
	static final int BATCH = 1_000;

	/** The most record bytes one {@code completed.lua} call adds (payloads kept); more are split. */
	static final long BATCH_BYTES = 4L << 20;

	private static final Log logger = LogFactory.getLog(RetainedJobs.class);

	private static final LuaScript COMPLETED = LuaScript.of("completed", 2);

	private static final LuaScript FAILED = LuaScript.of("failed", 1);

	private final ScriptRunner runner;

	private final QueueScripts scripts;

	private final KeySpace keys;

	private final Map<String, Retention> completed;

	private final Map<String, Retention> failed;

	private final DelayQueueObserver observer;

	private final OnceAMinute warning = new OnceAMinute(logger);

	private final OnceAMinute failedWarning = new OnceAMinute(logger);

	/** Keeps the finished jobs of the topics of {@code completed}, limits the DEAD jobs of those of {@code failed}. */
	RetainedJobs(ScriptRunner runner, QueueScripts scripts, KeySpace keys, Map<String, Retention> completed,
			Map<String, Retention> failed, DelayQueueObserver observer) {
		this.runner = runner;
		this.scripts = scripts;
		this.keys = keys;
		this.completed = Map.copyOf(completed);
		this.failed = Map.copyOf(failed);
		this.observer = observer;
	}

	/** The retention of a topic, or {@code null} when it keeps no finished jobs. */
	@Nullable Retention retentionOf(String topic) {
		return this.completed.get(topic);
	}

	/** Keeps jobs that have just finished, from the finish script's replies; failures are logged. */
	void add(String topic, List<ScriptReplies.Finished> calls) {
		Retention kept = this.completed.get(topic);
		if (kept == null) {
			return;
		}
		List<byte[]> arguments = new ArrayList<>();
		long bytes = 0;
		for (ScriptReplies.Finished call : calls) {
			for (int i = 0; i < call.records().size(); i++) {
				ReservedJob job = call.finished().get(i);
				byte[] record = call.records().get(i);
				long delivered = (job.deliveredAt() != null) ? job.deliveredAt().toEpochMilli() : 0;
				arguments.addAll(List.of(KeySpace.bytes(KeySpace.jobKey(topic, job.id())),
						KeySpace.bytes(String.valueOf(call.finishedAt())), record,
						KeySpace.bytes(String.valueOf(delivered))));
				bytes += record.length;
				if (arguments.size() >= 4 * BATCH || bytes >= BATCH_BYTES) {
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
		try {
			this.runner.runReplicated(COMPLETED, QueueScripts.args(List.of(this.keys.completed(topic), this.keys.completedOrder(topic)),
					"add", kept.completed(), (kept.completedAge() != null) ? kept.completedAge().toMillis() : 0,
					Retention.TRIM_SLACK, jobs));
		}
		catch (RuntimeException ex) {
			this.warning.warn("Could not keep " + (jobs.size() / 4) + " finished job(s) of topic '" + topic
					+ "' (they are finished; find will not report them COMPLETED): " + ex.getMessage());
		}
	}

	/** How many finished jobs each topic with a retention keeps (only {@code topic}, when given), by topic. */
	Map<String, Long> counts(@Nullable String topic) {
		if ((topic != null) ? !this.completed.containsKey(topic) : this.completed.isEmpty()) {
			return Map.of();
		}
		List<String> topics = (topic != null) ? List.of(topic) : List.copyOf(new TreeSet<>(this.completed.keySet()));
		try {
			List<@Nullable Object> counts = this.runner.execute("counting the finished jobs kept",
					(connection) -> each(connection, topics,
							(name) -> connection.zSetCommands().zCard(this.keys.completedOrder(name))));
			Map<String, Long> byTopic = new TreeMap<>();
			for (int i = 0; i < topics.size(); i++) {
				byTopic.put(topics.get(i), (counts.get(i) instanceof Long count) ? count : 0L);
			}
			return Collections.unmodifiableMap(byTopic);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not count the finished jobs kept: " + ex.getMessage());
			return Map.of();
		}
	}

	/** The finished job a topic keeps under an id, {@link JobState#COMPLETED}. */
	Optional<JobInfo> find(String topic, String id) {
		if (!this.completed.containsKey(topic)) {
			return Optional.empty();
		}
		byte[] field = KeySpace.bytes(KeySpace.jobKey(topic, id));
		byte[] record = this.runner.execute("reading the finished job " + id + " of topic " + topic,
				(connection) -> connection.hashCommands().hGet(this.keys.completed(topic), field));
		return Optional.ofNullable((record != null) ? decode(topic, id, record) : null);
	}

	/** A page of the finished jobs a topic keeps, the latest first. */
	@SuppressWarnings("NullAway") // a page of finished jobs sets their finish times
	CompletedJobPage page(String topic, @Nullable String cursor, int limit, boolean payloads) {
		PageCursor after = PageCursor.parse(topic, cursor, limit, "completed jobs");
		if (!this.completed.containsKey(topic)) {
			return new CompletedJobPage(0, List.of(), null);
		}
		List<Object> reply = ScriptReplies.list(this.runner.run(COMPLETED,
				QueueScripts.args(List.of(this.keys.completed(topic), this.keys.completedOrder(topic)), "page", limit + 1,
						payloads ? "1" : "0", (after != null) ? after.at() : "",
						(after != null) ? KeySpace.jobKey(topic, after.id()) : "")));
		List<JobInfo> jobs = new ArrayList<>(reply.size() / 2);
		for (int i = 1; i + 1 < reply.size(); i += 2) {
			String jobKey = ScriptReplies.asString(reply.get(i));
			JobInfo job = decode(topic, jobKey.substring(topic.length() + 1), ScriptReplies.asBytes(reply.get(i + 1)));
			if (job != null) {
				jobs.add(job);
			}
		}
		long total = ScriptReplies.asLong(reply.get(0));
		return PageCursor.page(jobs, limit, JobInfo::finishedAt, (page, next) -> new CompletedJobPage(total, page, next));
	}

	/** Reads a record of {@code completed.lua}, or {@code null} when unreadable. */
	@SuppressWarnings("NullAway") // a compact constructor's byte @Nullable [] is not seen by NullAway
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
			// 0: a reservation that knew only its token finished it
			Duration runTime = (delivered > 0) ? Duration.ofMillis(Math.max(0, finished - delivered)) : null;
			// <priority letter a-j, none for the default><attempt>
			boolean lettered = !fields[0].isEmpty() && fields[0].charAt(0) >= 'a' && fields[0].charAt(0) <= 'j';
			return new JobInfo(topic, id, JobState.COMPLETED, Integer.parseInt(fields[0].substring(lettered ? 1 : 0)),
					Integer.parseInt(fields[1]), Duration.ofMillis(Long.parseLong(fields[2], 36)),
					Instant.ofEpochMilli(Long.parseLong(fields[4], 36)),
					Instant.ofEpochMilli(Long.parseLong(fields[3], 36)), null, null, null, null, stored.payload(),
					stored.headers(), Instant.ofEpochMilli(finished), runTime,
					lettered ? fields[0].charAt(0) - 'a' : JobConstraints.DEFAULT_PRIORITY);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/** Runs a command per item, in one pipeline where the connection allows it; the replies in order. */
	static <T> List<@Nullable Object> each(RedisConnection connection, List<T> items,
			Function<T, @Nullable Object> command) {
		if (ScriptRunner.pipelines(connection)) {
			connection.openPipeline();
			items.forEach(command::apply);
			return connection.closePipeline();
		}
		List<@Nullable Object> replies = new ArrayList<>(items.size());
		items.forEach((item) -> replies.add(command.apply(item)));
		return replies;
	}

	/** A job died at {@code diedAt} (its bucket's clock, ms). */
	void died(String topic, String id, long diedAt) {
		if (this.failed.containsKey(topic)) {
			died(topic, List.of(KeySpace.jobKey(topic, id)), diedAt);
		}
	}

	/** Jobs of a topic died in a timer step of a bucket at the step's time, by which they are found. */
	void diedInStep(String topic, int bucket, long diedAt) {
		if (!this.failed.containsKey(topic)) {
			return;
		}
		List<String> jobKeys;
		try {
			jobKeys = this.scripts.deadAt(bucket, topic, diedAt);
		}
		catch (RuntimeException ex) {
			failed(topic, ex);
			return;
		}
		died(topic, jobKeys, diedAt);
	}

	/** Lists deaths a batch at a time, dropping what each batch names; a failure ends only its batch. */
	@SuppressWarnings("NullAway") // called for topics with a limit only
	private void died(String topic, List<String> jobKeys, long diedAt) {
		Retention limit = this.failed.get(topic);
		for (int from = 0; from < jobKeys.size(); from += BATCH) {
			List<String> deaths = jobKeys.subList(from, Math.min(jobKeys.size(), from + BATCH)).stream()
				.flatMap((jobKey) -> Stream.of(jobKey, String.valueOf(diedAt)))
				.toList();
			try {
				List<Object> reply = ScriptReplies.list(this.runner.runReplicated(FAILED, failedCall(topic, "add",
						limit.failed(), (limit.failedAge() != null) ? limit.failedAge().toMillis() : 0,
						Retention.TRIM_SLACK, deaths)));
				List<String> named = reply.subList(2, reply.size()).stream().map(ScriptReplies::asString).toList();
				if (!named.isEmpty()) {
					drop(topic, named);
				}
			}
			catch (RuntimeException ex) {
				failed(topic, ex);
			}
		}
	}

	/** Deletes the DEAD jobs named (job key and time of death, alternating), then their entries. */
	private void drop(String topic, List<String> named) {
		Map<Integer, List<String>> byBucket = new TreeMap<>();
		for (int i = 0; i < named.size(); i += 2) {
			String jobKey = named.get(i);
			byBucket.computeIfAbsent(this.keys.bucketOf(topic, jobKey.substring(topic.length() + 1)),
					(bucket) -> new ArrayList<>()).addAll(List.of(jobKey, named.get(i + 1)));
		}
		long dropped = this.scripts.dropDead(topic, byBucket);
		if (dropped > 0) {
			this.observer.deadTrimmed(topic, dropped);
		}
		this.runner.runReplicated(FAILED, failedCall(topic, "remove", named));
	}

	private void failed(String topic, RuntimeException ex) {
		this.failedWarning.warn("Could not apply the failed-job retention of topic '" + topic
				+ "' (DEAD jobs beyond it stay until a later death of the topic, a replay or a cancel): "
				+ ex.getMessage());
	}

	private byte[][] failedCall(String topic, Object... arguments) {
		return QueueScripts.args(List.of(this.keys.deaths(topic)), arguments);
	}

}
