package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import io.github.delayqueue.core.ScheduleRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisZSetCommands;
import org.springframework.data.redis.connection.zset.Tuple;

/**
 * The queue's Lua scripts, one method per script with typed arguments, replies decoded by
 * {@link ScriptReplies}. Thread-safe.
 */
final class QueueScripts {

	private static final LuaScript SCHEDULE = LuaScript.job("schedule");

	private static final LuaScript CANCEL = LuaScript.job("cancel");

	private static final LuaScript RESCHEDULE = LuaScript.job("reschedule");

	private static final LuaScript FIND = LuaScript.job("find");

	private static final LuaScript RESERVE = LuaScript.job("reserve");

	private static final LuaScript FINISH = LuaScript.job("finish");

	private static final LuaScript FAIL = LuaScript.job("fail");

	private static final LuaScript TOUCH = LuaScript.job("touch");

	private static final LuaScript RELEASE = LuaScript.job("release");

	private static final LuaScript REPLAY = LuaScript.job("replay");

	private static final LuaScript TRIM_DEAD = LuaScript.job("trimdead");

	private static final LuaScript STATS = LuaScript.job("stats");

	private static final LuaScript DEAD = LuaScript.job("dead");

	private static final LuaScript REPAIR = LuaScript.job("repair");

	private static final LuaScript PROMOTE = LuaScript.job("promote");

	private static final LuaScript RECURRING = LuaScript.job("recurring");

	private static final LuaScript COORDINATE = LuaScript.of("coordinate", 3);

	private static final LuaScript NAMESPACE = LuaScript.of("namespace", 1);

	/** The most jobs one {@code release.lua} call gives back. */
	private static final int RELEASE_BATCH = 1_000;

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final byte[] channel;

	QueueScripts(ScriptRunner runner, KeySpace keys) {
		this.runner = runner;
		this.keys = keys;
		this.channel = KeySpace.bytes(keys.channel());
	}

	/** The jobs of one schedule script call: all of one bucket. */
	record ScheduleCall(int bucket, List<ScheduleRequest> requests) {

	}

	/** Schedules jobs of one bucket, with defaults for a request's TTR and attempts; waits for the replicas. */
	ScriptReplies.Scheduled schedule(ScheduleCall call, Duration defaultTtr, int defaultMaxAttempts) {
		return ScriptReplies.Scheduled
			.decode(this.runner.runReplicated(SCHEDULE, scheduleArguments(call, defaultTtr, defaultMaxAttempts)));
	}

	/** {@link #schedule} for many calls, pipelined where possible; one reply per call, in order. */
	List<ScriptReplies.Scheduled> scheduleAll(List<ScheduleCall> calls, Duration defaultTtr, int defaultMaxAttempts) {
		List<byte[][]> arguments = new ArrayList<>(calls.size());
		calls.forEach((call) -> arguments.add(scheduleArguments(call, defaultTtr, defaultMaxAttempts)));
		return this.runner.runAllReplicated(SCHEDULE, arguments)
			.stream()
			.map(ScriptReplies.Scheduled::decode)
			.toList();
	}

	/** The eight script arguments of each job, in order. */
	@SuppressWarnings("NullAway") // a request has its delay or its due time
	private byte[][] scheduleArguments(ScheduleCall call, Duration defaultTtr, int defaultMaxAttempts) {
		List<ScheduleRequest> requests = call.requests();
		Object[] values = new Object[8 * requests.size()];
		for (int i = 0; i < requests.size(); i++) {
			ScheduleRequest request = requests.get(i);
			Duration ttr = (request.ttr() != null) ? request.ttr() : defaultTtr;
			int maxAttempts = (request.maxAttempts() != null) ? request.maxAttempts() : defaultMaxAttempts;
			boolean relative = request.delay() != null;
			long time = relative ? request.delay().toMillis() : request.dueAt().toEpochMilli();
			int at = 8 * i;
			values[at] = KeySpace.jobKey(request.topic(), request.id());
			values[at + 1] = request.topic();
			values[at + 2] = StoredPayload.encode(request.headers(), request.payload());
			int priority = request.effectivePriority();
			String mode = relative ? "d" : "a";
			values[at + 3] = (priority == JobConstraints.DEFAULT_PRIORITY) ? mode : mode + priority;
			values[at + 4] = time;
			values[at + 5] = ttr.toMillis();
			values[at + 6] = maxAttempts;
			values[at + 7] = (request.onDuplicate() == OnDuplicate.REPLACE) ? "1" : "0";
		}
		return call(call.bucket(), values);
	}

	/** Removes a job in any state; whether there was one. */
	boolean cancel(int bucket, String topic, String id) {
		return ScriptReplies.cancelled(this.runner.run(CANCEL, call(bucket, KeySpace.jobKey(topic, id))));
	}

	/** Moves a waiting job to a new due time: a delay ({@code relative}) or an absolute time, ms. */
	ScriptReplies.Rescheduled reschedule(int bucket, String topic, String id, boolean relative, long time) {
		return ScriptReplies.Rescheduled.decode(
				this.runner.run(RESCHEDULE, call(bucket, KeySpace.jobKey(topic, id), relative ? "d" : "a", time)));
	}

	/** Reads one job, empty for none. */
	Optional<JobInfo> find(int bucket, String topic, String id) {
		return ScriptReplies.found(topic, id, this.runner.run(FIND, call(bucket, KeySpace.jobKey(topic, id))));
	}

	/** Takes READY jobs of a topic from one bucket; 0: the job's own TTR and attempts, no latest time. */
	ScriptReplies.Taken reserve(int bucket, String topic, int max, long ttrMillis, int attemptsLimit, long notAfter) {
		Object reply = this.runner.run(RESERVE, call(bucket, topic, max, ttrMillis, attemptsLimit, notAfter));
		return ScriptReplies.Taken.decode(topic, Replies.list(reply), 0);
	}

	/**
	 * Finishes jobs of one bucket and topic and takes up to {@code wanted} READY jobs of the
	 * topic as {@link #reserve} does; {@code keep} (the topic's retention, or null) asks for the
	 * finished records. Waits for the replicas.
	 */
	ScriptReplies.Finished finish(int bucket, String topic, List<ReservedJob> jobs, int wanted, long ttrMillis,
			int attemptsLimit, @Nullable Retention keep) {
		Object[] values = new Object[5 + 2 * jobs.size()];
		values[0] = wanted;
		values[1] = ttrMillis;
		values[2] = topic;
		values[3] = attemptsLimit;
		values[4] = (keep == null) ? "0" : (keep.payloads() ? "2" : "1");
		for (int i = 0; i < jobs.size(); i++) {
			values[5 + 2 * i] = KeySpace.jobKey(jobs.get(i).topic(), jobs.get(i).id());
			values[6 + 2 * i] = jobs.get(i).token();
		}
		return ScriptReplies.Finished.decode(topic, jobs, wanted > 0, keep != null,
				this.runner.runReplicated(FINISH, call(bucket, values)));
	}

	/** Fails a reservation: back-off in ms, or -1 to make the job DEAD now. */
	ScriptReplies.Failed fail(int bucket, ReservedJob job, long backOffMillis, String error) {
		return ScriptReplies.Failed.decode(this.runner.run(FAIL, call(bucket, KeySpace.jobKey(job.topic(), job.id()),
				job.token(), backOffMillis, JobConstraints.errorText(error))));
	}

	/** Extends a reservation: the new deadline, empty when the reservation is stale. */
	Optional<Instant> touch(int bucket, ReservedJob job, long ttrMillis) {
		return ScriptReplies.touched(this.runner.run(TOUCH,
				call(bucket, KeySpace.jobKey(job.topic(), job.id()), job.token(), ttrMillis)));
	}

	/** Gives reservations of one bucket back, the first given taken first again; how many. */
	int release(int bucket, List<ReservedJob> jobs) {
		int released = 0;
		for (int to = jobs.size(); to > 0; to -= RELEASE_BATCH) {
			List<ReservedJob> part = jobs.subList(Math.max(0, to - RELEASE_BATCH), to);
			Object[] values = new Object[part.size() * 2];
			for (int i = 0; i < part.size(); i++) {
				values[2 * i] = KeySpace.jobKey(part.get(i).topic(), part.get(i).id());
				values[2 * i + 1] = part.get(i).token();
			}
			released += ScriptReplies.released(this.runner.run(RELEASE, call(bucket, values)));
		}
		return released;
	}

	/** Replays up to {@code max} DEAD jobs of a topic in a bucket: job {@code id}, or the oldest. */
	ScriptReplies.Replayed replay(int bucket, String topic, int max, @Nullable String id, int named) {
		String jobKey = (id != null) ? KeySpace.jobKey(topic, id) : "";
		return ScriptReplies.Replayed.decode(topic,
				this.runner.run(REPLAY, call(bucket, topic, max, jobKey, named)));
	}

	/** The job keys of the DEAD jobs of a topic in one bucket that died at {@code diedAt} (ms), at most 20,000. */
	List<String> deadAt(int bucket, String topic, long diedAt) {
		List<Object> reply = Replies.list(this.runner.run(TRIM_DEAD, call(bucket, "at", topic, diedAt)));
		List<String> jobKeys = new ArrayList<>(reply.size());
		reply.forEach((jobKey) -> jobKeys.add(Replies.asString(jobKey)));
		return jobKeys;
	}

	/** Deletes DEAD jobs still DEAD with the time of death given (per bucket: job key, ms, ...). */
	long dropDead(String topic, Map<Integer, List<String>> deaths) {
		List<byte[][]> calls = new ArrayList<>(deaths.size());
		deaths.forEach((bucket, jobs) -> {
			Object[] values = new Object[2 + jobs.size()];
			values[0] = "drop";
			values[1] = topic;
			for (int i = 0; i < jobs.size(); i++) {
				values[2 + i] = jobs.get(i);
			}
			calls.add(call(bucket, values));
		});
		long dropped = 0;
		for (Object reply : this.runner.runAllReplicated(TRIM_DEAD, calls)) {
			dropped += Replies.asLong(Replies.list(reply).get(0));
		}
		return dropped;
	}

	/** Reads the figures of every bucket; one reply per bucket, in bucket order. */
	List<ScriptReplies.Figures> stats() {
		return this.runner.runAll(STATS, everyBucket()).stream().map(ScriptReplies.Figures::decode).toList();
	}

	/** Reads, per bucket, the next DEAD jobs of a topic after a cursor ({@code null}: from the oldest). */
	List<ScriptReplies.DeadJobs> dead(String topic, int limit, boolean payloads, @Nullable PageCursor after) {
		List<byte[][]> calls = everyBucket(topic, limit, payloads ? "1" : "0", (after != null) ? after.at() : "",
				(after != null) ? KeySpace.jobKey(topic, after.id()) : "");
		return this.runner.runAll(DEAD, calls)
			.stream()
			.map((reply) -> ScriptReplies.DeadJobs.decode(topic, reply))
			.toList();
	}

	/** Repairs (or, without {@code write}, counts the repairs of) one bucket, given its topics. */
	RepairResult repair(int bucket, boolean write, Collection<String> topics) {
		List<Object> values = new ArrayList<>(topics.size() + 1);
		values.add(write ? "1" : "0");
		values.addAll(topics);
		return ScriptReplies.repaired(this.runner.run(REPAIR, call(bucket, values.toArray())));
	}

	/** The timer's step; {@code quiet} leaves announcing to the caller, {@code offers} may take due jobs. */
	ScriptReplies.Promoted promote(int bucket, int batchSize, boolean guard, boolean quiet,
			List<RedisTimerBackend.Offering> offers) {
		Object[] values = new Object[4 + 4 * offers.size()];
		values[0] = batchSize;
		values[1] = guard ? "1" : "0";
		values[2] = quiet ? "1" : "0";
		values[3] = offers.size();
		int i = 4;
		for (RedisTimerBackend.Offering offering : offers) {
			RedisTimerBackend.Offer offer = offering.offer();
			values[i++] = offering.topic();
			values[i++] = offer.max();
			values[i++] = offer.ttrMillis();
			values[i++] = offer.attemptsLimit();
		}
		return ScriptReplies.Promoted.decode(this.runner.run(PROMOTE, call(bucket, values)));
	}

	/** Announces that a topic's ready list in a bucket has jobs, as a script's {@code r} event does. */
	void announceReady(int bucket, String topic) {
		byte[] message = KeySpace.bytes("r " + bucket + " " + topic);
		this.runner.execute("announcing the READY jobs of topic " + topic + " in bucket " + bucket,
				(connection) -> connection.publish(this.channel, message));
	}

	/** Sends this instance's heartbeat and takes its share of the bucket timers ({@code leaving}: none). */
	TimerBackend.Coordination coordinate(String instanceId, Duration leaseTtl, boolean leaving) {
		byte[][] keysAndArgs = { this.keys.instances(), this.keys.timers(), this.keys.config(), KeySpace.bytes(instanceId),
				KeySpace.bytes(String.valueOf(leaseTtl.toMillis())),
				KeySpace.bytes(String.valueOf(this.keys.buckets())), KeySpace.bytes(leaving ? "1" : "0"), this.channel };
		return ScriptReplies.coordination(this.runner.run(COORDINATE, keysAndArgs));
	}

	/**
	 * Renews a heartbeat that is still there; -1 when a coordination is needed, else the
	 * earliest heartbeat expiry when {@code readEarliest}, or 0.
	 */
	long renew(String instanceId, Duration leaseTtl, long nowMillis, boolean readEarliest) {
		byte[] instances = this.keys.instances();
		byte[] member = KeySpace.bytes(instanceId);
		double expiry = nowMillis + leaseTtl.toMillis();
		RedisZSetCommands.ZAddArgs renewal = RedisZSetCommands.ZAddArgs.ifExists().ch();
		return this.runner.execute("renewing the heartbeat of instance " + instanceId, (connection) -> {
			Boolean renewed = connection.zSetCommands().zAdd(instances, expiry, member, renewal);
			if (!Boolean.TRUE.equals(renewed)) {
				return -1L;
			}
			if (!readEarliest) {
				return 0L;
			}
			Object first = connection.zSetCommands().zRangeWithScores(instances, 0, 0);
			if (first instanceof Collection<?> earliest && !earliest.isEmpty()
					&& earliest.iterator().next() instanceof Tuple tuple && tuple.getScore() > nowMillis) {
				return tuple.getScore().longValue();
			}
			return -1L;
		});
	}

	/** Pins a setting of the namespace at its first start; returns the value pinned. */
	static String pin(ScriptRunner runner, KeySpace keys, String setting, String value) {
		Object reply = runner.run(NAMESPACE,
				new byte[][] { keys.config(), KeySpace.bytes(setting), KeySpace.bytes(value) });
		return ScriptReplies.pinned(reply);
	}

	/** Runs an operation of {@code recurring.lua} on a bucket; one that writes waits for the replicas. */
	@Nullable Object recurring(int bucket, Object... arguments) {
		String operation = String.valueOf(arguments[0]);
		boolean writes = !operation.equals("due") && !operation.equals("get") && !operation.equals("list");
		byte[][] call = call(bucket, arguments);
		return writes ? this.runner.runReplicated(RECURRING, call) : this.runner.run(RECURRING, call);
	}

	/** Lists the recurring jobs of every bucket; the reply of each bucket, in bucket order. */
	List<Object> listRecurring() {
		return this.runner.runAll(RECURRING, everyBucket("list"));
	}

	/** The same call on every bucket, in bucket order. */
	private List<byte[][]> everyBucket(Object... values) {
		List<byte[][]> calls = new ArrayList<>(this.keys.buckets());
		for (int bucket = 0; bucket < this.keys.buckets(); bucket++) {
			calls.add(call(bucket, values));
		}
		return calls;
	}

	/** A job script call: the bucket's keys, channel and number, then the values (non-bytes as text). */
	private byte[][] call(int bucket, Object... values) {
		byte[][] call = new byte[values.length + 4][];
		call[0] = this.keys.jobs(bucket);
		call[1] = this.keys.guard(bucket);
		call[2] = this.channel;
		call[3] = KeySpace.bytes(String.valueOf(bucket));
		for (int i = 0; i < values.length; i++) {
			Object value = values[i];
			call[i + 4] = (value instanceof byte[] bytes) ? bytes : KeySpace.bytes(String.valueOf(value));
		}
		return call;
	}

}
