package io.github.delayqueue.config;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory.ListenerMethodFactory;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.annotation.SynthesizingMethodParameter;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.format.support.DefaultFormattingConversionService;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.ValueConstants;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.util.StringUtils;

/**
 * A {@code @DelayedListener} method (or any bean method) with its resolved settings;
 * {@code null} settings take the container factory's defaults.
 *
 * @param id the container id
 * @param topic the topic
 * @param bean the bean
 * @param method the method (invoked on the bean, proxies included)
 * @param beanName the bean's name, for messages
 * @param concurrency handlers at once, or {@code null}
 * @param ttr reservation TTR, or {@code null}
 * @param maxAttempts attempts, or {@code null}
 * @param autoStartup whether to start with the context, or {@code null}
 * @param backOffInitial first retry interval, or {@code null}
 * @param backOffMultiplier retry interval growth, or {@code null}
 * @param backOffMax longest retry interval, or {@code null}
 * @param noRetryFor exceptions never retried
 * @param containerFactory bean name of the container factory, or {@code null}
 * @param interceptors the listener's own interceptors, run after the container factory's
 * @param rateLimit the topic's rate limit, or {@code null}
 * @param customMethodFactory makes the factory that resolves the method's arguments from the
 * container's job resolver, or {@code null} for the container factory's
 */
public record MethodDelayedListenerEndpoint(String id, String topic, Object bean, Method method, String beanName,
		@Nullable Integer concurrency, @Nullable Duration ttr, @Nullable Integer maxAttempts,
		@Nullable Boolean autoStartup, @Nullable Duration backOffInitial, @Nullable Double backOffMultiplier,
		@Nullable Duration backOffMax, List<Class<? extends Throwable>> noRetryFor, @Nullable String containerFactory,
		List<DelayedJobInterceptor> interceptors, @Nullable RateLimit rateLimit,
		@Nullable Function<DelayedJobArgumentResolver, MessageHandlerMethodFactory> customMethodFactory)
		implements DelayedListenerEndpoint {

	// converts header values as a listener's message handler method factory does
	private static final DefaultFormattingConversionService HEADER_CONVERSION = new DefaultFormattingConversionService();

	/**
	 * Check the method's {@code @Header} parameters.
	 * @throws InvalidDelayedListenerException when a {@code @Header} parameter could never be bound
	 */
	public MethodDelayedListenerEndpoint {
		noRetryFor = List.copyOf(noRetryFor);
		interceptors = List.copyOf(interceptors);
		requiredJobHeaders(method, describe(beanName, method));
	}

	MethodDelayedListenerEndpoint withMethodFactory(
			Function<DelayedJobArgumentResolver, MessageHandlerMethodFactory> customMethodFactory) {
		return new MethodDelayedListenerEndpoint(this.id, this.topic, this.bean, this.method, this.beanName,
				this.concurrency, this.ttr, this.maxAttempts, this.autoStartup, this.backOffInitial,
				this.backOffMultiplier, this.backOffMax, this.noRetryFor, this.containerFactory, this.interceptors,
				this.rateLimit, customMethodFactory);
	}

	/**
	 * Makes the handler; a job without a header that a required {@code @Header} parameter
	 * names fails without a retry ({@link MethodArgumentResolutionException}).
	 * @throws InvalidDelayedListenerException when the method has more than one payload parameter
	 */
	@Override
	public DelayedJobHandler createHandler(MessageHandlerMethodFactory methodFactory, DelayedJobArgumentResolver jobs) {
		MessageHandlerMethodFactory factory = (this.customMethodFactory != null) ? this.customMethodFactory.apply(jobs)
				: methodFactory;
		InvocableHandlerMethod handler = factory.createInvocableHandlerMethod(this.bean, this.method);
		// payloads as the factory's resolvers bind them (spring-messaging's for an application's own factory)
		if (factory instanceof ListenerMethodFactory || this.customMethodFactory == null) {
			checkPayloadParameters((factory instanceof ListenerMethodFactory own) ? own
					: DefaultDelayedListenerContainerFactory.methodFactory(jobs, List.of(), null),
					handler.getMethodParameters());
		}
		Map<String, MethodParameter> required = requiredJobHeaders(this.method, describe());
		return (message) -> {
			required.forEach((name, parameter) -> {
				if (!message.getHeaders().containsKey(name)) {
					throw new MethodArgumentResolutionException(message, parameter,
							"the job carries no header '" + name + "' (set it with JobBuilder.header when scheduling,"
									+ " or make the parameter optional)");
				}
			});
			handler.invoke(message);
		};
	}

	/**
	 * The required {@code @Header} parameters naming a header of the job's own, by name;
	 * refuses a {@code @Header} parameter that could never be bound.
	 */
	private static Map<String, MethodParameter> requiredJobHeaders(Method method, String where) {
		Map<String, MethodParameter> required = new LinkedHashMap<>();
		for (int i = 0; i < method.getParameterCount(); i++) {
			// synthesized: name and value are aliases
			MethodParameter parameter = new SynthesizingMethodParameter(method, i);
			Header header = parameter.getParameterAnnotation(Header.class);
			String name = (header != null) ? headerName(parameter, header) : null;
			if (header == null || name == null || MessageHeaders.ID.equals(name)
					|| MessageHeaders.TIMESTAMP.equals(name)) {
				continue;
			}
			boolean optional = !header.required() || !ValueConstants.DEFAULT_NONE.equals(header.defaultValue())
					|| parameter.isOptional();
			Class<?> type = DelayQueueHeaders.typeOf(name);
			if (type == null && name.startsWith(DelayQueueHeaders.PREFIX)) {
				if (!optional) {
					throw new InvalidDelayedListenerException(where,
							"has a @Header(\"" + name + "\") parameter, but no job carries a header of that name",
							"use a name from DelayQueueHeaders (" + DelayQueueHeaders.ATTEMPT + ", "
									+ DelayQueueHeaders.ID + ", ...); names starting with " + DelayQueueHeaders.PREFIX
									+ " are the queue's",
							null);
				}
				continue;
			}
			if (type == null) {
				// a header of the job's own: a String
				try {
					JobConstraints.headers(Map.of(name, ""));
				}
				catch (IllegalArgumentException ex) {
					throw new InvalidDelayedListenerException(where, "has a @Header(\"" + name
							+ "\") parameter, but no job can carry that header (" + ex.getMessage() + ")",
							"name a header of the job's own as the producer sets it, or one from DelayQueueHeaders",
							ex);
				}
				type = String.class;
			}
			if (!HEADER_CONVERSION.canConvert(TypeDescriptor.valueOf(type), new TypeDescriptor(parameter))) {
				throw new InvalidDelayedListenerException(where,
						"has a @Header(\"" + name + "\") parameter of type "
								+ parameter.getParameterType().getSimpleName() + ", but the header holds "
								+ type.getSimpleName() + " values",
						"declare the parameter as " + type.getSimpleName(), null);
			}
			if (!optional && DelayQueueHeaders.isStored(name)) {
				required.put(name, parameter);
			}
		}
		return required;
	}

	/** The header a {@code @Header} parameter names, as spring-messaging resolves it; {@code null} when unknown. */
	private static @Nullable String headerName(MethodParameter parameter, Header header) {
		if (StringUtils.hasText(header.name())) {
			return header.name();
		}
		parameter.initParameterNameDiscovery(new DefaultParameterNameDiscoverer());
		return parameter.getParameterName();
	}

	/** Refuses a handler with more than one parameter that the factory's payload resolver binds. */
	private void checkPayloadParameters(ListenerMethodFactory factory, MethodParameter[] parameters) {
		List<String> payloads = new ArrayList<>();
		for (MethodParameter parameter : parameters) {
			if (factory.isPayload(parameter)) {
				parameter.initParameterNameDiscovery(new DefaultParameterNameDiscoverer());
				payloads.add(parameter.getParameterType().getSimpleName() + " " + ((parameter.getParameterName() != null)
						? parameter.getParameterName() : "arg" + parameter.getParameterIndex()));
			}
		}
		if (payloads.size() > 1) {
			throw new InvalidDelayedListenerException(describe(),
					"has " + payloads.size() + " payload parameters " + payloads
							+ ", but a listener takes one payload parameter at most",
					"read the others from the payload, or use DelayedJob<T> for the job's metadata", null);
		}
	}

	@Override
	public String describe() {
		return describe(this.beanName, this.method);
	}

	/**
	 * Return how a listener method is named in messages.
	 * @param beanName the bean's name
	 * @param method the method
	 * @return the description
	 */
	public static String describe(String beanName, Method method) {
		return "@DelayedListener method '" + method.getName() + "' of bean '" + beanName + "' ("
				+ method.toGenericString() + ")";
	}

}
