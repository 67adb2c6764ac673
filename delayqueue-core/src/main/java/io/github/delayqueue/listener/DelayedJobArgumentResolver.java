package io.github.delayqueue.listener;

import java.lang.reflect.Executable;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.util.Assert;

/**
 * Resolves {@link DelayedJob} (payload typed by its generic) and {@link ReservedJob}
 * parameters from the job carried in the message's headers.
 */
public class DelayedJobArgumentResolver implements HandlerMethodArgumentResolver {

	/** The header that carries the {@link ReservedJob}. */
	public static final String JOB_HEADER = "delayqueue_job";

	private final DelayQueueOperations operations;

	private final JobPayloadMessageConverter converter;

	/** The payload type of each {@code DelayedJob<T>} parameter, by class, method and position. */
	private final ConcurrentMap<ParameterKey, Type> payloadTypes = new ConcurrentHashMap<>();

	/**
	 * Create the resolver.
	 * @param operations the queue, for {@code touch()}
	 * @param converter reads the payload of a {@code DelayedJob<T>} into {@code T}
	 */
	public DelayedJobArgumentResolver(DelayQueueOperations operations, JobPayloadMessageConverter converter) {
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
		ReservedJob job = message.getHeaders().get(JOB_HEADER, ReservedJob.class);
		if (parameter.getParameterType() == ReservedJob.class) {
			return job;
		}
		ParameterKey key = new ParameterKey(parameter.getContainingClass(), parameter.getExecutable(),
				parameter.getParameterIndex());
		return resolveJob(message, this.payloadTypes.computeIfAbsent(key, (k) -> payloadType(parameter)));
	}

	/** {@code T} of a {@code DelayedJob<T>} parameter as the bean's class declares it, else {@code Object}. */
	static Type payloadType(MethodParameter parameter) {
		ResolvableType generic = ResolvableType.forMethodParameter(parameter).as(DelayedJob.class).getGeneric(0);
		Class<?> resolved = generic.resolve();
		if (resolved == null) {
			return Object.class;
		}
		// T of a method declared in a generic superclass is the class the bean's class gives it
		return (generic.getType() instanceof TypeVariable<?>) ? resolved : generic.getType();
	}

	private record ParameterKey(Class<?> beanClass, Executable method, int index) {
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
		Duration ttr = message.getHeaders().get(DelayQueueHeaders.TTR, Duration.class);
		return new DefaultDelayedJob<>(job, this.operations, this.converter, payloadType, ttr);
	}

	/**
	 * Return the converter that reads payloads.
	 * @return the converter
	 */
	public JobPayloadMessageConverter getConverter() {
		return this.converter;
	}

}
