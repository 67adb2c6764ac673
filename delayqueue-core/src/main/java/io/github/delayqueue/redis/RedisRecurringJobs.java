package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
		int bucket = this.keys.bucketOfName(job.getName());
		byte[] spec = RecurringRecord.encodeSpec(job);
		long now = Replies.asLong(Replies.list(this.scripts.recurring(bucket, "get", job.getName())).get(0));
		for (int attempt = 1;; attempt++) {
			long next = nextTick(job, now);
			if (next == -1) {
				throw new IllegalArgumentException("schedule " + job.getSchedule() + " of recurring job '" + job.getName()
						+ "' has no tick after " + Instant.ofEpochMilli(now));
			}
			List<Object> reply = Replies.list(this.scripts.recurring(bucket, "put", job.getName(), spec, next));
			now = Replies.asLong(reply.get(0));
			long answer = Replies.asLong(reply.get(1));
			if (answer == -1) {
				checkAttempts(attempt, "put", job.getName());
				continue;
			}
			if (answer != 0) {
				this.timer.onRecurringTick(bucket, (next == RIGHT_AFTER_NOW) ? now + 1 : next);
			}
			return (answer == 1) ? PutResult.CREATED : (answer == 2) ? PutResult.UPDATED : PutResult.UNCHANGED;
		}
	}

	/** The first tick after now: -1 for none, {@link #RIGHT_AFTER_NOW} for a fixed delay. */
	private static long nextTick(RecurringJob job, long now) {
		if (job.getSchedule().getDelay() != null) {
			return RIGHT_AFTER_NOW;
		}
		Instant next = job.getSchedule().next(Instant.ofEpochMilli(now));
		return (next != null) ? next.toEpochMilli() : -1;
	}

	/** Fails a write whose time-dependent argument went stale {@value #MAX_ATTEMPTS} times. */
	private static void checkAttempts(int attempt, String operation, String name) {
		if (attempt > MAX_ATTEMPTS) {
			throw new IllegalStateException("Could not " + operation + " recurring job '" + name + "': it changed, or "
					+ "its next tick passed, " + MAX_ATTEMPTS + " times before it was written");
		}
	}

	@Override
	public boolean pause(String name) {
		return call("pause", name) >= 0;
	}

	@Override
	public boolean resume(String name) {
		int bucket = this.keys.bucketOfName(RecurringJob.name(name));
		for (int attempt = 1;; attempt++) {
			Optional<Read> read = read(bucket, name);
			if (read.isEmpty()) {
				return false;
			}
			long next = nextTick(read.get().record().job(), read.get().now());
			List<Object> reply = Replies
				.list(this.scripts.recurring(bucket, "resume", name, next, read.get().record().gen()));
			long result = Replies.asLong(reply.get(1));
			if (result == -2) {
				checkAttempts(attempt, "resume", name);
				continue;
			}
			if (result == 1 && next != -1) {
				this.timer.onRecurringTick(bucket, (next == RIGHT_AFTER_NOW) ? Replies.asLong(reply.get(0)) + 1 : next);
			}
			return result >= 0;
		}
	}

	@Override
	@SuppressWarnings("NullAway") // the arguments hold the occurrence's job key
	public Optional<String> trigger(String name) {
		int bucket = this.keys.bucketOfName(RecurringJob.name(name));
		for (int attempt = 1;; attempt++) {
			Optional<Read> read = read(bucket, name);
			if (read.isEmpty()) {
				return Optional.empty();
			}
			RecurringJob job = read.get().record().job();
			List<Object> arguments = new ArrayList<>();
			arguments.add("trigger");
			arguments.add(name);
			this.firing.addOccurrence(arguments, job, read.get().now(), read.get().now(), read.get().now(), true);
			arguments.add(read.get().record().gen());
			arguments.add((job.getSchedule().getDelay() != null) ? "1" : "0");
			long result = Replies.asLong(Replies.list(this.scripts.recurring(bucket, arguments.toArray())).get(1));
			if (result == -2) {
				checkAttempts(attempt, "trigger", name);
				continue;
			}
			if (result < 0) {
				return Optional.empty();
			}
			if (result == 1) {
				this.signals.markReady(job.getTopic(), bucket);
			}
			return Optional.of(Replies.asString(arguments.get(2)).substring(job.getTopic().length() + 1));
		}
	}

	@Override
	public boolean delete(String name) {
		return call("delete", name) == 1;
	}

	private long call(String operation, String name) {
		int bucket = this.keys.bucketOfName(RecurringJob.name(name));
		return Replies.asLong(Replies.list(this.scripts.recurring(bucket, operation, name)).get(1));
	}

	@Override
	public Optional<RecurringJobInfo> find(String name) {
		return read(this.keys.bucketOfName(RecurringJob.name(name)), name).map(Read::info);
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
					RecurringRecord record = RecurringRecord.decode(name, Replies.asBytes(reply.get(i + 1)));
					all.add(record.info(Replies.asLong(reply.get(i + 2)), Replies.asString(reply.get(i + 3))));
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

	@SuppressWarnings("NullAway") // the script's reply has these values
	private Optional<Read> read(int bucket, String name) {
		List<Object> reply = Replies.list(this.scripts.recurring(bucket, "get", name));
		long now = Replies.asLong(reply.get(0));
		if (reply.size() < 4) {
			return Optional.empty();
		}
		RecurringRecord record = RecurringRecord.decode(name, Replies.asBytes(reply.get(1)));
		return Optional.of(new Read(now, record, Replies.asLong(reply.get(2)), Replies.asString(reply.get(3))));
	}

	/** A definition as read, with Redis's time of the read. */
	private record Read(long now, RecurringRecord record, long nextTick, String lastState) {

		RecurringJobInfo info() {
			return this.record.info(this.nextTick, this.lastState);
		}

	}

}
