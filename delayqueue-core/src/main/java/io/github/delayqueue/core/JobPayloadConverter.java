package io.github.delayqueue.core;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

/**
 * Turns payload objects into the bytes stored in Redis and back.
 */
public interface JobPayloadConverter {

	/**
	 * Writes a payload.
	 * @param payload the payload, not {@code null}
	 * @return the bytes to store
	 * @throws PayloadConversionException when it cannot be written
	 */
	byte[] write(Object payload);

	/**
	 * Reads a payload into a type.
	 * @param payload the stored bytes
	 * @param type the type wanted (may be generic, such as {@code List<Item>})
	 * @param <T> the type
	 * @return the payload, {@code null} when the stored bytes are JSON {@code null}
	 * @throws PayloadConversionException when it cannot be read into that type
	 */
	<T> @Nullable T read(byte[] payload, Type type);

}
