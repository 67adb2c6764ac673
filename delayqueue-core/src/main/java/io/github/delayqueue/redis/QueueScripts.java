package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RescheduleResult;
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

	private static final LuaScript FINISH = LuaScript.job("finish");

	private static final LuaScript FAIL = LuaScript.job("fail");

	private static final LuaScript TOUCH = LuaScript.job("touch");

	private static final LuaScript RELEASE = LuaScript.job("release");

	private static final LuaScript REPLAY = LuaScript.job("replay");

	private static final LuaScript TRIM_DEAD = LuaScript.job("trimdead");

	private static final LuaScript STATS = LuaScript.job("stats");

	private static final LuaScript REPAIR = LuaScript.job("repair");

	private static final LuaScript WAITING = LuaScript.job("waiting");

	private static final LuaScript PROMOTE = LuaScript.job("promote");

	private static final LuaScript RECURRING = LuaScript.job("recurring");

	private static final LuaScript COORDINATE = LuaScript.of("coordinate", 4);

	/** The least token that carries its holder's number in its last four digits ({@code lib/token.lua}). */
	static final long TOKEN_BASE = 1_000_000_000_000_000L;

	/** The most jobs one {@code release.lua} call gives back. */
	private static final int RELEASE_BATCH = 1_000;

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final byte[] channel;

	private final String instanceId;

	/** This instance's number, which its reservations' tokens carry ({@code lib/token.lua}); 0 until known. */
	private volatile int number;

	/** {@code instanceId} names this instance in the heartbeats and as the holder of its reservations. */
	QueueScripts(ScriptRunner runner, KeySpace keys, String instanceId) {
		this.runner = runner;
		this.keys = keys;
		this.channel = KeySpace.bytes(keys.channel());
		this.instanceId = instanceId;
	}

	/**
	 * Schedules the requests of each call (a bucket and indexes into {@code requests}), with
	 * defaults for a request's TTR and attempts; waits for the replicas. One reply per call, in order.
	 */
	@SuppressWarnings("NullAway") // a request has its delay or its due time
	List<ScriptReplies.Scheduled> scheduleAll(List<Map.Entry<Integer, List<Integer>>> calls,
			List<ScheduleRequest> requests, Duration defaultTtr, int defaultMaxAttempts) {
		List<byte[][]> arguments = new ArrayList<>(calls.size());
		for (Map.Entry<Integer, List<Integer>> call : calls) {
			List<Object> values = new ArrayList<>(8 * call.getValue().size());
			for (int index : call.getValue()) {
				ScheduleRequest request = requests.get(index);
				boolean relative = request.delay() != null;
				int priority = request.effectivePriority();
				String mode = relative ? "d" : "a";
				values.addAll(List.of(KeySpace.jobKey(request.topic(), request.id()), request.topic(),
						StoredPayload.encode(request.headers(), request.payload()),
						(priority == JobConstraints.DEFAULT_PRIORITY) ? mode : mode + priority,
						relative ? request.delay().toMillis() : request.dueAt().toEpochMilli(),
						((request.ttr() != null) ? request.ttr() : defaultTtr).toMillis(),
						(request.maxAttempts() != null) ? request.maxAttempts() : defaultMaxAttempts,
						(request.onDuplicate() == OnDuplicate.REPLACE) ? "1" : "0"));
			}
			arguments.add(call(call.getKey(), values));
		}
		return this.runner.runAll(SCHEDULE, arguments, true).stream().map(ScriptReplies.Scheduled::decode).toList();
	}

	/** Removes a job in any state; whether there was one. Waits for the replicas. */
	boolean cancel(int bucket, String topic, String id) {
		return write(CANCEL, call(bucket, KeySpace.jobKey(topic, id)), (reply) -> !ScriptReplies.list(reply).isEmpty(),
				(removed) -> removed);
	}

	/**
	 * Moves a waiting job to a new due time: a delay ({@code relative}) or an absolute time, ms;
	 * waits for the replicas.
	 */
	ScriptReplies.Rescheduled reschedule(int bucket, String topic, String id, boolean relative, long time) {
		return write(RESCHEDULE, call(bucket, KeySpace.jobKey(topic, id), relative ? "d" : "a", time),
				ScriptReplies.Rescheduled::decode, (moved) -> moved.result() == RescheduleResult.RESCHEDULED);
	}

	/**
	 * Runs a write and waits for the replicas; one whose reply says it changed nothing answers
	 * although too few replicas acknowledged (there is nothing of it to lose).
	 */
	private <T> T write(LuaScript script, byte[][] call, Function<@Nullable Object, T> decode,
			Predicate<T> changed) {
		try {
			return decode.apply(this.runner.runReplicated(script, call));
		}
		catch (ReplicaWait.NotReplicated ex) {
			T result = ex.replies().isEmpty() ? null : decode.apply(ex.replies().get(0));
			if (result == null || changed.test(result)) {
				throw ex;
			}
			return result;
		}
	}

	/** Reads one job, empty for none. */
	Optional<JobInfo> find(int bucket, String topic, String id) {
		return ScriptReplies.found(topic, id, this.runner.run(FIND, call(bucket, KeySpace.jobKey(topic, id))));
	}

	/**
	 * Takes READY jobs of a topic from one bucket ({@code finish.lua} without jobs to finish); 0:
	 * the job's own TTR and attempts, no latest time.
	 */
	ScriptReplies.Taken reserve(int bucket, String topic, int max, long ttrMillis, int attemptsLimit, long notAfter) {
		Object reply = this.runner.run(FINISH,
				call(bucket, max, ttrMillis, topic, attemptsLimit, "0", holder(), notAfter));
		return ScriptReplies.Taken.decode(topic, ScriptReplies.list(reply), 0);
	}

	/**
	 * Finishes jobs of one bucket and topic and takes up to {@code wanted} READY jobs of the
	 * topic as {@link #reserve} does; {@code keep} (the topic's retention, or null) asks for the
	 * finished records. Waits for the replicas.
	 */
	ScriptReplies.Finished finish(int bucket, String topic, List<ReservedJob> jobs, int wanted, long ttrMillis,
			int attemptsLimit, @Nullable Retention keep) {
		String kept = (keep == null) ? "0" : (keep.payloads() ? "2" : "1");
		return ScriptReplies.Finished.decode(topic, jobs, wanted > 0, keep != null, this.runner
			.runReplicated(FINISH,
					call(bucket, wanted, ttrMillis, topic, attemptsLimit, kept, (wanted > 0) ? holder() : 0, 0,
							keysAndTokens(jobs))));
	}

	/** Fails a reservation: back-off in ms, or -1 to make the job DEAD now. */
	ScriptReplies.Failed fail(int bucket, ReservedJob job, long backOffMillis, String error) {
		return ScriptReplies.Failed.decode(this.runner.run(FAIL, call(bucket, KeySpace.jobKey(job.topic(), job.id()),
				job.token(), backOffMillis, JobConstraints.errorText(error))));
	}

	/** Extends a reservation: the new deadline, empty when the reservation is stale. */
	Optional<Instant> touch(int bucket, ReservedJob job, long ttrMillis) {
		List<Object> v = ScriptReplies.list(
				this.runner.run(TOUCH, call(bucket, KeySpace.jobKey(job.topic(), job.id()), job.token(), ttrMillis)));
		return (ScriptReplies.asLong(v.get(0)) == 1) ? Optional.of(ScriptReplies.instant(v.get(1))) : Optional.empty();
	}

	/**
	 * Gives reservations of one bucket back, the first given taken first again (one given twice
	 * goes back where it was first given); how many.
	 */
	int release(int bucket, List<ReservedJob> jobs) {
		// the calls run last part first: a repeat goes here, so that a later part cannot place it
		Set<String> seen = new HashSet<>();
		List<ReservedJob> given = jobs.stream()
			.filter((job) -> seen.add(KeySpace.jobKey(job.topic(), job.id()) + " " + job.token()))
			.toList();
		int released = 0;
		for (int to = given.size(); to > 0; to -= RELEASE_BATCH) {
			List<ReservedJob> part = given.subList(Math.max(0, to - RELEASE_BATCH), to);
			Object reply = this.runner.run(RELEASE, call(bucket, keysAndTokens(part)));
			released += (int) ScriptReplies.asLong(ScriptReplies.list(reply).get(0));
		}
		return released;
	}

	private static List<Object> keysAndTokens(List<ReservedJob> jobs) {
		List<Object> values = new ArrayList<>(2 * jobs.size());
		jobs.forEach((job) -> values.addAll(List.of(KeySpace.jobKey(job.topic(), job.id()), job.token())));
		return values;
	}

	/**
	 * Replays up to {@code max} DEAD jobs of a topic in a bucket: job {@code id}, or the oldest;
	 * waits for the replicas.
	 */
	ScriptReplies.Replayed replay(int bucket, String topic, int max, @Nullable String id, int named) {
		String jobKey = (id != null) ? KeySpace.jobKey(topic, id) : "";
		return write(REPLAY, call(bucket, topic, max, jobKey, named), (reply) -> ScriptReplies.Replayed.decode(topic, reply),
				(replayed) -> replayed.count() > 0);
	}

	/** The job keys of the DEAD jobs of a topic in one bucket that died at {@code diedAt} (ms), at most 20,000. */
	List<String> deadAt(int bucket, String topic, long diedAt) {
		return ScriptReplies.list(this.runner.run(TRIM_DEAD, call(bucket, "at", topic, diedAt))).stream()
			.map(ScriptReplies::asString)
			.toList();
	}

	/** Deletes DEAD jobs still DEAD with the time of death given (per bucket: job key, ms, ...). */
	long dropDead(String topic, Map<Integer, List<String>> deaths) {
		List<byte[][]> calls = new ArrayList<>(deaths.size());
		deaths.forEach((bucket, jobs) -> calls.add(call(bucket, "drop", topic, jobs)));
		return this.runner.runAll(TRIM_DEAD, calls, true)
			.stream()
			.mapToLong((reply) -> ScriptReplies.asLong(ScriptReplies.list(reply).get(0)))
			.sum();
	}

	/** Reads the figures of every bucket, of one topic or ({@code null}) all; one reply per bucket, in bucket order. */
	List<ScriptReplies.Figures> stats(@Nullable String topic) {
		return this.runner.runAll(STATS, (topic != null) ? everyBucket(topic) : everyBucket(), false)
			.stream()
			.map(ScriptReplies.Figures::decode)
			.toList();
	}

	/** One step of a bucket's repair ({@code repair.lua} names the steps, their arguments and replies). */
	List<@Nullable Object> repair(int bucket, boolean write, String step, List<?> values) {
		return ScriptReplies.list(this.runner.run(REPAIR, call(bucket, write ? "1" : "0", step, values)));
	}

	/** The timer's step; {@code quiet} leaves announcing to the caller, {@code offers} may take due jobs. */
	ScriptReplies.Promoted promote(int bucket, int batchSize, boolean guard, boolean quiet,
			List<Offers.Offering> offers) {
		List<Object> values = new ArrayList<>(
				List.of(batchSize, guard ? "1" : "0", quiet ? "1" : "0", offers.isEmpty() ? 0 : holder(), offers.size()));
		offers.forEach((offering) -> values.addAll(List.of(offering.topic, offering.offer.max(),
				offering.offer.ttrMillis(), offering.offer.attemptsLimit())));
		return ScriptReplies.Promoted.decode(this.runner.run(PROMOTE, call(bucket, values)));
	}

	/** Announces that a topic's ready list in a bucket has jobs, as a script's {@code r} event does. */
	void announceReady(int bucket, String topic) {
		byte[] message = KeySpace.bytes("r " + bucket + " " + topic);
		this.runner.execute("announcing the READY jobs of topic " + topic + " in bucket " + bucket,
				(connection) -> connection.publish(this.channel, message));
	}

	/**
	 * Sends this instance's heartbeat and takes its share of the bucket timers ({@code leaving}:
	 * none), and keeps this instance's number up to date.
	 */
	TimerBackend.Coordination coordinate(Duration leaseTtl, boolean leaving) {
		return coordinate(leaseTtl.toMillis(), leaving ? "1" : "0");
	}

	/** This instance's number for a reservation: taken from Redis first when none is known yet. */
	private int holder() {
		int known = this.number;
		return (known > 0) ? known : coordinate(0, "2").number();
	}

	private TimerBackend.Coordination coordinate(long leaseTtlMillis, String mode) {
		TimerBackend.Coordination coordination = ScriptReplies.coordination(this.runner.run(COORDINATE,
				args(List.of(this.keys.instances(), this.keys.timers(), this.keys.config(), this.keys.numbers()),
						this.instanceId, leaseTtlMillis, this.keys.buckets(), mode, this.channel, this.number)));
		if (coordination.number() > 0) {
			this.number = coordination.number();
		}
		return coordination;
	}

	/** The number of the instance a token names as its holder ({@code lib/token.lua}); 0: none (a 0.1.0 token). */
	static long holderNumber(long token) {
		return (token >= TOKEN_BASE) ? token % 10_000 : 0;
	}

	/**
	 * The instances that hold reservations, by token, as the numbers in the tokens name them; a
	 * token without a number, or with one no instance holds, is left out.
	 */
	Map<Long, String> holders(Collection<Long> tokens) {
		List<Long> numbers = tokens.stream().map(QueueScripts::holderNumber).filter((n) -> n > 0).distinct().toList();
		if (numbers.isEmpty()) {
			return Map.of();
		}
		byte[][] fields = numbers.stream().map((n) -> KeySpace.bytes(String.valueOf(n))).toArray(byte[][]::new);
		List<byte[]> ids = this.runner.execute("reading the instances that hold reservations",
				(connection) -> connection.hashCommands().hMGet(this.keys.numbers(), fields));
		Map<Long, String> holders = new HashMap<>();
		for (long token : tokens) {
			int at = numbers.indexOf(holderNumber(token));
			byte[] id = (at >= 0 && ids != null) ? ids.get(at) : null;
			if (id != null) {
				holders.put(token, new String(id, StandardCharsets.UTF_8));
			}
		}
		return holders;
	}

	/**
	 * Renews a heartbeat that is still there; -1 when a coordination is needed, else the
	 * earliest heartbeat expiry when {@code readEarliest}, or 0.
	 */
	long renew(Duration leaseTtl, long nowMillis, boolean readEarliest) {
		byte[] instances = this.keys.instances();
		byte[] member = KeySpace.bytes(this.instanceId);
		double expiry = nowMillis + leaseTtl.toMillis();
		RedisZSetCommands.ZAddArgs renewal = RedisZSetCommands.ZAddArgs.ifExists().ch();
		return this.runner.execute("renewing the heartbeat of instance " + this.instanceId, (connection) -> {
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

	/** Runs an operation of {@code recurring.lua} on a bucket; one that writes waits for the replicas. */
	@Nullable Object recurring(int bucket, Object... arguments) {
		byte[][] call = call(bucket, arguments);
		return Set.of("due", "get", "list").contains(String.valueOf(arguments[0])) ? this.runner.run(RECURRING, call)
				: this.runner.runReplicated(RECURRING, call);
	}

	/** Lists the recurring jobs of every bucket; the reply of each bucket, in bucket order. */
	List<Object> listRecurring() {
		return this.runner.runAll(RECURRING, everyBucket("list"), false);
	}

	/** The same call on every bucket, in bucket order. */
	private List<byte[][]> everyBucket(Object... values) {
		return IntStream.range(0, this.keys.buckets()).mapToObj((bucket) -> call(bucket, values)).toList();
	}

	/** A job script call: the bucket's keys, channel and number, then the values as {@link #args} takes them. */
	private byte[][] call(int bucket, Object... values) {
		return args(List.of(this.keys.jobs(bucket), this.keys.guard(bucket), this.channel,
				KeySpace.bytes(String.valueOf(bucket))), values);
	}

	/** A script call: its keys, then the values: byte arrays as they are, collections flattened, the rest as text. */
	static byte[][] args(List<byte[]> keys, Object... values) {
		List<byte[]> call = new ArrayList<>(keys);
		for (Object value : values) {
			for (Object item : (value instanceof Collection<?> items) ? items : Collections.singletonList(value)) {
				call.add((item instanceof byte[] bytes) ? bytes : KeySpace.bytes(String.valueOf(item)));
			}
		}
		return call.toArray(new byte[0][]);
	}

	/** Reads, per bucket, what {@code waiting.lua} answers for a topic's jobs of a state after a cursor. */
	List<Object> waiting(String topic, JobState state, int limit, boolean payloads, @Nullable PageCursor after) {
		return this.runner.runAll(WAITING, everyBucket(topic, state.code(), limit, (after != null) ? after.at() : "",
				(after != null) ? KeySpace.jobKey(topic, after.id()) : "", DelayQueueAdmin.MAX_EXAMINED,
				payloads ? "1" : "0"), false);
	}

}
