package io.github.delayqueue.listener;

import java.lang.reflect.Type;

import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.PayloadConversionException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;

/**
 * Reads a job's payload bytes into a listener parameter's full generic type with the
 * {@link JobPayloadConverter}. Read-only: listeners never produce messages.
 */
public class JobPayloadMessageConverter implements SmartMessageConverter {

	private final JobPayloadConverter converter;

	/**
	 * Create a message converter that reads payloads with the given converter.
	 * @param converter the payload converter
	 */
	public JobPayloadMessageConverter(JobPayloadConverter converter) {
		this.converter = converter;
	}

	@Override
	public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
		return fromMessage(message, targetClass, null);
	}

	@Override
	public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass, @Nullable Object conversionHint) {
		Type type = (conversionHint instanceof MethodParameter parameter) ? payloadType(parameter) : targetClass;
		return read((byte[]) message.getPayload(), type);
	}

	/** The type a parameter reads the payload as: its own, or {@code T} of a {@code Message<T>}. */
	private static Type payloadType(MethodParameter parameter) {
		if (!Message.class.isAssignableFrom(parameter.getParameterType())) {
			return parameter.getNestedGenericParameterType();
		}
		ResolvableType payload = ResolvableType.forMethodParameter(parameter).as(Message.class).getGeneric(0);
		return (payload.resolve() != null) ? payload.getType() : Object.class;
	}

	@Nullable Object read(byte[] payload, Type type) {
		try {
			return this.converter.read(payload, type);
		}
		catch (PayloadConversionException ex) {
			throw new MessageConversionException(ex.getMessage(), ex);
		}
	}

	@Override
	public Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
		throw new UnsupportedOperationException("Listeners do not write messages");
	}

	@Override
	public Message<?> toMessage(Object payload, @Nullable MessageHeaders headers, @Nullable Object conversionHint) {
		throw new UnsupportedOperationException("Listeners do not write messages");
	}

}
