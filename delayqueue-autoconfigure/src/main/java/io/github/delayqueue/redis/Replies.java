package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reads script replies: integers arrive as {@code Long}, strings as {@code byte[]}.
 */
final class Replies {

	private Replies() {
	}

	@SuppressWarnings("unchecked")
	static List<Object> list(Object reply) {
		if (reply instanceof List<?> list) {
			return (List<Object>) list;
		}
		throw new IllegalStateException("Expected a list reply from Redis, got " + describe(reply));
	}

	static long asLong(Object value) {
		if (value instanceof Long number) {
			return number;
		}
		if (value instanceof byte[] bytes) {
			return Long.parseLong(new String(bytes, StandardCharsets.US_ASCII));
		}
		if (value instanceof Number number) {
			return number.longValue();
		}
		throw new IllegalStateException("Expected an integer reply from Redis, got " + describe(value));
	}

	static String asString(Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		if (value == null) {
			return null;
		}
		return value.toString();
	}

	static byte[] asBytes(Object value) {
		if (value instanceof byte[] bytes) {
			return bytes;
		}
		if (value == null) {
			return new byte[0];
		}
		return value.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static String describe(Object value) {
		return (value != null) ? value.getClass().getName() + " " + value : "null";
	}

}
