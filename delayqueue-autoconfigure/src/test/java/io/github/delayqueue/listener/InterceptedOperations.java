package io.github.delayqueue.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DelayQueueOperations;

/**
 * A real queue seen through a proxy, so that a test can change or fail chosen calls a
 * container makes (by method name). Not a mock: every call that a test does not change
 * reaches Redis.
 */
public final class InterceptedOperations {

	private final Map<String, Interceptor> interceptors = new ConcurrentHashMap<>();

	private final DelayQueueOperations operations;

	public InterceptedOperations(DelayQueueOperations target) {
		this.operations = (DelayQueueOperations) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayQueueOperations.class }, (proxy, method, args) -> {
					Invocation invocation = (arguments) -> {
						try {
							return method.invoke(target, arguments);
						}
						catch (InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					};
					Interceptor interceptor = this.interceptors.get(method.getName());
					return (interceptor != null) ? interceptor.intercept(args, invocation) : invocation.proceed(args);
				});
	}

	/**
	 * Routes every call of the methods of that name (all overloads) through an interceptor.
	 */
	public void intercept(String method, Interceptor interceptor) {
		this.interceptors.put(method, interceptor);
	}

	public DelayQueueOperations operations() {
		return this.operations;
	}

	@FunctionalInterface
	public interface Interceptor {

		Object intercept(Object[] args, Invocation invocation) throws Throwable;

	}

	@FunctionalInterface
	public interface Invocation {

		Object proceed(Object[] args) throws Throwable;

	}

}
