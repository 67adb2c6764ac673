package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Reads script replies: integers arrive as {@code Long}, strings as {@code byte[]}.
 */
final class Replies {

	private Replies() {
	}

	@SuppressWarnings("unchecked")
	static List<@Nullable Object> list(@Nullable Object reply) {
		if (reply instanceof List<?> list) {
			return (List<@Nullable Object>) list;
		}
		throw new IllegalStateException("Expected a list reply from Redis, got " + describe(reply));
	}

	static long asLong(@Nullable Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		if (value instanceof byte[] bytes) {
			return Long.parseLong(new String(bytes, StandardCharsets.US_ASCII));
		}
		throw new IllegalStateException("Expected an integer reply from Redis, got " + describe(value));
	}

	static @Nullable String asString(@Nullable Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		return (value != null) ? value.toString() : null;
	}

	static byte[] asBytes(@Nullable Object value) {
		if (value instanceof byte[] bytes) {
			return bytes;
		}
		return (value != null) ? value.toString().getBytes(StandardCharsets.UTF_8) : new byte[0];
	}

	private static String describe(@Nullable Object value) {
		return (value != null) ? value.getClass().getName() + " " + value : "null";
	}

}
