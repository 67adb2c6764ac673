package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

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
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Runs scripts with {@code EVALSHA}, falling back to {@code EVAL} (which caches the script
 * again) when the server answers {@code NOSCRIPT}: after a restart, a failover or a
 * {@code SCRIPT FLUSH}. Translates Redis failures into delayqueue exceptions.
 * <p>
 * A script that a Redis Cluster node refused because its slot is being migrated
 * ({@code TRYAGAIN}, {@code ASK}, {@code MOVED}, {@code CLUSTERDOWN}) changed nothing (every job
 * script declares its bucket's guard key for that, see {@code lib/keys.lua}); it is run again with
 * a short back-off until the slot is stable, for up to {@link #MIGRATION_WAIT}.
 */
final class ScriptRunner {

	/** The most bytes of keys and arguments a batch sends on Lettuce's shared connection. */
	static final int SHARED_BATCH_BYTES = 512 * 1024;

	/** The most keys and arguments a batch sends on Lettuce's shared connection. */
	static final int SHARED_BATCH_VALUES = 16 * 1024;

	/** How long a script refused during a slot migration is retried. */
	static final Duration MIGRATION_WAIT = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(ScriptRunner.class);

	/** The drivers' exceptions for an error reply of Redis (Lettuce's, Jedis's, with their subclasses). */
	private static final Set<String> ERROR_REPLIES = Set.of("io.lettuce.core.RedisCommandExecutionException",
			"redis.clients.jedis.exceptions.JedisDataException");

	private final RedisConnectionFactory connectionFactory;

	private final ReplicaWait replicaWait;

	private final BackOff migrationBackOff;

	private final Runnable beforeCall;

	ScriptRunner(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, new ReplicaWait(0, Duration.ZERO), () -> {
		});
	}

	/**
	 * Creates a runner.
	 * @param connectionFactory the connection factory
	 * @param replicaWait the replica acknowledgement of replicated writes
	 * @param beforeCall run before every call to Redis (the start-up checks still to pass);
	 * what it throws is thrown by the call
	 */
	ScriptRunner(RedisConnectionFactory connectionFactory, ReplicaWait replicaWait, Runnable beforeCall) {
		this.connectionFactory = connectionFactory;
		this.replicaWait = replicaWait;
		this.beforeCall = beforeCall;
		ExponentialBackOff backOff = new ExponentialBackOff(10, 2);
		backOff.setMaxInterval(500);
		backOff.setMaxElapsedTime(MIGRATION_WAIT.toMillis());
		this.migrationBackOff = backOff;
	}

	/**
	 * Runs a script.
	 * @param script the script
	 * @param keysAndArgs its keys ({@link LuaScript#keys()} of them), then {@code ARGV}
	 * @return the reply: a {@code List}, {@code Long}, {@code byte[]} or {@code null}
	 */
	@Nullable Object run(LuaScript script, byte[][] keysAndArgs) {
		return execute(script.name(), (connection) -> eval(connection, script, keysAndArgs));
	}

	/**
	 * Runs a script whose writes must reach the replicas asked for
	 * ({@code delayqueue.redis.wait-replicas}) before it is acknowledged: {@code WAIT} follows
	 * on the same connection.
	 * @param script the script
	 * @param keysAndArgs its keys, then {@code ARGV}
	 * @return the reply
	 * @throws DelayQueueException when fewer replicas acknowledged in time
	 */
	@Nullable Object runReplicated(LuaScript script, byte[][] keysAndArgs) {
		if (this.replicaWait.isOff()) {
			return run(script, keysAndArgs);
		}
		return execute(script.name(), (connection) -> {
			ReplicaWait.Writes writes = this.replicaWait.start(connection);
			Object reply = eval(connection, script, keysAndArgs);
			writes.await(connection, script.name());
			return reply;
		});
	}

	/**
	 * Runs a plain command on a connection, with the same error translation as scripts.
	 * @param what what is done, for error messages
	 * @param action the command
	 * @param <T> the result type
	 * @return the result
	 */
	<T extends @Nullable Object> T execute(String what, Function<RedisConnection, T> action) {
		this.beforeCall.run();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return action.apply(connection);
		}
		catch (DataAccessException ex) {
			throw translate(what, ex);
		}
	}

	/**
	 * Runs the same script once per argument list, in one round trip where the connection
	 * supports it (one by one otherwise, such as on a cluster connection). On Lettuce a batch
	 * no bigger than {@link #isSmall} allows goes out on the shared connection, each call's
	 * reply read on its own ({@link #batch}); any other batch goes in a Spring Data Redis
	 * pipeline, which takes a connection of its own, with the script loaded first, because a
	 * pipeline that meets {@code NOSCRIPT} does not say which of its commands ran.
	 * @param script the script
	 * @param keysAndArgs one array per call: its keys, then {@code ARGV}
	 * @return one reply per call, in order
	 */
	List<Object> runAll(LuaScript script, List<byte[][]> keysAndArgs) {
		return runAll(script, keysAndArgs, false);
	}

	/**
	 * {@link #runAll} for writes that must reach the replicas asked for before they are
	 * acknowledged: {@code WAIT} follows on the connection that sent them (inside the
	 * pipeline, after its scripts).
	 * @param script the script
	 * @param keysAndArgs one array per call
	 * @return one reply per call, in order
	 */
	List<Object> runAllReplicated(LuaScript script, List<byte[][]> keysAndArgs) {
		return runAll(script, keysAndArgs, true);
	}

	private List<Object> runAll(LuaScript script, List<byte[][]> keysAndArgs, boolean replicated) {
		boolean waiting = replicated && !this.replicaWait.isOff();
		return execute(script.name(), (connection) -> {
			if (keysAndArgs.isEmpty()) {
				return List.of();
			}
			if (!waiting && pipelines(connection) && RawCommands.sendsBatches(connection) && isSmall(keysAndArgs)) {
				return batch(connection, script, keysAndArgs);
			}
			try {
				if (!pipelines(connection)) {
					throw new UnsupportedOperationException("no pipelines on a cluster");
				}
				connection.openPipeline();
			}
			catch (UnsupportedOperationException ex) {
				ReplicaWait.Writes writes = waiting ? this.replicaWait.start(connection) : null;
				List<Object> sequential = new ArrayList<>(keysAndArgs.size());
				for (byte[][] call : keysAndArgs) {
					sequential.add(eval(connection, script, call));
				}
				if (writes != null) {
					writes.await(connection, script.name());
				}
				return sequential;
			}
			try {
				// WAIT must follow the scripts on the connection that sent them: the pipeline's own
				ReplicaWait.Writes writes = waiting ? this.replicaWait.start(connection) : null;
				connection.scriptingCommands().scriptLoad(script.body());
				for (byte[][] call : keysAndArgs) {
					connection.scriptingCommands().evalSha(script.sha(), ReturnType.MULTI, script.keys(), call);
				}
				ReplicaWait.Pending pending = (writes != null) ? writes.send(connection, script.name()) : null;
				List<Object> replies = connection.closePipeline();
				if (pending != null) {
					pending.await(connection);
				}
				// the first reply is SCRIPT LOAD's
				return new ArrayList<>(replies.subList(1, replies.size()));
			}
			catch (RedisPipelineException ex) {
				// the first refusal's own text (a script's error, OOM), not the wrapper's
				Throwable first = (ex.getCause() != null) ? ex.getCause() : ex;
				String calls = "a pipeline of " + keysAndArgs.size() + " " + script + " calls (each call is applied whole"
						+ " or not at all, the others were applied; running them again is safe): " + first.getMessage();
				if (first instanceof RedisConnectionFailureException || first instanceof QueryTimeoutException) {
					// Redis gone or silent, as translate says it for a single call
					throw new DelayQueueConnectionException("Redis unreachable during " + calls, ex);
				}
				throw new DelayQueueException("Redis refused a call of " + calls, ex);
			}
		});
	}

	/**
	 * Whether a batch is small enough for Lettuce's shared connection, where the other threads'
	 * commands wait behind it: at most {@value #SHARED_BATCH_BYTES} bytes and
	 * {@value #SHARED_BATCH_VALUES} keys and arguments (a bulk schedule of about 2,000 jobs,
	 * tens of milliseconds of Redis's time). A bigger one goes in a pipeline on a connection of
	 * its own, whose opening it outweighs, and which leaves the others their turns.
	 */
	static boolean isSmall(List<byte[][]> calls) {
		long bytes = 0;
		long values = 0;
		for (byte[][] call : calls) {
			values += call.length;
			for (byte[] value : call) {
				bytes += value.length;
			}
		}
		return bytes <= SHARED_BATCH_BYTES && values <= SHARED_BATCH_VALUES;
	}

	/**
	 * {@link #runAll} on Lettuce's shared connection: every call is sent before the first reply
	 * is read. Calls that met {@code NOSCRIPT} (nothing ran) are sent again, the first with
	 * {@code EVAL}, unless a call got no answer (the connection failed). After all replies
	 * came, a call without an answer is thrown as a connection failure (some calls may have
	 * been applied), else a call Redis refused (the others were applied).
	 */
	private List<Object> batch(RedisConnection connection, LuaScript script, List<byte[][]> calls) {
		Duration timeout = RawCommands.commandTimeout(this.connectionFactory);
		List<@Nullable Object> replies = RawCommands.evalShaAll(connection, script.sha(), script.keys(), calls,
				timeout);
		List<Integer> missing = new ArrayList<>();
		for (int i = 0; i < replies.size(); i++) {
			if (replies.get(i) instanceof RawCommands.Failure failure && isNoScript(failure.cause())) {
				missing.add(i);
			}
		}
		if (!missing.isEmpty() && firstUnanswered(replies) == null) {
			List<@Nullable Object> again = RawCommands.evalAll(connection, script.sha(), script.body(), script.keys(),
					missing.stream().map(calls::get).toList(), timeout);
			for (int j = 0; j < missing.size(); j++) {
				replies.set(missing.get(j), again.get(j));
			}
		}
		Throwable unanswered = firstUnanswered(replies);
		Throwable refused = null;
		for (Object reply : replies) {
			if (reply instanceof RawCommands.Failure failure && errorReply(failure.cause()) != null) {
				refused = failure.cause();
				break;
			}
		}
		if (unanswered != null) {
			DelayQueueConnectionException ex = new DelayQueueConnectionException("Redis unreachable during a batch of "
					+ calls.size() + " " + script + " calls (each call is applied whole or not at all; some may have been"
					+ " applied, running them again is safe): " + reason(unanswered), unanswered);
			if (refused != null) {
				ex.addSuppressed(refused);
			}
			throw ex;
		}
		if (refused != null) {
			throw new DelayQueueException("Redis refused a call of a batch of " + calls.size() + " " + script
					+ " calls (each call is applied whole or not at all, the calls not refused were applied; running"
					+ " them again is safe): " + reason(refused), refused);
		}
		List<Object> results = new ArrayList<>(replies.size());
		results.addAll(replies);
		return results;
	}

	/** The cause of the first call of a batch that got no answer (the connection failed), or null. */
	private static @Nullable Throwable firstUnanswered(List<@Nullable Object> replies) {
		for (Object reply : replies) {
			if (reply instanceof RawCommands.Failure failure && errorReply(failure.cause()) == null) {
				return failure.cause();
			}
		}
		return null;
	}

	private static String reason(Throwable cause) {
		return (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getSimpleName();
	}

	/**
	 * Whether calls of one step go to Redis in one pipeline on a connection: not on a
	 * cluster. There Jedis has no pipelines, and a pipeline would report a call refused while
	 * its slot migrates only after the others were applied; one call at a time, each is
	 * retried on its own.
	 * @param connection the connection
	 * @return {@code true} to pipeline
	 */
	static boolean pipelines(RedisConnection connection) {
		return !(connection instanceof RedisClusterConnection);
	}

	private @Nullable Object eval(RedisConnection connection, LuaScript script, byte[][] keysAndArgs) {
		BackOffExecution backOff = null;
		while (true) {
			try {
				return evalOnce(connection, script, keysAndArgs);
			}
			catch (DataAccessException ex) {
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

	private @Nullable Object evalOnce(RedisConnection connection, LuaScript script, byte[][] keysAndArgs) {
		try {
			return connection.scriptingCommands().evalSha(script.sha(), ReturnType.MULTI, script.keys(), keysAndArgs);
		}
		catch (DataAccessException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			return connection.scriptingCommands().eval(script.body(), ReturnType.MULTI, script.keys(), keysAndArgs);
		}
	}

	/**
	 * The text of Redis's error reply among a failure's causes.
	 * @return the reply, or {@code null} when Redis gave none (the connection failed, the call
	 * timed out)
	 */
	static @Nullable String errorReply(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && isErrorReply(cause.getClass())) {
				return cause.getMessage();
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return null;
	}

	private static boolean isErrorReply(Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			if (ERROR_REPLIES.contains(candidate.getName())) {
				return true;
			}
		}
		return false;
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

	/**
	 * Whether a Redis Cluster node refused a command because its slot is moving: such a refusal
	 * comes before the script runs, so running it again is safe.
	 */
	static boolean isSlotMoving(Throwable ex) {
		// the error code a node answers with, not words in a script's error text (which may
		// quote a job key or a record)
		return causeStartsWith(ex, "TRYAGAIN", "ASK ", "MOVED ", "CLUSTERDOWN");
	}

	private static boolean causeStartsWith(Throwable ex, String... codes) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null) {
				for (String code : codes) {
					if (message.startsWith(code)) {
						return true;
					}
				}
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	/**
	 * The queue's exception for a failed call, its message ending with the driver's own (a
	 * script's error text, a connection refusal) rather than Spring's wrapper text ("Error in
	 * execution"), or the type of the innermost cause when it has no message.
	 */
	static DelayQueueException translate(String what, DataAccessException ex) {
		Throwable cause = ex.getMostSpecificCause();
		// a cause without a message (an interruption) is named by its type
		String reason = reason(cause);
		if (ex instanceof RedisConnectionFailureException || ex instanceof QueryTimeoutException) {
			return new DelayQueueConnectionException("Redis unreachable during " + what + ": " + reason, ex);
		}
		return new DelayQueueException("Redis failed during " + what + ": " + reason, ex);
	}

}
