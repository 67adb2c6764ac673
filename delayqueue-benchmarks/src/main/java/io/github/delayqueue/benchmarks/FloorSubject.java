package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.script.DigestUtils;

/**
 * The floor designs: the least a Redis delayed queue in Lua does, as yardsticks for the
 * others. One ZSET of due times, one HASH of records and one LIST of ready jobs per topic; a
 * schedule is one script ({@code HSET} + {@code ZADD}, pipelined for bulk and async); one
 * mover thread runs a script that moves up to {@value #BATCH} due jobs to their lists, again
 * at once while it finds a full batch, else when the earliest job is due but at least every
 * {@value #POLL_MILLIS} ms; each consumer thread waits for a job with a blocking pop, then takes
 * it and up to {@value #TAKE} in all with one script ({@code LPOP} with a count +
 * {@code HMGET}), and takes again without waiting while it gets full batches. The clock is the
 * JVM's.
 * <ul>
 * <li>At most once ({@link Subject.Kind#FLOOR}): the wait is a {@code BLPOP}, the take deletes
 * the records; no reservation, no acknowledgement, no retry. A job is complete when its handler
 * returns.</li>
 * <li>At least once ({@link Subject.Kind#FLOOR_ALO}): the wait is a {@code BLMOVE} to a list
 * of the consumer's own, and each take starts with what that list holds (so a take that
 * fails after the wait leaves the job for the next one), the take adds the jobs to a
 * reserved ZSET (score: now + {@value #TTR_MILLIS} ms), one more script per batch acknowledges
 * them ({@code ZREM} + {@code HDEL}), and the mover also re-queues reservations whose deadline
 * passed. No fencing token, attempts, counts, announcements or duplicate check: the least
 * that keeps a job until it was handled. A job is complete when its acknowledgement
 * returned.</li>
 * </ul>
 * The payload is the same JSON as the others', written and read with Jackson.
 */
final class FloorSubject implements Subject {

	/** Jobs per bulk pipeline, and the most jobs the mover moves per call. */
	static final int BATCH = 1_000;

	/** The longest the mover waits between calls. */
	static final long POLL_MILLIS = 10;

	/** The most jobs one consumer thread takes per call. */
	static final int TAKE = 8;

	/** The reservation of the at-least-once design. */
	static final long TTR_MILLIS = 30_000;

	private static final String DUE = "floor:due";

	private static final String RECORDS = "floor:records";

	private static final String READY = "floor:ready:";

	private static final String RESERVED = "floor:reserved";

	private static final String TAKING = "floor:taking:";

	private static final long BLOCK_SECONDS = 5;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final List<RedisClient> clients = new ArrayList<>();

	private final List<Thread> threads = new ArrayList<>();

	private final RedisCommands<String, String> producer;

	private final StatefulRedisConnection<String, String> bulk;

	private final String scheduleSha;

	private final String moveSha;

	private final String takeSha;

	private final String finishSha;

	private final boolean atLeastOnce;

	private volatile boolean running = true;

	FloorSubject(BenchRedis redis, Layout layout, RecorderHolder recorder, boolean atLeastOnce) {
		this.atLeastOnce = atLeastOnce;
		for (int i = 0; i < layout.instances(); i++) {
			this.clients.add(RedisClient.create(RedisURI.create(redis.host(), redis.port())));
		}
		RedisClient first = this.clients.get(0);
		this.producer = first.connect().sync();
		this.bulk = first.connect();
		this.bulk.setAutoFlushCommands(false);
		this.scheduleSha = this.producer.scriptLoad(script("floor-schedule.lua"));
		this.moveSha = this.producer.scriptLoad(script("floor-move.lua"));
		this.takeSha = this.producer.scriptLoad(script("floor-take.lua"));
		this.finishSha = this.producer.scriptLoad(script("floor-finish.lua"));
		RedisCommands<String, String> mover = first.connect().sync();
		start("floor-mover", () -> move(mover));
		for (int i = 0; i < layout.instances(); i++) {
			for (String topic : layout.topics()) {
				for (int c = 0; c < layout.concurrency(); c++) {
					RedisCommands<String, String> consumer = this.clients.get(i).connect().sync();
					start("floor-" + topic + "-" + i + "-" + c, () -> consume(consumer, topic, recorder));
				}
			}
		}
	}

	private void start(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
		this.threads.add(thread);
	}

	private void move(RedisCommands<String, String> commands) {
		while (this.running) {
			try {
				Moved moved = Moved.of(commands.evalsha(this.moveSha, ScriptOutputType.MULTI, new String[] { DUE, READY, RESERVED },
						String.valueOf(System.currentTimeMillis()), String.valueOf(BATCH), this.atLeastOnce ? "1" : "0"));
				if (moved.jobs() < BATCH) {
					long untilDue = (moved.nextDue() < 0) ? POLL_MILLIS
							: Math.max(0, moved.nextDue() - System.currentTimeMillis());
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(POLL_MILLIS, untilDue)));
				}
			}
			catch (RuntimeException ex) {
				pauseAfter(ex);
			}
		}
	}

	private void consume(RedisCommands<String, String> commands, String topic, RecorderHolder recorder) {
		String ready = READY + topic;
		String taking = TAKING + Thread.currentThread().getName();
		String[] keys = { RECORDS, ready, RESERVED, taking };
		// at least once: the first take collects what an earlier run of this consumer left in its list
		boolean more = true;
		while (this.running) {
			try {
				String first = "";
				if (!more) {
					// waits for a job: pops it (at most once) or moves it to this consumer's list
					String waited = this.atLeastOnce
							? commands.blmove(ready, taking, LMoveArgs.Builder.leftLeft(), BLOCK_SECONDS)
							: value(commands.blpop(BLOCK_SECONDS, ready));
					if (waited == null) {
						continue;
					}
					first = waited;
				}
				String deadline = this.atLeastOnce ? String.valueOf(System.currentTimeMillis() + TTR_MILLIS) : "";
				List<Object> taken = commands.evalsha(this.takeSha, ScriptOutputType.MULTI, keys, String.valueOf(TAKE),
						deadline, first);
				// a full batch: there may be more at once
				more = (Long) taken.get(0) == TAKE;
				String[] ids = new String[(taken.size() - 1) / 2];
				for (int i = 1; i < taken.size(); i += 2) {
					ids[i / 2] = (String) taken.get(i);
					BenchPayload payload = this.mapper.readValue((String) taken.get(i + 1), BenchPayload.class);
					recorder.delivered(payload.seq(), payload.due());
				}
				if (this.atLeastOnce && ids.length > 0) {
					commands.evalsha(this.finishSha, ScriptOutputType.INTEGER, new String[] { RECORDS, RESERVED }, ids);
				}
				for (int i = 0; i < ids.length; i++) {
					recorder.completed();
				}
			}
			catch (RuntimeException ex) {
				// at least once, a job may wait in this consumer's list: take without waiting
				more = this.atLeastOnce;
				pauseAfter(ex);
			}
		}
	}

	private static String value(KeyValue<String, String> popped) {
		return (popped != null && popped.hasValue()) ? popped.getValue() : null;
	}

	/**
	 * Goes on after a failure while running (e.g. Redis busy with another call), quietly
	 * when closing.
	 */
	private void pauseAfter(RuntimeException ex) {
		if (this.running) {
			System.out.println("  floor " + Thread.currentThread().getName() + ": " + ex);
			LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
		}
	}

	@Override
	public void schedule(Job job) {
		this.producer.evalsha(this.scheduleSha, ScriptOutputType.INTEGER, new String[] { DUE, RECORDS }, args(job));
	}

	/**
	 * Sends the jobs in pipelines of {@value #BATCH} script calls, each written while Redis
	 * runs the one before.
	 */
	@Override
	public void scheduleBulk(List<Job> jobs) {
		RedisAsyncCommands<String, String> commands = this.bulk.async();
		List<RedisFuture<Long>> previous = List.of();
		for (int from = 0; from < jobs.size(); from += BATCH) {
			List<RedisFuture<Long>> replies = new ArrayList<>(BATCH);
			for (Job job : jobs.subList(from, Math.min(jobs.size(), from + BATCH))) {
				replies.add(commands.evalsha(this.scheduleSha, ScriptOutputType.INTEGER, new String[] { DUE, RECORDS },
						args(job)));
			}
			this.bulk.flushCommands();
			await(previous);
			previous = replies;
		}
		await(previous);
	}

	@Override
	public void scheduleAsync(List<Job> jobs) {
		RedisAsyncCommands<String, String> commands = this.producer.getStatefulConnection().async();
		List<RedisFuture<Long>> replies = new ArrayList<>(jobs.size());
		for (Job job : jobs) {
			replies.add(commands.evalsha(this.scheduleSha, ScriptOutputType.INTEGER, new String[] { DUE, RECORDS },
					args(job)));
		}
		await(replies);
	}

	private String[] args(Job job) {
		BenchPayload payload = job.payload();
		return new String[] { job.topic() + ":" + job.id(), String.valueOf(payload.due()),
				this.mapper.writeValueAsString(payload) };
	}

	private static void await(List<RedisFuture<Long>> replies) {
		if (!LettuceFutures.awaitAll(Duration.ofMinutes(1), replies.toArray(RedisFuture[]::new))) {
			throw new IllegalStateException("schedule calls not answered within a minute");
		}
	}

	@Override
	public long pending() {
		return this.producer.hlen(RECORDS);
	}

	@Override
	public void close() {
		this.running = false;
		this.clients.forEach(RedisClient::shutdown);
		this.clients.clear();
		for (Thread thread : this.threads) {
			try {
				thread.join(TimeUnit.SECONDS.toMillis(BLOCK_SECONDS + 1));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	@Override
	public Map<String, String> scriptNames() {
		Map<String, String> names = new HashMap<>();
		for (String name : List.of("floor-schedule", "floor-move", "floor-take", "floor-finish")) {
			names.put(DigestUtils.sha1DigestAsHex(script(name + ".lua")), name);
		}
		return names;
	}

	/** A script of the floor designs, from this package's resources. */
	static String script(String name) {
		try (InputStream in = FloorSubject.class.getResourceAsStream(name)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The reply of the move script.
	 *
	 * @param jobs how many jobs it moved
	 * @param nextDue the earliest due time left, or -1 when none is
	 */
	private record Moved(long jobs, long nextDue) {

		static Moved of(List<Object> reply) {
			return new Moved((Long) reply.get(0), (Long) reply.get(1));
		}

	}

}
