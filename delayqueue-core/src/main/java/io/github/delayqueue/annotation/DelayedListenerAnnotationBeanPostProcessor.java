package io.github.delayqueue.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.delayqueue.config.DelayedListenerConfigurer;
import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.InvalidDelayedListenerException;
import io.github.delayqueue.config.MethodDelayedListenerEndpoint;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.format.support.DefaultFormattingConversionService;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.util.StringUtils;

/**
 * Finds {@link DelayedListener} methods on beans and registers an endpoint for each; the
 * containers are created once every singleton exists (after the {@link DelayedListenerConfigurer}
 * beans) and started by the {@link DelayedListenerEndpointRegistry}. A listener that cannot
 * work fails start-up with an {@link InvalidDelayedListenerException}.
 */
public class DelayedListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton, Ordered {

	/** Converts header values as a listener's default message handler method factory does. */
	private static final DefaultFormattingConversionService HEADER_CONVERSION = new DefaultFormattingConversionService();

	private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

	private final DelayedListenerEndpointRegistrar registrar = new DelayedListenerEndpointRegistrar();

	private @Nullable BeanFactory beanFactory;

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.registrar.setBeanFactory(beanFactory);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.nonAnnotatedClasses.contains(targetClass)) {
			return bean;
		}
		if (!AnnotationUtils.isCandidateClass(targetClass, DelayedListener.class)) {
			this.nonAnnotatedClasses.add(targetClass);
			return bean;
		}
		Map<Method, Set<DelayedListener>> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<Set<DelayedListener>>) (method) -> {
					Set<DelayedListener> listeners = AnnotatedElementUtils.getMergedRepeatableAnnotations(method,
							DelayedListener.class, DelayedListeners.class);
					return listeners.isEmpty() ? null : listeners;
				});
		if (annotated.isEmpty()) {
			this.nonAnnotatedClasses.add(targetClass);
			return bean;
		}
		annotated.forEach((method, listeners) -> {
			Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
			for (DelayedListener listener : listeners) {
				this.registrar.registerEndpoint(createEndpoint(listener, bean, beanName, invocable));
			}
		});
		return bean;
	}

	@Override
	@SuppressWarnings("NullAway") // the bean factory is set (BeanFactoryAware) before singletons are made
	public void afterSingletonsInstantiated() {
		this.beanFactory.getBeanProvider(DelayedListenerConfigurer.class)
			.orderedStream()
			.forEach((configurer) -> configurer.configureDelayedListeners(this.registrar));
		if (this.registrar.getEndpointRegistry() == null) {
			this.registrar.setEndpointRegistry(this.beanFactory.getBean(
					DelayedListenerBootstrapConfiguration.REGISTRY_BEAN_NAME, DelayedListenerEndpointRegistry.class));
		}
		this.registrar.registerAllEndpoints();
	}

	private MethodDelayedListenerEndpoint createEndpoint(DelayedListener listener, Object bean, String beanName,
			Method method) {
		String where = MethodDelayedListenerEndpoint.describe(beanName, method);
		checkParameters(method, where);
		// checked by the registry, as every endpoint's
		String topic = Objects.requireNonNullElse(resolve(listener.topic(), where, "topic"), "");
		String id = resolve(listener.id(), where, "id");
		if (!StringUtils.hasText(id)) {
			id = beanName + "." + method.getName() + "#" + topic;
		}
		Integer concurrency = parse(listener.concurrency(), where, "concurrency", "a whole number from 1 to 10000",
				(text) -> JobConstraints.concurrency(Integer.parseInt(text)));
		Duration ttr = parse(listener.ttr(), where, "ttr", "a duration such as 30s or PT5M, 1 ms to 7 days",
				(text) -> JobConstraints.ttr(DurationFormatterUtils.detectAndParse(text)));
		Integer maxAttempts = parse(listener.maxAttempts(), where, "maxAttempts", "a whole number, at least 1",
				(text) -> JobConstraints.maxAttempts(Integer.parseInt(text)));
		Boolean autoStartup = parse(listener.autoStartup(), where, "autoStartup", "true or false", (text) -> {
			if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
				throw new IllegalArgumentException("not a boolean");
			}
			return Boolean.valueOf(text);
		});
		Duration backOffInitial = parse(listener.backOffInitial(), where, "backOffInitial", "a positive duration",
				(text) -> JobConstraints.positive("backOffInitial", DurationFormatterUtils.detectAndParse(text),
						JobConstraints.MAX_DELAY));
		Double backOffMultiplier = parse(listener.backOffMultiplier(), where, "backOffMultiplier",
				"a number of at least 1", (text) -> {
					double value = Double.parseDouble(text);
					if (!(value >= 1)) {
						throw new IllegalArgumentException("below 1");
					}
					return value;
				});
		Duration backOffMax = parse(listener.backOffMax(), where, "backOffMax", "a positive duration",
				(text) -> JobConstraints.positive("backOffMax", DurationFormatterUtils.detectAndParse(text),
						JobConstraints.MAX_DELAY));
		RateLimit rateLimit = parse(listener.rateLimit(), where, "rateLimit",
				"<permits>/<interval> such as 50/1s, 100/s or 600/1m (1 to 100000 per 1s to 1d)", RateLimit::parse);
		String containerFactory = resolve(listener.containerFactory(), where, "containerFactory");
		return new MethodDelayedListenerEndpoint(id, topic, bean, method, beanName, concurrency, ttr, maxAttempts,
				autoStartup, backOffInitial, backOffMultiplier, backOffMax, List.of(listener.noRetryFor()),
				StringUtils.hasText(containerFactory) ? containerFactory : null, interceptors(listener, where),
				rateLimit);
	}

	/** The listener's own interceptors, each made by the bean factory for this listener. */
	private List<DelayedJobInterceptor> interceptors(DelayedListener listener, String where) {
		List<DelayedJobInterceptor> interceptors = new ArrayList<>();
		for (Class<? extends DelayedJobInterceptor> type : listener.interceptors()) {
			if (!(this.beanFactory instanceof AutowireCapableBeanFactory factory)) {
				throw new InvalidDelayedListenerException(where, "names interceptors, but the bean factory cannot make them",
						"set them on the container factory instead", null);
			}
			if (factory instanceof ListableBeanFactory beans
					&& beans.getBeanNamesForType(type, true, false).length > 0) {
				throw new InvalidDelayedListenerException(where,
						"names interceptor " + type.getName() + ", which is a bean: every interceptor bean runs for"
								+ " every listener already, so it would run twice for this one",
						"remove it from interceptors, or do not declare it as a bean", null);
			}
			try {
				interceptors.add(factory.createBean(type));
			}
			catch (BeansException ex) {
				throw new InvalidDelayedListenerException(where,
						"names interceptor " + type.getName() + ", which cannot be made (" + ex.getMessage() + ")",
						"give it a constructor the bean factory can call, with beans it can inject", ex);
			}
		}
		return interceptors;
	}

	private static void checkParameters(Method method, String where) {
		if (method.getParameterCount() == 0) {
			throw new InvalidDelayedListenerException(where, "takes no parameters", "declare the payload parameter"
					+ " (such as 'OrderClose payload') and/or a 'DelayedJob<OrderClose> job' parameter", null);
		}
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			if (parameter.hasParameterAnnotation(Header.class)) {
				checkHeader(parameter, where);
			}
		}
		// payload parameters are counted at registration: custom argument resolvers may bind some
	}

	/** Refuses a {@code @Header} parameter that could never be bound. */
	@SuppressWarnings("NullAway") // called for parameters with @Header only
	private static void checkHeader(MethodParameter parameter, String where) {
		Header header = parameter.getParameterAnnotation(Header.class);
		String name = MethodDelayedListenerEndpoint.headerName(parameter, header);
		if (name == null) {
			return;
		}
		if (MessageHeaders.ID.equals(name) || MessageHeaders.TIMESTAMP.equals(name)) {
			return;
		}
		Class<?> type = DelayQueueHeaders.typeOf(name);
		if (type == null && name.startsWith(DelayQueueHeaders.PREFIX)) {
			if (!MethodDelayedListenerEndpoint.isOptionalHeader(parameter, header)) {
				throw new InvalidDelayedListenerException(where,
						"has a @Header(\"" + name + "\") parameter, but no job carries a header of that name",
						"use a name from DelayQueueHeaders (" + DelayQueueHeaders.ATTEMPT + ", " + DelayQueueHeaders.ID
								+ ", ...); names starting with " + DelayQueueHeaders.PREFIX + " are the queue's",
						null);
			}
			return;
		}
		if (type == null) {
			// a header of the job's own: a String
			try {
				JobConstraints.headers(Map.of(name, ""));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidDelayedListenerException(where,
						"has a @Header(\"" + name + "\") parameter, but no job can carry that header (" + ex.getMessage()
								+ ")",
						"name a header of the job's own as the producer sets it, or one from DelayQueueHeaders", ex);
			}
			type = String.class;
		}
		if (!HEADER_CONVERSION.canConvert(TypeDescriptor.valueOf(type), new TypeDescriptor(parameter))) {
			throw new InvalidDelayedListenerException(where,
					"has a @Header(\"" + name + "\") parameter of type " + parameter.getParameterType().getSimpleName()
							+ ", but the header holds " + type.getSimpleName() + " values",
					"declare the parameter as " + type.getSimpleName(), null);
		}
	}

	private @Nullable String resolve(String value, String where, String attribute) {
		if (!StringUtils.hasText(value) || !(this.beanFactory instanceof ConfigurableBeanFactory configurable)) {
			return value;
		}
		String resolved;
		try {
			resolved = configurable.resolveEmbeddedValue(value);
		}
		catch (IllegalArgumentException ex) {
			throw unresolvable(where, attribute, value, ex.getMessage(), ex);
		}
		// without a strict placeholder configurer, unresolvable placeholders are left as they are
		if (resolved != null && resolved.contains("${")) {
			throw unresolvable(where, attribute, value, "no such property", null);
		}
		return resolved;
	}

	private static InvalidDelayedListenerException unresolvable(String where, String attribute, String value,
			@Nullable String reason, @Nullable Exception cause) {
		return new InvalidDelayedListenerException(where,
				"has " + attribute + " \"" + value + "\", which cannot be resolved (" + reason + ")",
				"define the property or give the placeholder a default, such as ${name:default}", cause);
	}

	private <T> @Nullable T parse(String value, String where, String attribute, String rule,
			Function<String, T> parser) {
		String text = resolve(value, where, attribute);
		if (!StringUtils.hasText(text)) {
			return null;
		}
		try {
			return parser.apply(text.trim());
		}
		catch (RuntimeException ex) {
			throw new InvalidDelayedListenerException(where, "has " + attribute + " \"" + text + "\"",
					"set " + attribute + " to " + rule, ex);
		}
	}

}
