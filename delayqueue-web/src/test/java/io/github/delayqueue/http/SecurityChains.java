package io.github.delayqueue.http;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Registers an application's own {@code SecurityFilterChain} bean, for the tests that run with
 * Spring Security on the classpath: {@code @Import} a subclass. Spring Security is on the class
 * path only when those tests run (not when they compile), so the chain is built by reflection:
 * a {@code DefaultSecurityFilterChain} with a request matcher and filters, as
 * {@code http.securityMatcher(...)} and the filters of an {@code HttpSecurity} make one. It is
 * registered while the application's configuration is read, so that Boot's default chains,
 * which back off when the application has one, do.
 */
public abstract class SecurityChains implements ImportBeanDefinitionRegistrar {

	private static final String CHAIN = "org.springframework.security.web.DefaultSecurityFilterChain";

	private static final String MATCHER = "org.springframework.security.web.util.matcher.RequestMatcher";

	/**
	 * Whether the chain covers a request.
	 * @param request the request
	 * @return whether the chain covers it
	 */
	abstract boolean covers(HttpServletRequest request);

	/**
	 * The chain's filters; none lets every request it covers through.
	 * @return the filters
	 */
	abstract List<Filter> filters();

	@Override
	@SuppressWarnings("unchecked")
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		Class<Object> type = (Class<Object>) load(CHAIN);
		registry.registerBeanDefinition("applicationSecurityFilterChain",
				new RootBeanDefinition(type, (Supplier<Object>) this::chain));
	}

	private Object chain() {
		Class<?> matcherType = load(MATCHER);
		InvocationHandler handler = (proxy, method, args) -> switch (method.getName()) {
			case "matches" -> covers((HttpServletRequest) args[0]);
			case "toString" -> "test request matcher";
			case "hashCode" -> System.identityHashCode(proxy);
			case "equals" -> proxy == args[0];
			default -> InvocationHandler.invokeDefault(proxy, method, args);
		};
		Object requestMatcher = Proxy.newProxyInstance(matcherType.getClassLoader(), new Class<?>[] { matcherType },
				handler);
		try {
			return load(CHAIN).getConstructor(matcherType, List.class).newInstance(requestMatcher, filters());
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static Class<?> load(String name) {
		try {
			return ClassUtils.forName(name, SecurityChains.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException("Spring Security is not on the class path", ex);
		}
	}

	/**
	 * A filter of Spring Security, made with its constructor and initialised.
	 * @param name the filter's class name
	 * @param arguments the constructor's arguments, all strings
	 * @return the filter
	 */
	static Filter filter(String name, String... arguments) {
		try {
			Class<?>[] types = new Class<?>[arguments.length];
			Arrays.fill(types, String.class);
			Object filter = load(name).getConstructor(types).newInstance((Object[]) arguments);
			filter.getClass().getMethod("afterPropertiesSet").invoke(filter);
			return (Filter) filter;
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * An application whose one chain lets every request through, as
	 * {@code anyRequest().permitAll()} does: a request without credentials is Spring
	 * Security's anonymous user, and the servlet API sees the chain's authentication.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(PermittingEveryRequest.Chain.class)
	public static class PermittingEveryRequest {

		static class Chain extends SecurityChains {

			@Override
			boolean covers(HttpServletRequest request) {
				return true;
			}

			@Override
			List<Filter> filters() {
				return List.of(filter("org.springframework.security.web.authentication.AnonymousAuthenticationFilter",
						"anonymous-key"),
						filter("org.springframework.security.web.servletapi.SecurityContextHolderAwareRequestFilter"));
			}

		}

	}

}
