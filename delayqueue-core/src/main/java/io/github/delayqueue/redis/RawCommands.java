package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Batches of {@code EVALSHA} sent on Lettuce's shared connection ({@link #evalShaAll}), which
 * Spring Data Redis has no method for. Replies come as {@code EVALSHA}'s with
 * {@code ReturnType.MULTI} do: a {@code List} of {@code byte[]}, {@code Long} and nested
 * {@code List}s, a {@code byte[]}, a {@code Long} or {@code null}.
 */
final class RawCommands {

	/** The Lettuce type that reads nested replies, looked for on the class path. */
	static final String LETTUCE_OUTPUT = "io.lettuce.core.output.NestedMultiOutput";

	private static final boolean LETTUCE = ClassUtils.isPresent(LETTUCE_OUTPUT, RawCommands.class.getClassLoader());

	private RawCommands() {
	}

	/**
	 * Whether {@link #evalShaAll} can send a batch of calls on a connection's shared native
	 * connection: a Lettuce connection of Spring Data Redis that is not in a pipeline or a
	 * transaction.
	 * @param connection the connection
	 * @return {@code true} for such a connection
	 */
	static boolean sendsBatches(RedisConnection connection) {
		return LETTUCE && Lettuce.accepts(connection) && !connection.isPipelined() && !connection.isQueueing();
	}

	/**
	 * Sends {@code EVALSHA} once per argument list, all before the first reply is read, on the
	 * native connection a {@link #sendsBatches} connection shares (Lettuce writes commands to
	 * the socket as they come: one round trip for all of them). Spring Data Redis's own
	 * pipeline would open a connection of its own for each batch when the connection factory
	 * has no pool (its default).
	 * @param connection the connection
	 * @param sha the script's SHA-1
	 * @param keys how many of each call's values are keys
	 * @param calls per call its keys, then {@code ARGV}
	 * @param timeout how long to wait for all the replies
	 * @return per call its reply, or its {@link Failure}: an
	 * error reply, or no reply (the connection failed or was closed, the call timed out or
	 * could not be sent)
	 * @throws QueryTimeoutException when not every reply came in time
	 * @throws org.springframework.data.redis.RedisSystemException when interrupted while
	 * waiting (the thread's interrupt flag is set again)
	 */
	static List<@Nullable Object> evalShaAll(RedisConnection connection, byte[] sha, int keys, List<byte[][]> calls,
			Duration timeout) {
		return Lettuce.sendAll(connection, sha, null, keys, calls, timeout);
	}

	/**
	 * {@link #evalShaAll} for calls that found no script: the first with {@code EVAL} and the
	 * script's body, which Redis runs and caches, the others with {@code EVALSHA} behind it on
	 * the same connection. ({@code SCRIPT LOAD} could go to a replica where reads are sent to
	 * replicas; {@code EVAL} goes where {@code EVALSHA} went.)
	 * @param connection the connection
	 * @param sha the script's SHA-1
	 * @param body the script
	 * @param keys how many of each call's values are keys
	 * @param calls per call its keys, then {@code ARGV}
	 * @param timeout how long to wait for all the replies
	 * @return per call its reply, or its {@link Failure}
	 * @throws QueryTimeoutException when not every reply came in time
	 */
	static List<@Nullable Object> evalAll(RedisConnection connection, byte[] sha, byte[] body, int keys,
			List<byte[][]> calls, Duration timeout) {
		return Lettuce.sendAll(connection, sha, body, keys, calls, timeout);
	}

	/**
	 * How long a batch waits for its replies: a Lettuce connection factory's command timeout,
	 * one minute for any other.
	 * @param factory the connection factory
	 * @return the timeout
	 */
	static Duration commandTimeout(RedisConnectionFactory factory) {
		long millis = (LETTUCE && Lettuce.isFactory(factory)) ? Lettuce.timeoutMillis(factory) : 0;
		return (millis > 0) ? Duration.ofMillis(millis) : Duration.ofMinutes(1);
	}

	/**
	 * A call of a batch that Redis answered with an error, or that failed before it was
	 * answered.
	 * @param cause the driver's exception
	 */
	record Failure(Throwable cause) {
	}

	private static final class Lettuce {

		static boolean accepts(RedisConnection connection) {
			return connection instanceof org.springframework.data.redis.connection.lettuce.LettuceConnection;
		}

		static boolean isFactory(RedisConnectionFactory factory) {
			return factory instanceof org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
		}

		static long timeoutMillis(RedisConnectionFactory factory) {
			return ((org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory) factory).getTimeout();
		}

		static List<@Nullable Object> sendAll(RedisConnection connection, byte[] sha, byte @Nullable [] body,
				int keys, List<byte[][]> calls, Duration timeout) {
			io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands<byte[], byte[]> commands = ((org.springframework.data.redis.connection.lettuce.LettuceConnection) connection)
				.getNativeConnection();
			byte[] numkeys = Integer.toString(keys).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
			List<io.lettuce.core.RedisFuture<List<Object>>> futures = new ArrayList<>(calls.size());
			RuntimeException unsent = null;
			for (byte[][] call : calls) {
				// the first call of a re-send carries the script, which Redis caches for the others
				byte[] script = (body != null && futures.isEmpty()) ? body : null;
				io.lettuce.core.protocol.CommandArgs<byte[], byte[]> args = new io.lettuce.core.protocol.CommandArgs<>(
						io.lettuce.core.codec.ByteArrayCodec.INSTANCE)
					.add((script != null) ? script : sha)
					.add(numkeys);
				for (int i = 0; i < call.length; i++) {
					if (i < keys) {
						args.addKey(call[i]);
					}
					else {
						args.addValue(call[i]);
					}
				}
				try {
					futures.add(commands.dispatch(
							(script != null) ? io.lettuce.core.protocol.CommandType.EVAL
									: io.lettuce.core.protocol.CommandType.EVALSHA,
							new io.lettuce.core.output.NestedMultiOutput<>(io.lettuce.core.codec.ByteArrayCodec.INSTANCE),
							args));
				}
				catch (RuntimeException ex) {
					// a writer that throws instead of failing the call (a closed master/replica
					// connection, stopped client resources): this call and the later ones are not sent
					unsent = ex;
					break;
				}
			}
			long deadline = System.nanoTime() + timeout.toNanos();
			List<@Nullable Object> replies = new ArrayList<>(calls.size());
			for (io.lettuce.core.RedisFuture<List<Object>> future : futures) {
				try {
					replies.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
				}
				catch (ExecutionException ex) {
					replies.add(new Failure((ex.getCause() != null) ? ex.getCause() : ex));
				}
				catch (CancellationException ex) {
					// Lettuce cancels what it holds for a connection it closes
					replies.add(new Failure(ex));
				}
				catch (TimeoutException ex) {
					throw new QueryTimeoutException("Redis did not answer " + calls.size() + " script calls within "
							+ timeout.toMillis() + " ms");
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new RedisSystemException("Interrupted while waiting for Redis", ex);
				}
			}
			while (replies.size() < calls.size()) {
				replies.add(new Failure((unsent != null) ? unsent : new IllegalStateException("not sent")));
			}
			return replies;
		}

	}

}
