package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Batches of script calls sent on Lettuce's shared connection, which Spring Data Redis has no
 * method for. Replies come as {@code EVALSHA}'s with {@code ReturnType.MULTI} do. Lettuce's
 * types only in here: Lettuce is optional, and this is called only on a {@link LettuceConnection}.
 */
final class RawCommands {

	private RawCommands() {
	}

	/** A call of a batch that Redis refused (an error reply), or that got no answer. */
	record Failure(Throwable cause, boolean refused) {
	}

	/**
	 * Sends a script once per call (its keys, then {@code ARGV}) on a {@link LettuceConnection},
	 * all before the first reply is read, the first as {@code EVAL} when {@code load}. Returns
	 * per call its reply or its {@link Failure}; throws {@link QueryTimeoutException} when not
	 * every reply came within the command timeout of a {@link LettuceConnectionFactory}, else
	 * a minute.
	 */
	static List<@Nullable Object> sendAll(RedisConnectionFactory factory, RedisConnection connection,
			LuaScript script, List<byte[][]> calls, boolean load) {
		long millis = (factory instanceof LettuceConnectionFactory lettuce) ? lettuce.getTimeout() : 0;
		Duration timeout = (millis > 0) ? Duration.ofMillis(millis) : Duration.ofMinutes(1);
		RedisClusterAsyncCommands<byte[], byte[]> commands = ((LettuceConnection) connection).getNativeConnection();
		byte[] numkeys = Integer.toString(script.keys()).getBytes(StandardCharsets.US_ASCII);
		List<RedisFuture<List<Object>>> futures = new ArrayList<>(calls.size());
		RuntimeException unsent = null;
		for (byte[][] call : calls) {
			boolean eval = load && futures.isEmpty();
			CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
				.add(eval ? script.body() : script.sha())
				.add(numkeys)
				.addKeys(Arrays.copyOfRange(call, 0, script.keys()))
				.addValues(Arrays.copyOfRange(call, script.keys(), call.length));
			try {
				futures.add(commands.dispatch(eval ? CommandType.EVAL : CommandType.EVALSHA,
						new NestedMultiOutput<>(ByteArrayCodec.INSTANCE), args));
			}
			catch (RuntimeException ex) {
				// a closed connection may throw instead of failing the call: the rest is not sent
				unsent = ex;
				break;
			}
		}
		long deadline = System.nanoTime() + timeout.toNanos();
		List<@Nullable Object> replies = new ArrayList<>(calls.size());
		for (RedisFuture<List<Object>> future : futures) {
			try {
				replies.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			catch (ExecutionException ex) {
				Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
				replies.add(new Failure(cause, cause instanceof RedisCommandExecutionException));
			}
			catch (CancellationException ex) {
				replies.add(new Failure(ex, false));
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
			replies.add(new Failure((unsent != null) ? unsent : new IllegalStateException("not sent"), false));
		}
		return replies;
	}

}
