package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.NotEnoughReplicasException;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.recurring.RecurringSchedule;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link RecurringJobs} on {@code recurring.lua}, a definition in bucket
 * {@code crc32(name) mod buckets}, and the firing of the definitions whose tick has come. A
 * write that needs the time reads Redis's first, then writes in a call that refuses it when what
 * it depends on changed.
 */
final class RedisRecurringJobs implements RecurringJobs {

	private static final Log logger = LogFactory.getLog(RedisRecurringJobs.class);

	/** How often a write whose time-dependent argument went stale is worked out again. */
	private static final int MAX_ATTEMPTS = 5;

	/** The next tick that {@code recurring.lua} takes as right after its own now. */
	private static final long RIGHT_AFTER_NOW = -2;

	/** The most definitions one firing fires. */
	private static final int DUE_LIMIT = 100;

	/** How often a fixed delay looks whether its occurrence left the queue, at most. */
	private static final long FIXED_DELAY_LOOK_MILLIS = 1_000;

	/** The most occurrences one firing creates. */
	private static final int MAX_OCCURRENCES = 1_000;

	/** The most payload bytes (with headers) of the occurrences one firing creates. */
	private static final long MAX_BYTES = 16L * 1024 * 1024;

	/** How long a definition whose spec cannot be read waits before it is read again. */
	private static final long UNREADABLE_RETRY_MILLIS = 60_000;

	private static final DateTimeFormatter TICK = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss")
		.withZone(ZoneOffset.UTC);

	private final QueueScripts scripts;

	private final KeySpace keys;

	private final Duration defaultTtr;

	private final int defaultMaxAttempts;

	private final long maxPayloadSize;

	private final DelayQueueObserver observer;

	private final ReadySignals signals;

	private final BiConsumer<Integer, Long> tickSet;

	/** {@code tickSet} wakes the timer for a bucket's new next tick. */
	RedisRecurringJobs(QueueScripts scripts, KeySpace keys, Duration defaultTtr, int defaultMaxAttempts,
			long maxPayloadSize, DelayQueueObserver observer, ReadySignals signals, BiConsumer<Integer, Long> tickSet) {
		this.scripts = scripts;
		this.keys = keys;
		this.defaultTtr = defaultTtr;
		this.defaultMaxAttempts = defaultMaxAttempts;
		this.maxPayloadSize = maxPayloadSize;
		this.observer = observer;
		this.signals = signals;
		this.tickSet = tickSet;
	}

	@Override
	public PutResult put(RecurringJob job) {
		Assert.notNull(job, "job must not be null");
		StoredPayload.checkSize(job.getHeaders(), job.getPayload(), this.maxPayloadSize);
		byte[] spec = RecurringRecord.encodeSpec(job);
		return retried("put", job.getName(), (read) -> {
			long next = nextTick(job, read.now());
			if (next == -1) {
				throw new IllegalArgumentException("schedule " + job.getSchedule() + " of recurring job '" + job.getName()
						+ "' has no tick after " + Instant.ofEpochMilli(read.now()));
			}
			long answer = write(read.bucket(), "put", job.getName(), spec, next);
			return (answer == -1) ? null
					: (answer == 1) ? PutResult.CREATED : (answer == 2) ? PutResult.UPDATED : PutResult.UNCHANGED;
		});
	}

	@Override
	public boolean pause(String name) {
		return write(bucketOf(name), "pause", name) >= 0;
	}

	@Override
	public boolean resume(String name) {
		return retried("resume", name, (read) -> {
			RecurringJobInfo info = read.info();
			if (info == null) {
				return false;
			}
			long result = write(read.bucket(), "resume", name, nextTick(info.job(), read.now()), read.gen());
			return (result == -2) ? null : result >= 0;
		});
	}

	@Override
	public Optional<String> trigger(String name) {
		return retried("trigger", name, (read) -> {
			RecurringJobInfo info = read.info();
			if (info == null) {
				return Optional.empty();
			}
			RecurringJob job = info.job();
			List<Object> arguments = new ArrayList<>(List.of("trigger", name));
			String id = addOccurrence(arguments, job, read.now(), read.now(), read.now(), true);
			arguments.addAll(List.of(read.gen(), (job.getSchedule().getDelay() != null) ? "1" : "0"));
			long result;
			try {
				result = ScriptReplies.asLong(call(read.bucket(), arguments.toArray()).get(1));
			}
			catch (DelayQueueException ex) {
				String message = ex.getMessage() + "; the trigger may have created job '" + id + "' of topic '"
						+ job.getTopic() + "': triggering again creates another";
				throw (ex instanceof DelayQueueConnectionException) ? new DelayQueueConnectionException(message, ex)
						: (ex instanceof NotEnoughReplicasException) ? new NotEnoughReplicasException(message, ex)
								: new DelayQueueException(message, ex);
			}
			if (result == 1) {
				this.signals.markReady(job.getTopic(), read.bucket());
			}
			return (result == -2) ? null : (result < 0) ? Optional.empty() : Optional.of(id);
		});
	}

	@Override
	public boolean delete(String name) {
		return write(bucketOf(name), "delete", name) == 1;
	}

	@Override
	public Optional<RecurringJobInfo> find(String name) {
		return Optional.ofNullable(read(bucketOf(name), name).info());
	}

	@Override
	@SuppressWarnings("NullAway") // the script's reply has these values
	public List<RecurringJobInfo> list() {
		List<RecurringJobInfo> all = new ArrayList<>();
		for (Object bucketReply : this.scripts.listRecurring()) {
			List<Object> reply = ScriptReplies.list(bucketReply);
			for (int i = 1; i + 3 < reply.size(); i += 4) {
				String name = ScriptReplies.asString(reply.get(i));
				try {
					all.add(RecurringRecord.decode(name, reply, i + 1));
				}
				catch (RuntimeException ex) {
					logger.warn("Leaving out recurring job " + name + ", which cannot be read (written by another "
							+ "version?); put it again to replace it: " + ex.getMessage());
				}
			}
		}
		all.sort(Comparator.comparing(RecurringJobInfo::name));
		return all;
	}

	/** {@code <name>@<UTC tick>[-trigger][~<n>]}, n the smallest that lands in the definition's bucket. */
	static String occurrenceId(KeySpace keys, RecurringJob job, long tickMillis, boolean trigger) {
		long millis = Math.floorMod(tickMillis, 1000L);
		String base = job.getName() + "@" + TICK.format(Instant.ofEpochMilli(tickMillis))
				+ ((millis != 0) ? String.format(".%03d", millis) : "") + "Z" + (trigger ? "-trigger" : "");
		int bucket = keys.bucketOfName(job.getName());
		String id = base;
		for (int n = 1; keys.bucketOf(job.getTopic(), id) != bucket; n++) {
			id = base + "~" + n;
		}
		return id;
	}

	/**
	 * Adds the seven script arguments of one occurrence: job key, topic, payload, due, ttr, max
	 * attempts, tick; returns its id.
	 */
	private String addOccurrence(List<Object> arguments, RecurringJob job, long idTickMillis, long dueMillis,
			long tickMillis, boolean trigger) {
		String id = occurrenceId(this.keys, job, idTickMillis, trigger);
		arguments.addAll(List.of(KeySpace.jobKey(job.getTopic(), id), job.getTopic(),
				StoredPayload.encode(job.getHeaders(), job.getPayload()), dueMillis,
				((job.getTtr() != null) ? job.getTtr() : this.defaultTtr).toMillis(),
				(job.getMaxAttempts() != null) ? job.getMaxAttempts() : this.defaultMaxAttempts, tickMillis));
		return id;
	}

	/**
	 * Fires the due definitions of a bucket, at most {@value #MAX_OCCURRENCES} occurrences and
	 * {@value #MAX_BYTES} payload bytes per call; the rest stay due.
	 */
	@SuppressWarnings("NullAway") // the script's reply has these values
	TimerBackend.RecurringStep fire(int bucket) {
		List<Object> due = call(bucket, "due", DUE_LIMIT);
		long now = ScriptReplies.asLong(due.get(0));
		if (due.size() == 2) {
			return new TimerBackend.RecurringStep(ScriptReplies.asLong(due.get(1)), now, List.of(), true);
		}
		List<Object> arguments = new ArrayList<>(List.of("fire"));
		List<Plan> plans = new ArrayList<>();
		int occurrencesLeft = MAX_OCCURRENCES;
		long bytesLeft = MAX_BYTES;
		// the ticks the plans counted so far: their skipped ones and their occurrences
		long counted = 0;
		for (int i = 2; i + 3 < due.size() && (plans.isEmpty() || counted < RecurringTicks.TICK_LIMIT); i += 4) {
			String name = ScriptReplies.asString(due.get(i));
			long tick = ScriptReplies.asLong(due.get(i + 2));
			Plan plan = plan(name, ScriptReplies.asBytes(due.get(i + 1)), tick, now,
					ScriptReplies.asString(due.get(i + 3)));
			counted += plan.skipped + plan.occurrences.size();
			if (!plans.isEmpty() && (plan.occurrences.size() > occurrencesLeft || plan.bytes > bytesLeft)) {
				break;
			}
			occurrencesLeft -= plan.occurrences.size();
			bytesLeft -= plan.bytes;
			plans.add(plan);
			arguments.addAll(List.of(name, plan.gen, tick, plan.nextTick, plan.overlap ? "1" : "0", plan.skipped,
					plan.misfired, plan.occurrences.size()));
			for (long[] occurrence : plan.occurrences) {
				addOccurrence(arguments, plan.job, occurrence[0], occurrence[1], occurrence[2], false);
			}
		}
		List<Object> reply = call(bucket, arguments.toArray());
		int at = 3 + (int) ScriptReplies.asLong(reply.get(2));
		List<String> topics = reply.subList(3, at).stream().map(ScriptReplies::asString).toList();
		boolean progressed = false;
		for (Plan plan : plans) {
			String result = ScriptReplies.asString(reply.get(at++));
			long created = ScriptReplies.asLong(reply.get(at++));
			progressed |= !"s".equals(result) && !"e".equals(result);
			report(plan, result, created);
		}
		return new TimerBackend.RecurringStep(ScriptReplies.asLong(reply.get(1)), ScriptReplies.asLong(reply.get(0)),
				topics, progressed);
	}

	private void report(Plan plan, String result, long created) {
		long skipped = plan.skipped + plan.occurrences.size() - created;
		boolean fired = "f".equals(result) || "k".equals(result);
		if (fired && plan.job != null && created + skipped + plan.misfired > 0) {
			this.observer.recurringFired(plan.name, plan.job.getTopic(), created, skipped, plan.misfired);
			if (plan.misfired > 0 && logger.isInfoEnabled()) {
				logger.info("Recurring job " + plan.name + " missed " + plan.misfired + " tick(s) (misfire policy "
						+ plan.job.getMisfirePolicy() + "): created " + created + " occurrence(s)");
			}
		}
		else if (!fired && logger.isDebugEnabled()) {
			logger.debug("Recurring job " + plan.name + " not fired: " + result);
		}
	}

	/** What one definition's firing creates; an unreadable one only moves on, or leaves the due set. */
	@SuppressWarnings("NullAway") // a fixed delay has its delay
	private Plan plan(String name, byte[] value, long tick, long now, String lastState) {
		long gen = RecurringRecord.genOf(value);
		RecurringJob job;
		try {
			job = RecurringRecord.job(name, value);
		}
		catch (RuntimeException ex) {
			logger.error("Cannot read the recurring job " + name + " of this namespace (written by another "
					+ "version?); it is not fired. Put it again to replace it: " + ex.getMessage());
			return new Plan(name, null, gen, (gen >= 0) ? now + UNREADABLE_RETRY_MILLIS : -1, false, 0, 0, List.of(), 0);
		}
		RecurringSchedule schedule = job.getSchedule();
		long size = Math.max(1, StoredPayload.encode(job.getHeaders(), job.getPayload()).length);
		if (schedule.getDelay() != null) {
			// while the last occurrence is in the queue, look again soon; else create the next, due after the delay
			long delay = schedule.getDelay().toMillis();
			boolean inQueue = !lastState.isEmpty() && !lastState.equals("X");
			List<long[]> next = inQueue ? List.of() : List.of(new long[] { now + delay, now + delay, now + delay });
			return new Plan(name, job, gen, now + (inQueue ? Math.min(delay, FIXED_DELAY_LOOK_MILLIS) : delay), false, 0,
					0, next, next.size() * size);
		}
		int cap = (int) Math.max(1, Math.min(Math.min(job.getMaxCatchUp(), MAX_OCCURRENCES), MAX_BYTES / size));
		long lateBefore = now - job.getMisfireThreshold().toMillis();
		RecurringTicks ticks = RecurringTicks.between(schedule, tick, now, lateBefore, cap);
		List<Long> recent = ticks.recent();
		List<long[]> occurrences = new ArrayList<>();
		if (ticks.late() > 0 && job.getMisfirePolicy() == MisfirePolicy.FIRE_ONCE) {
			// named after the first tick it stands for, recorded as the last
			occurrences.add(new long[] { tick, now, recent.get(recent.size() - 1) });
		}
		else {
			// SKIP leaves the late ticks out (when none is late, every policy takes them all)
			recent.stream()
				.filter((t) -> t >= lateBefore || job.getMisfirePolicy() != MisfirePolicy.SKIP)
				.forEach((t) -> occurrences.add(new long[] { t, t, t }));
		}
		boolean overlap = job.getOverlapPolicy() == OverlapPolicy.SKIP;
		if (overlap && occurrences.size() > 1) {
			occurrences.subList(0, occurrences.size() - 1).clear();
		}
		return new Plan(name, job, gen, nextTick(job, now), overlap, ticks.total() - occurrences.size(), ticks.late(),
				occurrences, occurrences.size() * size);
	}

	/** The first tick after now: -1 for none, {@link #RIGHT_AFTER_NOW} for a fixed delay. */
	private static long nextTick(RecurringJob job, long now) {
		if (job.getSchedule().getDelay() != null) {
			return RIGHT_AFTER_NOW;
		}
		Instant next = job.getSchedule().next(Instant.ofEpochMilli(now));
		return (next != null) ? next.toEpochMilli() : -1;
	}

	/** Reads a definition and writes from it until the write does not find it stale ({@code null}). */
	private <T> T retried(String operation, String name, Function<Read, @Nullable T> write) {
		int bucket = bucketOf(name);
		for (int attempt = 0; attempt <= MAX_ATTEMPTS; attempt++) {
			T result = write.apply(read(bucket, name));
			if (result != null) {
				return result;
			}
		}
		throw new IllegalStateException("Could not " + operation + " recurring job '" + name + "': it changed, or its "
				+ "next tick passed, " + MAX_ATTEMPTS + " times before it was written");
	}

	/** Runs a write, and wakes the timer for the next tick it answers having set; returns the script's answer. */
	private long write(int bucket, Object... arguments) {
		List<Object> reply = call(bucket, arguments);
		if (reply.size() > 2 && ScriptReplies.asLong(reply.get(2)) >= 0) {
			this.tickSet.accept(bucket, ScriptReplies.asLong(reply.get(2)));
		}
		return ScriptReplies.asLong(reply.get(1));
	}

	private int bucketOf(String name) {
		return this.keys.bucketOfName(RecurringJob.name(name));
	}

	private List<Object> call(int bucket, Object... arguments) {
		return ScriptReplies.list(this.scripts.recurring(bucket, arguments));
	}

	private Read read(int bucket, String name) {
		return new Read(bucket, name, call(bucket, "get", name));
	}

	/** A {@code get} reply: Redis's time, then the record, its next tick and last state letter when it exists. */
	@SuppressWarnings("NullAway") // the script's reply has these values
	private record Read(int bucket, String name, List<Object> reply) {

		long now() {
			return ScriptReplies.asLong(this.reply.get(0));
		}

		@Nullable RecurringJobInfo info() {
			return (this.reply.size() < 4) ? null : RecurringRecord.decode(this.name, this.reply, 1);
		}

		long gen() {
			return RecurringRecord.genOf(ScriptReplies.asBytes(this.reply.get(1)));
		}

	}

	/**
	 * One definition's firing: job is {@code null} when unreadable, gen -1 when its header is;
	 * each occurrence is the tick its id names, its due time and the tick it is recorded as.
	 */
	private record Plan(String name, @Nullable RecurringJob job, long gen, long nextTick, boolean overlap, long skipped,
			long misfired, List<long[]> occurrences, long bytes) {

	}

}
