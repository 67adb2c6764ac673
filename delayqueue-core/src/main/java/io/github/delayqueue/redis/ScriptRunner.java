package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Runs scripts with {@code EVALSHA}, falling back to {@code EVAL} on {@code NOSCRIPT}, and
 * translates Redis failures into delayqueue exceptions. A script that a Redis Cluster node
 * refused while its slot migrates changed nothing and is run again, for up to
 * {@link #MIGRATION_WAIT}.
 */
final class ScriptRunner {

	/** The most bytes of keys and arguments a batch sends on Lettuce's shared connection. */
	static final int SHARED_BATCH_BYTES = 512 * 1024;

	/** The most keys and arguments a batch sends on Lettuce's shared connection. */
	static final int SHARED_BATCH_VALUES = 16 * 1024;

	/** How long a script refused during a slot migration is retried. */
	static final Duration MIGRATION_WAIT = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(ScriptRunner.class);

	private final RedisConnectionFactory connectionFactory;

	private final ReplicaWait replicaWait;

	private final BackOff migrationBackOff;

	private final Runnable beforeCall;

	/** Whether the factory's connections are a Redis Cluster's, once asked: the factory does not change. */
	private volatile @Nullable Boolean cluster;

	ScriptRunner(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, new ReplicaWait(0, Duration.ZERO), () -> {
		});
	}

	/** Creates a runner; {@code beforeCall} runs before every call, which throws what it throws. */
	ScriptRunner(RedisConnectionFactory connectionFactory, ReplicaWait replicaWait, Runnable beforeCall) {
		this.connectionFactory = connectionFactory;
		this.replicaWait = replicaWait;
		this.beforeCall = beforeCall;
		ExponentialBackOff backOff = new ExponentialBackOff(10, 2);
		backOff.setMaxInterval(500);
		backOff.setMaxElapsedTime(MIGRATION_WAIT.toMillis());
		this.migrationBackOff = backOff;
	}

	/** Runs a script given its keys, then {@code ARGV}: a {@code List}, {@code Long}, {@code byte[]} or null. */
	@Nullable Object run(LuaScript script, byte[][] keysAndArgs) {
		return runAll(script, List.<byte[][]>of(keysAndArgs), false).get(0);
	}

	/** {@link #run}, then {@code WAIT} for the replicas asked for; throws when too few acknowledged. */
	@Nullable Object runReplicated(LuaScript script, byte[][] keysAndArgs) {
		return runAll(script, List.<byte[][]>of(keysAndArgs), true).get(0);
	}

	/** Whether {@link #runReplicated} waits for replicas. */
	boolean waitsForReplicas() {
		return !this.replicaWait.isOff();
	}

	/** Runs a command on a connection, with the same error translation as scripts. */
	<T extends @Nullable Object> T execute(String what, Function<RedisConnection, T> action) {
		return execute(what, false, action);
	}

	/**
	 * Whether the connection factory gives Redis Cluster connections: asked on a connection the
	 * first time (a failure then names {@code what}), then kept.
	 */
	boolean cluster(String what) {
		Boolean cluster = this.cluster;
		if (cluster == null) {
			cluster = execute(what, (connection) -> connection instanceof RedisClusterConnection);
			this.cluster = cluster;
		}
		return cluster;
	}

	private <T extends @Nullable Object> T execute(String what, boolean waiting, Function<RedisConnection, T> action) {
		this.beforeCall.run();
		try (RedisConnection connection = waiting ? this.replicaWait.connection(this.connectionFactory)
				: this.connectionFactory.getConnection()) {
			return action.apply(connection);
		}
		catch (DataAccessException ex) {
			throw translate(what, ex);
		}
	}

	/**
	 * Runs the same script once per argument list, in one round trip where the connection
	 * allows: a batch on a Lettuce connection (small on the shared one, any on one of the writes
	 * that wait), any other in a pipeline (its first call as {@code EVAL}: a pipeline that meets
	 * {@code NOSCRIPT} does not say which of its calls ran, and a master/replica connection sends
	 * {@code SCRIPT LOAD} to a replica), a single call or a cluster's one at a time; with
	 * {@code replicated}, then {@code WAIT}s for the replicas, on the connection
	 * {@link ReplicaWait#connection} gives. A write the replicas did not get carries the replies.
	 * @return one reply per call, in order
	 */
	List<Object> runAll(LuaScript script, List<byte[][]> calls, boolean replicated) {
		boolean waiting = replicated && waitsForReplicas();
		return execute(script.name(), waiting, (connection) -> {
			if (calls.isEmpty()) {
				return List.of();
			}
			boolean lettuce = ReplicaWait.LETTUCE && connection instanceof LettuceConnection;
			// a write that waits on a shared connection not of its own goes in a pipeline's
			boolean aside = waiting && lettuce && !this.replicaWait.owns(connection);
			boolean oneByOne = !pipelines(connection) || (calls.size() == 1 && !aside);
			boolean batch = !oneByOne && !aside && lettuce && (waiting || isSmall(calls));
			boolean pipelined = !oneByOne && !batch;
			if (pipelined) {
				connection.openPipeline();
			}
			List<Object> replies = List.of();
			try {
				Function<String, Runnable> writes = waiting ? this.replicaWait.start(connection) : null;
				if (pipelined) {
					connection.scriptingCommands().eval(script.body(), ReturnType.MULTI, script.keys(), calls.get(0));
					for (byte[][] call : calls.subList(1, calls.size())) {
						connection.scriptingCommands().evalSha(script.sha(), ReturnType.MULTI, script.keys(), call);
					}
				}
				else {
					replies = oneByOne ? calls.stream().map((call) -> eval(connection, script, call)).toList()
							: batch(connection, script, calls);
				}
				Runnable await = (writes != null) ? writes.apply(script.name()) : null;
				if (pipelined) {
					replies = new ArrayList<>(connection.closePipeline());
				}
				if (await != null) {
					await.run();
				}
				return replies;
			}
			catch (ReplicaWait.NotReplicated ex) {
				throw ex.withReplies(replies);
			}
			catch (RedisPipelineException ex) {
				Throwable first = (ex.getCause() != null) ? ex.getCause() : ex;
				throw batchFailure(calls, script, first,
						first instanceof RedisConnectionFailureException || first instanceof QueryTimeoutException);
			}
		});
	}

	/** Closes the own connections of the writes that wait for replicas, each once its write is done. */
	void close() {
		this.replicaWait.close();
	}

	/** Whether a batch may go on Lettuce's shared connection, where others' commands wait behind it. */
	static boolean isSmall(List<byte[][]> calls) {
		long values = calls.stream().mapToLong((call) -> call.length).sum();
		long bytes = calls.stream().flatMap(Arrays::stream).mapToLong((value) -> value.length).sum();
		return bytes <= SHARED_BATCH_BYTES && values <= SHARED_BATCH_VALUES;
	}

	/**
	 * Sends every call before reading the first reply; calls that met {@code NOSCRIPT} are sent
	 * again (the first with {@code EVAL}) unless a call got no answer. Then throws a call
	 * without an answer as a connection failure, else a call Redis refused.
	 */
	private List<Object> batch(RedisConnection connection, LuaScript script, List<byte[][]> calls) {
		List<@Nullable Object> replies = RawCommands.sendAll(this.connectionFactory, connection, script, calls, false);
		List<Integer> missing = IntStream.range(0, replies.size())
			.filter((i) -> replies.get(i) instanceof RawCommands.Failure failure && isNoScript(failure.cause()))
			.boxed()
			.toList();
		if (!missing.isEmpty() && firstFailure(replies, false) == null) {
			List<@Nullable Object> again = RawCommands.sendAll(this.connectionFactory, connection, script,
					missing.stream().map(calls::get).toList(), true);
			for (int j = 0; j < missing.size(); j++) {
				replies.set(missing.get(j), again.get(j));
			}
		}
		Throwable unanswered = firstFailure(replies, false);
		Throwable refused = firstFailure(replies, true);
		Throwable first = (unanswered != null) ? unanswered : refused;
		if (first == null) {
			return new ArrayList<>(replies);
		}
		DelayQueueException ex = batchFailure(calls, script, first, unanswered != null);
		if (unanswered != null && refused != null) {
			ex.addSuppressed(refused);
		}
		throw ex;
	}

	private static DelayQueueException batchFailure(List<byte[][]> calls, LuaScript script, Throwable cause,
			boolean unanswered) {
		String what = "a batch of " + calls.size() + " " + script + " calls (each call is applied whole or not at"
				+ " all, the calls not refused may have been applied; running them again is safe): " + reason(cause);
		return unanswered ? new DelayQueueConnectionException("Redis unreachable during " + what, cause)
				: new DelayQueueException("Redis refused a call of " + what, cause);
	}

	/** The cause of the first call Redis refused ({@code refused}) or never answered. */
	private static @Nullable Throwable firstFailure(List<@Nullable Object> replies, boolean refused) {
		for (Object reply : replies) {
			if (reply instanceof RawCommands.Failure failure && failure.refused() == refused) {
				return failure.cause();
			}
		}
		return null;
	}

	private static String reason(Throwable cause) {
		return (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getSimpleName();
	}

	/** Whether calls may be pipelined: not on a cluster, where each call is retried on its own. */
	static boolean pipelines(RedisConnection connection) {
		return !(connection instanceof RedisClusterConnection);
	}

	/** {@code EVALSHA}, {@code EVAL} after {@code NOSCRIPT}, sent again while the slot of its keys migrates. */
	private @Nullable Object eval(RedisConnection connection, LuaScript script, byte[][] keysAndArgs) {
		RedisScriptingCommands scripting = connection.scriptingCommands();
		BackOffExecution backOff = null;
		boolean load = false;
		while (true) {
			try {
				return load ? scripting.eval(script.body(), ReturnType.MULTI, script.keys(), keysAndArgs)
						: scripting.evalSha(script.sha(), ReturnType.MULTI, script.keys(), keysAndArgs);
			}
			catch (DataAccessException ex) {
				if (!load && isNoScript(ex)) {
					load = true;
					continue;
				}
				if (!isSlotMoving(ex)) {
					throw ex;
				}
				if (backOff == null) {
					backOff = this.migrationBackOff.start();
				}
				long wait = backOff.nextBackOff();
				if (wait == BackOffExecution.STOP) {
					throw new DelayQueueException("Redis Cluster refused " + script + " for " + MIGRATION_WAIT.toSeconds()
							+ " s because the slot of its keys is being migrated (nothing was changed; try again): "
							+ ex.getMostSpecificCause().getMessage(), ex);
				}
				if (logger.isDebugEnabled()) {
					logger.debug(script + " refused during a slot migration; trying again in " + wait + " ms: "
							+ ex.getMostSpecificCause().getMessage());
				}
				sleep(wait);
			}
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new DelayQueueException("Interrupted while waiting for a Redis Cluster slot migration", ex);
		}
	}

	static boolean isNoScript(Throwable ex) {
		return causeStartsWith(ex, "NOSCRIPT");
	}

	/** Whether a Redis Cluster node refused a command, before running it, because its slot is moving. */
	static boolean isSlotMoving(Throwable ex) {
		// the node's error code, not words in a script's error text
		return causeStartsWith(ex, "TRYAGAIN", "ASK ", "MOVED ", "CLUSTERDOWN");
	}

	private static boolean causeStartsWith(Throwable ex, String... codes) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && Arrays.stream(codes).anyMatch(message::startsWith)) {
				return true;
			}
		}
		return false;
	}

	/** The queue's exception for a failed call, ending with the driver's own message. */
	static DelayQueueException translate(String what, DataAccessException ex) {
		String reason = reason(ex.getMostSpecificCause());
		if (ex instanceof RedisConnectionFailureException || ex instanceof QueryTimeoutException) {
			return new DelayQueueConnectionException("Redis unreachable during " + what + ": " + reason, ex);
		}
		return new DelayQueueException("Redis failed during " + what + ": " + reason, ex);
	}

}
