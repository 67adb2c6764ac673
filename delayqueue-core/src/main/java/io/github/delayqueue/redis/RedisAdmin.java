package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.NotEnoughReplicasException;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.BucketStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.core.WaitingJobPage;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.zset.Tuple;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The operator's side of {@link RedisDelayQueue}: figures, pages of DEAD and finished jobs,
 * replays and the repair of the indexes. Thread-safe.
 */
abstract class RedisAdmin extends RedisConsumer implements DelayQueueAdmin {

	/** The most dead jobs one replay script call reads (a replay of more is split). */
	static final int REPLAY_BATCH = 1_000;

	RedisAdmin(RedisDelayQueueBuilder builder) {
		super(builder);
	}

	@Override
	public QueueStats stats() {
		return stats(this.scripts.stats(null), this.retained.counts(null));
	}

	@Override
	public QueueStats stats(String topic) {
		JobConstraints.topic(topic);
		return stats(this.scripts.stats(topic), this.retained.counts(topic));
	}

	private QueueStats stats(List<ScriptReplies.Figures> replies, Map<String, Long> completed) {
		String[] ownerOf = timerOwners();
		Map<String, TopicStats> topics = new TreeMap<>();
		List<BucketStats> buckets = new ArrayList<>(replies.size());
		long readAt = 0;
		for (int bucket = 0; bucket < replies.size(); bucket++) {
			ScriptReplies.Figures reply = replies.get(bucket);
			readAt = Math.max(readAt, reply.now());
			TopicStats jobs = TopicStats.EMPTY;
			for (ScriptReplies.Figure figure : reply.figures()) {
				TopicStats one = stats(figure);
				topics.merge(figure.topic(), one, TopicStats::plus);
				jobs = jobs.plus(one);
			}
			buckets.add(new BucketStats(bucket, jobs, reply.nextDue(), reply.earliestDelayed(), ownerOf[bucket]));
		}
		return new QueueStats(List.copyOf(buckets), Collections.unmodifiableMap(topics), Instant.ofEpochMilli(readAt),
				completed);
	}

	/** The stats a figure adds to its topic's and its bucket's. */
	private static TopicStats stats(ScriptReplies.Figure figure) {
		if (figure.kind() == ScriptReplies.Figure.OLDEST_OVERDUE) {
			return new TopicStats(0, 0, 0, 0, Instant.ofEpochMilli(figure.value()));
		}
		// D, R, S or X: the four states of live jobs, in JobState order
		long[] counts = new long[4];
		counts[JobState.fromCode(figure.kind()).ordinal()] = figure.value();
		return new TopicStats(counts[0], counts[1], counts[2], counts[3], null);
	}

	@Override
	public Map<String, Instant> instances() {
		Set<Tuple> heartbeats = this.runner.execute("reading instances",
				(connection) -> connection.zSetCommands().zRangeWithScores(this.keys.instances(), 0, -1));
		Map<String, Instant> instances = new TreeMap<>();
		if (heartbeats != null) {
			heartbeats.forEach((beat) -> instances.put(ScriptReplies.asString(beat.getValue()),
					Instant.ofEpochMilli(beat.getScore().longValue())));
		}
		return Collections.unmodifiableMap(instances);
	}

	/** The instance that runs each bucket's timer, or {@code null}. */
	private String[] timerOwners() {
		Map<byte[], byte[]> owners = this.runner.execute("reading timer owners",
				(connection) -> connection.hashCommands().hGetAll(this.keys.timers()));
		String[] ownerOf = new String[this.keys.buckets()];
		if (owners != null) {
			owners.forEach((bucket, owner) -> {
				int b = Integer.parseInt(ScriptReplies.asString(bucket));
				if (b >= 0 && b < ownerOf.length) {
					ownerOf[b] = ScriptReplies.asString(owner);
				}
			});
		}
		return ownerOf;
	}

	@Override
	public DeadJobPage deadJobs(String topic, @Nullable String cursor, int limit, boolean payloads) {
		return WaitingJobs.dead(this.scripts, topic, cursor, limit, payloads);
	}

	@Override
	public CompletedJobPage completedJobs(String topic, @Nullable String cursor, int limit, boolean payloads) {
		return this.retained.page(topic, cursor, limit, payloads);
	}

	@Override
	public WaitingJobPage waitingJobs(String topic, JobState state, @Nullable String cursor, int limit,
			boolean payloads) {
		return WaitingJobs.page(this.scripts, topic, state, cursor, limit, payloads);
	}

	@Override
	public ReplayResult replayDeadJobs(String topic, int max) {
		JobConstraints.topic(topic);
		JobConstraints.max("max", max, MAX_REPLAY);
		int total = 0;
		List<String> ids = new ArrayList<>();
		for (int bucket = 0; bucket < this.keys.buckets() && total < max; bucket++) {
			long left = 1;
			while (total < max && left > 0) {
				ScriptReplies.Replayed replayed;
				try {
					replayed = replay(topic, bucket, Math.min(REPLAY_BATCH, max - total), null,
							ReplayResult.MAX_IDS - ids.size());
				}
				catch (ReplicaWait.NotReplicated ex) {
					long last = ex.replies().isEmpty() ? 0
							: ScriptReplies.Replayed.decode(topic, ex.replies().get(0)).count();
					throw new NotEnoughReplicasException("Replayed " + (total + last) + " of up to " + max + " DEAD job(s) of"
							+ " topic '" + topic + "' (replaying again replays up to " + max + " more); the last " + last
							+ ": " + ex.getMessage(), ex);
				}
				total += (int) replayed.count();
				left = replayed.left();
				ids.addAll(replayed.ids());
			}
		}
		return new ReplayResult(total, ids);
	}

	@Override
	public boolean replayDead(String topic, String id) {
		return replay(topic, bucketOf(topic, id), 1, id, 0).count() == 1;
	}

	/** Replays the job {@code id}, or the oldest deaths, of a bucket, naming up to {@code named} ids. */
	private ScriptReplies.Replayed replay(String topic, int bucket, int max, @Nullable String id, int named) {
		ScriptReplies.Replayed replayed = this.scripts.replay(bucket, topic, max, id, named);
		if (replayed.count() > 0) {
			this.signals.markReady(topic, bucket);
		}
		return replayed;
	}

	@Override
	public RepairResult repair(boolean write) {
		RepairResult result = new RepairResult(0, 0, 0, 0, 0);
		List<BucketRepair> repairs = repairs(write);
		for (int bucket = 0; bucket < repairs.size(); bucket++) {
			BucketRepair repair = repairs.get(bucket);
			while (repair.step()) {
				// one bounded script call per step
			}
			RepairResult repaired = repair.result();
			result = new RepairResult(result.jobs() + repaired.jobs(), result.reindexed() + repaired.reindexed(),
					result.dropped() + repaired.dropped(), result.countsCorrected() + repaired.countsCorrected(),
					result.unreadable() + repaired.unreadable());
			if (!repair.countsVerified()) {
				logger.warn("delayqueue " + repair + " in namespace '" + this.keys.namespace()
						+ "' left the counts as they were: jobs changed state during each of its "
						+ BucketRepair.TALLIES + " tallies; repair again when the queue is quieter");
			}
			if (write && repaired.reindexed() > 0) {
				this.signals.markAll();
				this.timer.recheckAll();
			}
		}
		if (!result.isClean()) {
			logger.warn("delayqueue repair of namespace '" + this.keys.namespace() + "' " + (write ? "made" : "found")
					+ ": " + result);
		}
		return result;
	}

	/** One repair per bucket, in bucket order, each given the bucket's lists. */
	List<BucketRepair> repairs(boolean write) {
		Map<Integer, Set<String>> lists = listedKeys();
		List<BucketRepair> repairs = new ArrayList<>(this.keys.buckets());
		for (int bucket = 0; bucket < this.keys.buckets(); bucket++) {
			repairs.add(new BucketRepair(this.scripts, bucket, write, lists.getOrDefault(bucket, Set.of())));
		}
		return repairs;
	}

	/**
	 * The ready and dead lists of each bucket ({@code ready:<topic>[:<priority>]}, {@code dead:<topic>}),
	 * by SCAN on every master.
	 */
	@SuppressWarnings("NullAway") // a scan answers keys
	private Map<Integer, Set<String>> listedKeys() {
		String prefix = "{" + this.keys.namespace() + ":";
		ScanOptions options = ScanOptions.scanOptions().match(prefix + "*").count(1000).build();
		// a ready list is named ready:<topic>[:<priority>], a dead list dead:<topic>
		Pattern list = Pattern.compile(Pattern.quote(prefix) + "(\\d{1,5})}:((?:ready|dead):[^:]+(?::\\d)?)");
		return this.runner.execute("listing the ready and dead lists", (connection) -> {
			Map<Integer, Set<String>> topics = new TreeMap<>();
			List<Cursor<byte[]>> scans = (connection instanceof RedisClusterConnection cluster)
					? cluster.clusterGetMasterReplicaMap().keySet().stream().map((master) -> cluster.scan(master, options)).toList()
					: List.of(connection.keyCommands().scan(options));
			for (Cursor<byte[]> scan : scans) {
				try (scan) {
					while (scan.hasNext()) {
						Matcher key = list.matcher(ScriptReplies.asString(scan.next()));
						int bucket = key.matches() ? Integer.parseInt(key.group(1)) : Integer.MAX_VALUE;
						if (bucket < this.keys.buckets()) {
							topics.computeIfAbsent(bucket, (b) -> new TreeSet<>()).add(key.group(2));
						}
					}
				}
			}
			return topics;
		});
	}

}
