package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * {@link RecurringJobs} on {@code recurring.lua}, a definition in bucket
 * {@code crc32(name) mod buckets}. A write that needs the time reads Redis's first, then writes
 * in a call that refuses it when what it depends on changed.
 */
final class RedisRecurringJobs implements RecurringJobs {

	private static final Log logger = LogFactory.getLog(RedisRecurringJobs.class);

	/** How often a write whose time-dependent argument went stale is worked out again. */
	private static final int MAX_ATTEMPTS = 5;

	/** The next tick that {@code recurring.lua} takes as right after its own now. */
	private static final long RIGHT_AFTER_NOW = -2;

	private final QueueScripts scripts;

	private final KeySpace keys;

	private final RecurringFiring firing;

	private final ReadySignals signals;

	private final BucketTimer timer;

	private final long maxPayloadSize;

	RedisRecurringJobs(QueueScripts scripts, KeySpace keys, RecurringFiring firing, ReadySignals signals,
			BucketTimer timer, long maxPayloadSize) {
		this.scripts = scripts;
		this.keys = keys;
		this.firing = firing;
		this.signals = signals;
		this.timer = timer;
		this.maxPayloadSize = maxPayloadSize;
	}

	@Override
	public PutResult put(RecurringJob job) {
		if (job == null) {
			throw new IllegalArgumentException("job must not be null");
		}
		StoredPayload.checkSize(job.getHeaders(), job.getPayload(), this.maxPayloadSize);
		byte[] spec = RecurringRecord.encodeSpec(job);
		return retried("put", job.getName(), (read) -> {
			long next = nextTick(job, read.now());
			if (next == -1) {
				throw new IllegalArgumentException("schedule " + job.getSchedule() + " of recurring job '" + job.getName()
						+ "' has no tick after " + Instant.ofEpochMilli(read.now()));
			}
			long answer = writeTick(read.bucket(), next, "put", job.getName(), spec, next);
			return (answer == -1) ? null
					: (answer == 1) ? PutResult.CREATED : (answer == 2) ? PutResult.UPDATED : PutResult.UNCHANGED;
		});
	}

	@Override
	public boolean pause(String name) {
		return Replies.asLong(call(bucketOf(name), "pause", name).get(1)) >= 0;
	}

	@Override
	public boolean resume(String name) {
		return retried("resume", name, (read) -> {
			RecurringJobInfo info = read.info();
			if (info == null) {
				return false;
			}
			long next = nextTick(info.job(), read.now());
			long result = writeTick(read.bucket(), next, "resume", name, next, read.gen());
			return (result == -2) ? null : result >= 0;
		});
	}

	@Override
	@SuppressWarnings("NullAway") // the arguments hold the occurrence's job key
	public Optional<String> trigger(String name) {
		return retried("trigger", name, (read) -> {
			RecurringJobInfo info = read.info();
			if (info == null) {
				return Optional.empty();
			}
			RecurringJob job = info.job();
			List<Object> arguments = new ArrayList<>(List.of("trigger", name));
			this.firing.addOccurrence(arguments, job, read.now(), read.now(), read.now(), true);
			arguments.add(read.gen());
			arguments.add((job.getSchedule().getDelay() != null) ? "1" : "0");
			long result = Replies.asLong(call(read.bucket(), arguments.toArray()).get(1));
			if (result == 1) {
				this.signals.markReady(job.getTopic(), read.bucket());
			}
			return (result == -2) ? null : (result < 0) ? Optional.empty()
					: Optional.of(Replies.asString(arguments.get(2)).substring(job.getTopic().length() + 1));
		});
	}

	@Override
	public boolean delete(String name) {
		return Replies.asLong(call(bucketOf(name), "delete", name).get(1)) == 1;
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
			List<Object> reply = Replies.list(bucketReply);
			for (int i = 1; i + 3 < reply.size(); i += 4) {
				String name = Replies.asString(reply.get(i));
				try {
					all.add(RecurringRecord.decode(name, Replies.asBytes(reply.get(i + 1)), Replies.asLong(reply.get(i + 2)),
							Replies.asString(reply.get(i + 3))));
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

	/** The first tick after now: -1 for none, {@link #RIGHT_AFTER_NOW} for a fixed delay. */
	static long nextTick(RecurringJob job, long now) {
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

	/** Runs a write that may set a next tick, and wakes the timer when it did; returns the script's answer. */
	private long writeTick(int bucket, long next, Object... arguments) {
		List<Object> reply = call(bucket, arguments);
		long answer = Replies.asLong(reply.get(1));
		if (answer > 0 && next != -1) {
			this.timer.onRecurringTick(bucket, (next == RIGHT_AFTER_NOW) ? Replies.asLong(reply.get(0)) + 1 : next);
		}
		return answer;
	}

	private int bucketOf(String name) {
		return this.keys.bucketOfName(RecurringJob.name(name));
	}

	private List<Object> call(int bucket, Object... arguments) {
		return Replies.list(this.scripts.recurring(bucket, arguments));
	}

	private Read read(int bucket, String name) {
		return new Read(bucket, name, call(bucket, "get", name));
	}

	/** A {@code get} reply: Redis's time, then the record, its next tick and last state letter when it exists. */
	@SuppressWarnings("NullAway") // the script's reply has these values
	private record Read(int bucket, String name, List<Object> reply) {

		long now() {
			return Replies.asLong(this.reply.get(0));
		}

		@Nullable RecurringJobInfo info() {
			return (this.reply.size() < 4) ? null : RecurringRecord.decode(this.name, Replies.asBytes(this.reply.get(1)),
					Replies.asLong(this.reply.get(2)), Replies.asString(this.reply.get(3)));
		}

		long gen() {
			return RecurringRecord.genOf(Replies.asBytes(this.reply.get(1)));
		}

	}

}
