package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * A script that runs once or more per job ({@link LuaScript#function()}) runs instead as a
 * function of {@link LuaScript#JOB_FUNCTIONS} with {@code FCALL}, one call at a time, on a
 * Lettuce or Jedis connection that is not a cluster's: a script's helpers are then made
 * once, when the library is loaded, not on every call. A server without the library (a
 * restart, a failover to a server without it, {@code FUNCTION FLUSH}) is sent it with
 * {@code FUNCTION LOAD}, then the call again. A server older than Redis 7 gets
 * {@code EVALSHA} from the start until the application restarts ({@link #withoutFunctions},
 * from the start-up check). A server that refuses functions (a proxy that answers it does
 * not know them, Redis 6.2 where {@code INFO} is not allowed) makes the runner use
 * {@code EVALSHA} for {@link #REFUSAL_RETRY}, then try again (one call tries, the others
 * wait for its answer; an error of the function itself is an answer that functions work);
 * an ACL that refuses them, until the application restarts (a retry would add to
 * {@code ACL LOG} every time); a server that cannot load the library for its state (out of
 * memory, read-only), for {@link #LOAD_RETRY}. A call falls back to {@code EVALSHA} only
 * after an error reply that shows nothing ran ({@link #isRefusal}), never after a lost
 * connection or a time-out. Function and script run the same code on the same keys, so
 * instances on either give the same results; what differs is when Redis refuses them for
 * its state: a function as it starts, on a read-only replica or while memory is short (but
 * the timer step, the take and the finish, flagged {@code allow-oom}, run then), a script
 * at its first write of a command that may take memory. A running function is stopped with
 * {@code FUNCTION KILL}, not {@code SCRIPT KILL}. Calls sent together ({@link #runAll}),
 * which carry many jobs each, and calls on a cluster (whose every primary would need the
 * library) use {@code EVALSHA}.
 * <p>
 * A script that a Redis Cluster node refused because its slot is being migrated
 * ({@code TRYAGAIN}, {@code ASK}, {@code MOVED}, {@code CLUSTERDOWN}) changed nothing (every job
 * script declares its bucket's guard key for that, see {@code lib.lua}); it is run again with
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

	/** What {@link #fcall} answers when the call is to be run with {@code EVALSHA} instead. */
	private static final Object NO_FUNCTION = new Object();

	/** How long after a refusal of functions the runner uses {@code EVALSHA} before it tries again. */
	static final Duration REFUSAL_RETRY = Duration.ofMinutes(10);

	/** How long after the server could not load the library for its state the runner uses {@code EVALSHA}. */
	static final Duration LOAD_RETRY = Duration.ofSeconds(5);

	/** The drivers' exceptions for an error reply of Redis (Lettuce's, Jedis's, with their subclasses). */
	private static final Set<String> ERROR_REPLIES = Set.of("io.lettuce.core.RedisCommandExecutionException",
			"redis.clients.jedis.exceptions.JedisDataException");

	/** What Redis puts in the error of a script or function that ran (where it failed). */
	private static final List<String> RAN = List.of("@user_function", "@user_script", "user_function:", "user_script:",
			"in script", "from script");

	/** The error codes of a server's state, which refuses {@code EVALSHA} as much as {@code FCALL}. */
	private static final List<String> SERVER_STATES = List.of("OOM", "BUSY", "READONLY", "NOREPLICAS", "MISCONF",
			"LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "NOAUTH", "WRONGPASS", "NOSCRIPT",
			"EXECABORT", "UNBLOCKED");

	private final RedisConnectionFactory connectionFactory;

	private final ReplicaWait replicaWait;

	private final BackOff migrationBackOff;

	private final Runnable beforeCall;

	/** Whether scripts with a function run with {@code FCALL} where the server allows it. */
	private final boolean functions;

	private final Duration refusalRetry;

	/** Whether functions are paused (refused or not loadable), until {@link #resumeAt}. */
	private final AtomicBoolean paused = new AtomicBoolean();

	/**
	 * When paused functions are tried again ({@link System#nanoTime()}); the call that tries
	 * moves it on by {@link #pauseNanos}, so that the others wait for its answer.
	 */
	private final AtomicLong resumeAt = new AtomicLong();

	/** How long the last pause was. */
	private volatile long pauseNanos;

	/** Whether a refusal of functions was logged at INFO (once; later ones at DEBUG). */
	private final AtomicBoolean refusalLogged = new AtomicBoolean();

	/** Whether an ACL refused functions, or the server has none: they are not tried again. */
	private volatile boolean forbidden;

	ScriptRunner(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, new ReplicaWait(0, Duration.ZERO), () -> {
		}, true);
	}

	/**
	 * Creates a runner.
	 * @param connectionFactory the connection factory
	 * @param replicaWait the replica acknowledgement of replicated writes
	 * @param beforeCall run before every call to Redis (the start-up checks still to pass);
	 * what it throws is thrown by the call
	 * @param functions whether scripts with a function run with {@code FCALL} where the
	 * server allows it
	 */
	ScriptRunner(RedisConnectionFactory connectionFactory, ReplicaWait replicaWait, Runnable beforeCall,
			boolean functions) {
		this(connectionFactory, replicaWait, beforeCall, functions, REFUSAL_RETRY);
	}

	/**
	 * Creates a runner that tries functions again at another interval after a refusal.
	 * @param connectionFactory the connection factory
	 * @param replicaWait the replica acknowledgement of replicated writes
	 * @param beforeCall run before every call to Redis
	 * @param functions whether scripts with a function run with {@code FCALL} where the
	 * server allows it
	 * @param refusalRetry how long after a refusal of functions to try them again
	 */
	ScriptRunner(RedisConnectionFactory connectionFactory, ReplicaWait replicaWait, Runnable beforeCall,
			boolean functions, Duration refusalRetry) {
		this.connectionFactory = connectionFactory;
		this.functions = functions;
		this.refusalRetry = refusalRetry;
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
		byte[] function = script.function();
		if (function != null && functionsNow() && pipelines(connection) && RawCommands.supports(connection)) {
			Object reply = fcall(connection, function, script.keys(), keysAndArgs);
			if (reply != NO_FUNCTION) {
				return reply;
			}
		}
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
	 * Whether to try functions now: asked for, not forbidden, and not paused, or paused and
	 * this call the one that tries again.
	 */
	private boolean functionsNow() {
		if (!this.functions || this.forbidden) {
			return false;
		}
		if (!this.paused.get()) {
			return true;
		}
		long at = this.resumeAt.get();
		long now = System.nanoTime();
		return now - at >= 0 && this.resumeAt.compareAndSet(at, now + this.pauseNanos);
	}

	private void pause(Duration duration) {
		this.pauseNanos = duration.toNanos();
		this.resumeAt.set(System.nanoTime() + this.pauseNanos);
		this.paused.set(true);
	}

	/**
	 * Calls a script's function, loading the library when the server does not have it.
	 * @return the reply, or {@link #NO_FUNCTION} when nothing ran and the call is to run with
	 * {@code EVALSHA}: the server refused functions, could not load the library now, or lost
	 * it again right after loading it
	 */
	private @Nullable Object fcall(RedisConnection connection, byte[] function, int keys, byte[][] keysAndArgs) {
		byte[][] args = new byte[keysAndArgs.length + 2][];
		args[0] = function;
		args[1] = Integer.toString(keys).getBytes(StandardCharsets.US_ASCII);
		System.arraycopy(keysAndArgs, 0, args, 2, keysAndArgs.length);
		try {
			return called(RawCommands.execute(connection, "FCALL", args));
		}
		catch (DataAccessException ex) {
			if (!isFunctionMissing(ex)) {
				return unlessRefused("FCALL", ex);
			}
		}
		if (!loadFunctions(connection)) {
			return NO_FUNCTION;
		}
		try {
			return called(RawCommands.execute(connection, "FCALL", args));
		}
		catch (DataAccessException ex) {
			// missing again: flushed since the load, and nothing ran
			return isFunctionMissing(ex) ? NO_FUNCTION : unlessRefused("FCALL", ex);
		}
	}

	private @Nullable Object called(@Nullable Object reply) {
		if (this.paused.get() && this.paused.compareAndSet(true, false)) {
			// functions work again (an upgrade, a proxy that passes them on, memory freed): said as
			// loudly as the refusal was
			String message = "Redis runs the per-job scripts as functions again";
			if (this.refusalLogged.get()) {
				logger.info(message);
			}
			else {
				logger.debug(message);
			}
		}
		return reply;
	}

	/**
	 * {@link #NO_FUNCTION} after the server refused the command itself
	 * ({@link #isRefusal}), which ran nothing; otherwise throws the failure.
	 */
	private Object unlessRefused(String command, DataAccessException ex) {
		if (!isRefusal(ex)) {
			if (ran(ex)) {
				// the function ran and failed: functions work, whatever the call's own error
				called(null);
			}
			throw ex;
		}
		refuseFunctions(command, ex);
		return NO_FUNCTION;
	}

	static boolean isFunctionMissing(Throwable ex) {
		String reply = errorReply(ex);
		return reply != null && reply.startsWith("ERR Function not found");
	}

	/**
	 * Sends the library.
	 * @return whether the server has it now; {@code false} when it refused functions or could
	 * not load the library now (out of memory, a read-only replica): the call runs with
	 * {@code EVALSHA}, which meets the same state or not
	 * @throws DataAccessException when Redis did not answer
	 */
	private boolean loadFunctions(RedisConnection connection) {
		LuaScript.FunctionLibrary library = LuaScript.JOB_FUNCTIONS;
		try {
			RawCommands.execute(connection, "FUNCTION", "LOAD".getBytes(StandardCharsets.US_ASCII), library.source());
			logger.debug("Loaded the function library " + library.name());
			return true;
		}
		catch (DataAccessException ex) {
			String reply = errorReply(ex);
			if (reply == null) {
				throw ex;
			}
			if (reply.startsWith("ERR Library '" + library.name() + "' already exists")) {
				// another connection loaded it first
				return true;
			}
			if (isRefusal(ex)) {
				refuseFunctions("FUNCTION LOAD", ex);
			}
			else {
				// the server's state (out of memory, read-only): EVALSHA meanwhile, rather than
				// three round trips per call
				pause(LOAD_RETRY);
				if (logger.isDebugEnabled()) {
					logger.debug("Could not load the function library " + library.name() + " (" + reply
							+ "); the per-job scripts run with EVALSHA for " + LOAD_RETRY.toSeconds() + " s");
				}
			}
			return false;
		}
	}

	/**
	 * Runs every script with {@code EVALSHA} from now on, without asking the server for
	 * functions: it is known not to have them (its version, read at start-up, is older than
	 * Redis 7).
	 * @param reason why, for the debug log
	 */
	void withoutFunctions(String reason) {
		if (this.functions && !this.forbidden) {
			this.forbidden = true;
			logger.debug(reason + ": delayqueue runs its scripts with EVALSHA");
		}
	}

	private void refuseFunctions(String command, DataAccessException ex) {
		String reply = errorReply(ex);
		String message = "Redis refused " + command + " (" + reply + "); delayqueue runs its scripts with EVALSHA"
				+ " (a few microseconds more of Redis time per call)";
		if (reply != null && reply.startsWith("NOPERM")) {
			this.forbidden = true;
			logger.info(message + " until the application restarts: grant the user +fcall +function|load to run"
					+ " them as functions, or set delayqueue.redis.functions=false to send neither");
			return;
		}
		pause(this.refusalRetry);
		message += " and tries functions again in " + this.refusalRetry.toSeconds()
				+ " s; delayqueue.redis.functions=false uses EVALSHA always";
		if (!this.refusalLogged.getAndSet(true)) {
			logger.info(message);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(message);
		}
	}

	/**
	 * Whether Redis refused a command itself, so that nothing ran: an error reply (not a lost
	 * connection or a time-out, after which the command may have run), which no function raised
	 * (Redis names the function's line in those; that a function of the library cannot reply
	 * with an error of its own, {@link LuaLibrary#functionLibrary} checks), and which is not a
	 * state of the server that refuses {@code EVALSHA} alike (out of memory, busy, read-only,
	 * loading, a slot moving, an ACL refusing keys, ...). What remains is a server without
	 * functions (Redis 6.2, a proxy or a service that does not pass them on) or an ACL without
	 * them.
	 */
	static boolean isRefusal(Throwable ex) {
		String reply = errorReply(ex);
		if (reply == null) {
			return false;
		}
		if (reply.startsWith("NOPERM")) {
			// the ACL refused the command itself, not its keys or channels
			return reply.contains("'fcall'") || reply.contains("'function");
		}
		if (ran(ex)) {
			return false;
		}
		for (String state : SERVER_STATES) {
			if (reply.startsWith(state)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether an error reply is one that a running function or script raised (Redis names its
	 * line).
	 */
	static boolean ran(Throwable ex) {
		String reply = errorReply(ex);
		if (reply == null) {
			return false;
		}
		for (String marker : RAN) {
			if (reply.contains(marker)) {
				return true;
			}
		}
		return false;
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
