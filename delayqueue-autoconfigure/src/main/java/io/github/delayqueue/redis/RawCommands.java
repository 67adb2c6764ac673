package io.github.delayqueue.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.util.ClassUtils;

/**
 * Commands that Spring Data Redis has no method for ({@code FCALL}, {@code FUNCTION LOAD}),
 * sent with {@link RedisConnection#execute} on a connection of Spring Data Redis's Lettuce or
 * Jedis support. Their replies come as {@code EVALSHA}'s with {@code ReturnType.MULTI} do: a
 * {@code List} of {@code byte[]}, {@code Long} and nested {@code List}s, a {@code byte[]}, a
 * {@code Long} or {@code null}. Jedis answers a raw command that way; Lettuce is told the shape
 * of the reply, as it would read it as a single value otherwise. Any other connection (a
 * decorated one, another driver) is not {@linkplain #supports supported}: its raw replies
 * could not be read, after the command ran.
 */
final class RawCommands {

	/** The Lettuce type that reads nested replies, looked for on the class path. */
	static final String LETTUCE_OUTPUT = "io.lettuce.core.output.NestedMultiOutput";

	private static final boolean LETTUCE = ClassUtils.isPresent(LETTUCE_OUTPUT, RawCommands.class.getClassLoader());

	private static final boolean JEDIS = ClassUtils.isPresent(ReplicaWait.JEDIS_CLIENT,
			RawCommands.class.getClassLoader());

	private RawCommands() {
	}

	/**
	 * Whether {@link #execute} can send commands on a connection.
	 * @param connection the connection
	 * @return {@code true} for a Lettuce or Jedis connection of Spring Data Redis
	 */
	static boolean supports(RedisConnection connection) {
		return (LETTUCE && Lettuce.accepts(connection)) || (JEDIS && Jedis.accepts(connection));
	}

	/**
	 * Sends a command and waits for its reply.
	 * @param connection the connection, one {@link #supports supported}
	 * @param command the command
	 * @param args its arguments
	 * @return the reply
	 * @throws IllegalArgumentException for a connection not supported
	 */
	static @Nullable Object execute(RedisConnection connection, String command, byte[]... args) {
		if (LETTUCE && Lettuce.accepts(connection)) {
			return Lettuce.execute(connection, command, args);
		}
		if (JEDIS && Jedis.accepts(connection)) {
			return connection.execute(command, args);
		}
		throw new IllegalArgumentException("Cannot send " + command + " on a " + connection.getClass().getName()
				+ " (only on Spring Data Redis's Lettuce and Jedis connections)");
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

	private static final class Jedis {

		static boolean accepts(RedisConnection connection) {
			return connection instanceof org.springframework.data.redis.connection.jedis.JedisConnection;
		}

	}

}
