package io.github.delayqueue.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.util.ClassUtils;

/**
 * Commands that Spring Data Redis has no method for ({@code FCALL}, {@code FUNCTION LOAD}),
 * sent with {@link RedisConnection#execute}. Their replies come as {@code EVALSHA}'s with
 * {@code ReturnType.MULTI} do: a {@code List} of {@code byte[]}, {@code Long} and nested
 * {@code List}s, a {@code byte[]}, a {@code Long} or {@code null}. Jedis answers a raw command
 * that way; Lettuce is told the shape of the reply, as it would read it as a single value
 * otherwise.
 */
final class RawCommands {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.output.NestedMultiOutput",
			RawCommands.class.getClassLoader());

	private RawCommands() {
	}

	/**
	 * Sends a command and waits for its reply.
	 * @param connection the connection
	 * @param command the command
	 * @param args its arguments
	 * @return the reply
	 */
	static @Nullable Object execute(RedisConnection connection, String command, byte[]... args) {
		if (LETTUCE && Lettuce.accepts(connection)) {
			return Lettuce.execute(connection, command, args);
		}
		return connection.execute(command, args);
	}

	private static final class Lettuce {

		static boolean accepts(RedisConnection connection) {
			return connection instanceof org.springframework.data.redis.connection.lettuce.LettuceConnection;
		}

		static @Nullable Object execute(RedisConnection connection, String command, byte[]... args) {
			return ((org.springframework.data.redis.connection.lettuce.LettuceConnection) connection).execute(command,
					new io.lettuce.core.output.NestedMultiOutput<>(io.lettuce.core.codec.ByteArrayCodec.INSTANCE), args);
		}

	}

}
