package io.github.delayqueue.config;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import io.github.delayqueue.listener.DelayedJobInterceptor;

/**
 * A {@code @DelayedListener} method with its resolved settings. {@code null} settings
 * take the container factory's defaults (or each job's own TTR and attempts).
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
 */
public record MethodDelayedListenerEndpoint(String id, String topic, Object bean, Method method, String beanName,
		Integer concurrency, Duration ttr, Integer maxAttempts, Boolean autoStartup, Duration backOffInitial,
		Double backOffMultiplier, Duration backOffMax, List<Class<? extends Throwable>> noRetryFor,
		String containerFactory, List<DelayedJobInterceptor> interceptors) {

	public MethodDelayedListenerEndpoint {
		noRetryFor = List.copyOf(noRetryFor);
		interceptors = List.copyOf(interceptors);
	}

	/**
	 * An endpoint without interceptors of its own.
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
	 */
	public MethodDelayedListenerEndpoint(String id, String topic, Object bean, Method method, String beanName,
			Integer concurrency, Duration ttr, Integer maxAttempts, Boolean autoStartup, Duration backOffInitial,
			Double backOffMultiplier, Duration backOffMax, List<Class<? extends Throwable>> noRetryFor,
			String containerFactory) {
		this(id, topic, bean, method, beanName, concurrency, ttr, maxAttempts, autoStartup, backOffInitial,
				backOffMultiplier, backOffMax, noRetryFor, containerFactory, List.of());
	}

	/**
	 * How the endpoint is named in messages: bean and method.
	 * @return the description
	 */
	public String describe() {
		return describe(this.beanName, this.method);
	}

	/**
	 * How a listener method is named in messages, before its endpoint exists.
	 * @param beanName the bean's name
	 * @param method the method
	 * @return the description
	 */
	public static String describe(String beanName, Method method) {
		return "@DelayedListener method '" + method.getName() + "' of bean '" + beanName + "' ("
				+ method.toGenericString() + ")";
	}

}
