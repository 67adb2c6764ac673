package io.github.delayqueue.listener;

import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.PayloadConversionException;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * Reads a job's payload into a listener parameter's full generic type with the
 * {@link JobPayloadConverter} (a read-only message converter), and resolves {@link DelayedJob}
 * and {@link ReservedJob} parameters from the job the message carries.
 */
public class DelayedJobArgumentResolver implements HandlerMethodArgumentResolver, SmartMessageConverter {

	/** The header that carries the {@link ReservedJob}. */
	public static final String JOB_HEADER = "delayqueue_job";

	private final DelayQueueOperations operations;

	private final JobPayloadConverter converter;

	/**
	 * Create the resolver.
	 * @param operations the queue, for {@code touch()}
	 * @param converter reads the payloads
	 */
	public DelayedJobArgumentResolver(DelayQueueOperations operations, JobPayloadConverter converter) {
		this.operations = operations;
		this.converter = converter;
	}

	/**
	 * Return whether a parameter is bound by this resolver (so it is not a payload parameter).
	 * @param parameter the parameter
	 * @return {@code true} for {@link DelayedJob} and {@link ReservedJob}
	 */
	public static boolean isJobParameter(MethodParameter parameter) {
		Class<?> type = parameter.getParameterType();
		return DelayedJob.class == type || ReservedJob.class == type;
	}

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return isJobParameter(parameter);
	}

	@Override
	public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) {
		return (parameter.getParameterType() == ReservedJob.class) ? message.getHeaders().get(JOB_HEADER, ReservedJob.class)
				: resolveJob(message, payloadType(parameter, DelayedJob.class));
	}

	/** {@code T} of a {@code DelayedJob<T>} or {@code Message<T>} parameter as its bean declares it, else Object. */
	static Type payloadType(MethodParameter parameter, Class<?> holder) {
		ResolvableType generic = ResolvableType.forMethodParameter(parameter).as(holder).getGeneric(0);
		Class<?> resolved = generic.resolve();
		if (resolved == null) {
			return Object.class;
		}
		return (generic.getType() instanceof TypeVariable<?>) ? resolved : generic.getType();
	}

	/**
	 * Return the job a message carries, its payload read as the given type when first asked for.
	 * @param <T> the payload type
	 * @param message a message a container made of a job
	 * @param payloadType the payload's type
	 * @return the job
	 * @throws IllegalArgumentException when the message carries no job
	 */
	public <T> DelayedJob<T> resolveJob(Message<?> message, Type payloadType) {
		ReservedJob job = message.getHeaders().get(JOB_HEADER, ReservedJob.class);
		Assert.notNull(job, () -> "The message carries no job in header '" + JOB_HEADER + "'");
		return new DefaultDelayedJob<>(job, payloadType);
	}

	@Override
	public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
		return fromMessage(message, targetClass, null);
	}

	@Override
	public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass, @Nullable Object conversionHint) {
		Type type = targetClass;
		if (conversionHint instanceof MethodParameter parameter) {
			// a Message<T> parameter reads the payload as T
			type = !Message.class.isAssignableFrom(parameter.getParameterType())
					? parameter.getNestedGenericParameterType() : payloadType(parameter, Message.class);
		}
		return read((byte[]) message.getPayload(), type);
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

	/** The {@link DelayedJob} handed to a listener method: the reserved job, its payload read when first asked for. */
	private final class DefaultDelayedJob<T> implements DelayedJob<T> {

		private final ReservedJob job;

		private final SingletonSupplier<T> payload;

		@SuppressWarnings("unchecked")
		DefaultDelayedJob(ReservedJob job, Type payloadType) {
			this.job = job;
			this.payload = SingletonSupplier.of(() -> (T) read(job.payload(), payloadType));
		}

		@Override
		public String topic() {
			return this.job.topic();
		}

		@Override
		public String id() {
			return this.job.id();
		}

		@Override
		public @Nullable T payload() {
			return this.payload.get();
		}

		@Override
		public Map<String, String> headers() {
			return this.job.headers();
		}

		@Override
		public int attempt() {
			return this.job.attempt();
		}

		@Override
		public int maxAttempts() {
			return this.job.maxAttempts();
		}

		@Override
		@SuppressWarnings("NullAway") // a listener's job comes from a reserve, which sets its times
		public Instant dueAt() {
			return this.job.dueAt();
		}

		@Override
		@SuppressWarnings("NullAway") // a listener's job comes from a reserve, which sets its times
		public Instant deliveredAt() {
			return this.job.deliveredAt();
		}

		@Override
		public boolean touch() {
			return touch(this.job.ttr());
		}

		@Override
		public boolean touch(@Nullable Duration ttr) {
			return DelayedJobArgumentResolver.this.operations.touch(this.job, ttr).isPresent();
		}

		@Override
		public String toString() {
			return "DelayedJob[topic=" + topic() + ", id=" + id() + ", attempt=" + attempt() + "/" + maxAttempts() + "]";
		}

	}

}
