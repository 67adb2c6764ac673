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
import io.github.delayqueue.listener.DelayedJobInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Registers an endpoint for each {@link DelayedListener} method of the beans; the containers
 * are created once every singleton exists, after the {@link DelayedListenerConfigurer} beans
 * ran, and started by the {@link DelayedListenerEndpointRegistry}. A listener that cannot run
 * fails start-up with an {@link InvalidDelayedListenerException}.
 */
public class DelayedListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton, Ordered {

	private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

	private final DelayedListenerEndpointRegistrar registrar = new DelayedListenerEndpointRegistrar();

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		Assert.isInstanceOf(ConfigurableListableBeanFactory.class, beanFactory);
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
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
		this.registrar.setEndpointRegistry(this.beanFactory
			.getBean(DelayedListenerBootstrapConfiguration.REGISTRY_BEAN_NAME, DelayedListenerEndpointRegistry.class));
		this.beanFactory.getBeanProvider(DelayedListenerConfigurer.class)
			.orderedStream()
			.forEach((configurer) -> configurer.configureDelayedListeners(this.registrar));
		this.registrar.registerAllEndpoints();
	}

	private MethodDelayedListenerEndpoint createEndpoint(DelayedListener listener, Object bean, String beanName,
			Method method) {
		String where = MethodDelayedListenerEndpoint.describe(beanName, method);
		if (method.getParameterCount() == 0) {
			throw new InvalidDelayedListenerException(where, "takes no parameters", "declare the payload parameter"
					+ " (such as 'OrderClose payload') and/or a 'DelayedJob<OrderClose> job' parameter", null);
		}
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
			Assert.isTrue(text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false"), "not a boolean");
			return Boolean.valueOf(text);
		});
		Double backOffMultiplier = parse(listener.backOffMultiplier(), where, "backOffMultiplier",
				"a number of at least 1", (text) -> {
					double value = Double.parseDouble(text);
					Assert.isTrue(value >= 1, "below 1");
					return value;
				});
		RateLimit rateLimit = parse(listener.rateLimit(), where, "rateLimit",
				"<permits>/<interval> such as 50/1s, 100/s or 600/1m (1 to 100000 per 1s to 1d)", RateLimit::parse);
		String containerFactory = resolve(listener.containerFactory(), where, "containerFactory");
		return new MethodDelayedListenerEndpoint(id, topic, bean, method, beanName, concurrency, ttr, maxAttempts,
				autoStartup, backOff(listener.backOffInitial(), where, "backOffInitial"), backOffMultiplier,
				backOff(listener.backOffMax(), where, "backOffMax"), List.of(listener.noRetryFor()),
				StringUtils.hasText(containerFactory) ? containerFactory : null, interceptors(listener, where),
				rateLimit, null);
	}

	private @Nullable Duration backOff(String value, String where, String attribute) {
		return parse(value, where, attribute, "a positive duration", (text) -> JobConstraints.positive(attribute,
				DurationFormatterUtils.detectAndParse(text), JobConstraints.MAX_DELAY));
	}

	/** The listener's own interceptors, each made by the bean factory for this listener. */
	@SuppressWarnings("NullAway") // the bean factory is set (BeanFactoryAware) before beans are post-processed
	private List<DelayedJobInterceptor> interceptors(DelayedListener listener, String where) {
		List<DelayedJobInterceptor> interceptors = new ArrayList<>();
		for (Class<? extends DelayedJobInterceptor> type : listener.interceptors()) {
			if (this.beanFactory.getBeanNamesForType(type, true, false).length > 0) {
				throw new InvalidDelayedListenerException(where,
						"names interceptor " + type.getName() + ", which is a bean: every interceptor bean runs for"
								+ " every listener already, so it would run twice for this one",
						"remove it from interceptors, or do not declare it as a bean", null);
			}
			try {
				interceptors.add(this.beanFactory.createBean(type));
			}
			catch (BeansException ex) {
				throw new InvalidDelayedListenerException(where,
						"names interceptor " + type.getName() + ", which cannot be made (" + ex.getMessage() + ")",
						"give it a constructor the bean factory can call, with beans it can inject", ex);
			}
		}
		return interceptors;
	}

	@SuppressWarnings("NullAway") // the bean factory is set (BeanFactoryAware) before beans are post-processed
	private @Nullable String resolve(String value, String where, String attribute) {
		if (!StringUtils.hasText(value)) {
			return value;
		}
		try {
			String resolved = this.beanFactory.resolveEmbeddedValue(value);
			// without a strict placeholder configurer, unresolvable placeholders are left as they are
			Assert.isTrue(resolved == null || !resolved.contains("${"), "no such property");
			return resolved;
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidDelayedListenerException(where,
					"has " + attribute + " \"" + value + "\", which cannot be resolved (" + ex.getMessage() + ")",
					"define the property or give the placeholder a default, such as ${name:default}", ex);
		}
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
