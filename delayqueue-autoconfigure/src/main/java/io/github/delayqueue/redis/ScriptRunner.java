package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.RedisPipelineException;

/**
 * Runs scripts with {@code EVALSHA}, falling back to {@code EVAL} (which caches the script
 * again) when the server answers {@code NOSCRIPT}: after a restart, a failover or a
 * {@code SCRIPT FLUSH}. Translates Redis failures into delayqueue exceptions.
 */
final class ScriptRunner {

	private final RedisConnectionFactory connectionFactory;

	private final ReplicaWait replicaWait;

	ScriptRunner(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, new ReplicaWait(0, Duration.ZERO));
	}

	ScriptRunner(RedisConnectionFactory connectionFactory, ReplicaWait replicaWait) {
		this.connectionFactory = connectionFactory;
		this.replicaWait = replicaWait;
	}

	/**
	 * Runs a script with one key.
	 * @param script the script
	 * @param key {@code KEYS[1]}
	 * @param args {@code ARGV}
	 * @return the reply: a {@code List}, {@code Long}, {@code byte[]} or {@code null}
	 */
	Object run(LuaScript script, byte[] key, byte[]... args) {
		return run(script, 1, concat(key, args));
	}

	Object run(LuaScript script, int numKeys, byte[][] keysAndArgs) {
		return execute(script.name(), (connection) -> eval(connection, script, numKeys, keysAndArgs));
	}

	/**
	 * Runs a script with one key whose write must reach the replicas asked for
	 * ({@code delayqueue.redis.wait-replicas}) before it is acknowledged: {@code WAIT} follows
	 * on the same connection.
	 * @param script the script
	 * @param key {@code KEYS[1]}
	 * @param args {@code ARGV}
	 * @return the reply
	 * @throws DelayQueueException when fewer replicas acknowledged in time
	 */
	Object runReplicated(LuaScript script, byte[] key, byte[]... args) {
		if (this.replicaWait.isOff()) {
			return run(script, key, args);
		}
		return execute(script.name(), (connection) -> {
			Object reply = eval(connection, script, 1, concat(key, args));
			this.replicaWait.await(connection, script.name());
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
	<T> T execute(String what, Function<RedisConnection, T> action) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return action.apply(connection);
		}
		catch (DataAccessException ex) {
			throw translate(what, ex);
		}
	}

	/**
	 * Runs the same script once per argument list, pipelined in one round trip where the
	 * connection supports it (one by one otherwise, such as on a cluster connection). The
	 * script is loaded first, because a pipeline that meets {@code NOSCRIPT} does not say
	 * which of its commands ran.
	 * @param script the script
	 * @param keysAndArgs one array per call: {@code KEYS[1]} then {@code ARGV}
	 * @return one reply per call, in order
	 */
	List<Object> runAll(LuaScript script, List<byte[][]> keysAndArgs) {
		return runAll(script, keysAndArgs, false);
	}

	/**
	 * {@link #runAll} for writes that must reach the replicas asked for before they are
	 * acknowledged: {@code WAIT} follows on the same connection.
	 * @param script the script
	 * @param keysAndArgs one array per call
	 * @return one reply per call, in order
	 */
	List<Object> runAllReplicated(LuaScript script, List<byte[][]> keysAndArgs) {
		return runAll(script, keysAndArgs, true);
	}

	private List<Object> runAll(LuaScript script, List<byte[][]> keysAndArgs, boolean replicated) {
		return execute(script.name(), (connection) -> {
			if (keysAndArgs.isEmpty()) {
				return List.of();
			}
			try {
				connection.openPipeline();
			}
			catch (UnsupportedOperationException ex) {
				List<Object> sequential = new ArrayList<>(keysAndArgs.size());
				for (byte[][] call : keysAndArgs) {
					sequential.add(eval(connection, script, 1, call));
				}
				if (replicated) {
					this.replicaWait.await(connection, script.name());
				}
				return sequential;
			}
			try {
				connection.scriptingCommands().scriptLoad(script.body());
				for (byte[][] call : keysAndArgs) {
					connection.scriptingCommands().evalSha(script.sha(), ReturnType.MULTI, 1, call);
				}
				List<Object> replies = connection.closePipeline();
				if (replicated) {
					this.replicaWait.await(connection, script.name());
				}
				// the first reply is SCRIPT LOAD's
				return new ArrayList<>(replies.subList(1, replies.size()));
			}
			catch (RedisPipelineException ex) {
				throw new DelayQueueException("Redis rejected a pipeline of " + keysAndArgs.size() + " " + script
						+ " calls; some may have been applied (running them again is safe): " + ex.getMessage(), ex);
			}
		});
	}

	private static Object eval(RedisConnection connection, LuaScript script, int numKeys, byte[][] keysAndArgs) {
		try {
			return connection.scriptingCommands().evalSha(script.sha(), ReturnType.MULTI, numKeys, keysAndArgs);
		}
		catch (DataAccessException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			return connection.scriptingCommands().eval(script.body(), ReturnType.MULTI, numKeys, keysAndArgs);
		}
	}

	static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
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
	 * execution").
	 */
	static DelayQueueException translate(String what, DataAccessException ex) {
		String reason = ex.getMostSpecificCause().getMessage();
		if (ex instanceof RedisConnectionFailureException || ex instanceof QueryTimeoutException) {
			return new DelayQueueConnectionException("Redis unreachable during " + what + ": " + reason, ex);
		}
		return new DelayQueueException("Redis failed during " + what + ": " + reason, ex);
	}

	private static byte[][] concat(byte[] key, byte[][] args) {
		byte[][] all = new byte[args.length + 1][];
		all[0] = key;
		System.arraycopy(args, 0, all, 1, args.length);
		return all;
	}

}
