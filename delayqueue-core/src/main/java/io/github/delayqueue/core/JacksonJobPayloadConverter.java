package io.github.delayqueue.core;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.Assert;

/**
 * Payloads as plain JSON without type ids, written and read with a Jackson 3 {@link JsonMapper};
 * a {@code String} is stored as its UTF-8 bytes and a {@code byte[]} as is. An object without
 * properties is refused, whatever the mapper's {@link SerializationFeature#FAIL_ON_EMPTY_BEANS}.
 */
public class JacksonJobPayloadConverter implements JobPayloadConverter {

	private final JsonMapper mapper;

	// tells why a payload was written as {}
	private final ObjectWriter emptyBeanCheck;

	/**
	 * Create a converter.
	 * @param mapper the mapper
	 */
	public JacksonJobPayloadConverter(JsonMapper mapper) {
		Assert.notNull(mapper, "mapper must not be null");
		this.mapper = mapper;
		this.emptyBeanCheck = mapper.writer().with(SerializationFeature.FAIL_ON_EMPTY_BEANS);
	}

	@Override
	public byte[] write(Object payload) {
		Assert.notNull(payload, "payload must not be null");
		if (payload instanceof String text) {
			return text.getBytes(StandardCharsets.UTF_8);
		}
		if (payload instanceof byte[] bytes) {
			return bytes;
		}
		try {
			byte[] json = this.mapper.writeValueAsBytes(payload);
			if (json.length == 2 && json[0] == '{' && json[1] == '}') {
				// refused only when the payload itself has no properties
				this.emptyBeanCheck.writeValueAsBytes(payload);
			}
			return json;
		}
		catch (JacksonException ex) {
			String reason = ex.getOriginalMessage();
			if (isEmptyBean(ex, payload)) {
				reason = "it has no properties (it would be written as {}); give it getters or public fields,"
						+ " or schedule a Map or a String";
			}
			throw new PayloadConversionException(
					"Could not write payload of type " + payload.getClass().getName() + " as JSON: " + reason, ex);
		}
	}

	/** Whether the failure is that the payload itself has no properties. */
	private static boolean isEmptyBean(JacksonException ex, Object payload) {
		if (!(ex instanceof InvalidDefinitionException definition)) {
			return false;
		}
		JavaType type = definition.getType();
		return type != null && type.getRawClass() == payload.getClass()
				&& String.valueOf(ex.getOriginalMessage()).contains("no properties discovered");
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T read(byte[] payload, Type type) {
		if (type == String.class) {
			return (T) new String(payload, StandardCharsets.UTF_8);
		}
		if (type == byte[].class) {
			return (T) payload;
		}
		JavaType javaType = this.mapper.constructType(type);
		try {
			return this.mapper.readValue(payload, javaType);
		}
		catch (JacksonException ex) {
			throw new PayloadConversionException(
					"Could not read payload as " + javaType.toCanonical() + ": " + ex.getOriginalMessage(), ex);
		}
	}

}
