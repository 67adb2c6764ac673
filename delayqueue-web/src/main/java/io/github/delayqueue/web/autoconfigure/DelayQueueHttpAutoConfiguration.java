package io.github.delayqueue.web.autoconfigure;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.actuate.ProblemJsonExceptionResolver;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.http.AuthenticatedUserInterceptor;
import io.github.delayqueue.http.BearerTokenInterceptor;
import io.github.delayqueue.http.DelayQueueHttpApi;
import io.github.delayqueue.http.JobRequestConverter;
import io.github.delayqueue.http.ReserveWaiters;
import io.github.delayqueue.recurring.RecurringJobs;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.OnPropertyListCondition;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.ResourceLoader;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.handler.MappedInterceptor;

/**
 * Auto-configuration of the HTTP job API ({@code delayqueue.http.enabled=true}) in a Spring
 * MVC application. Requests need a bearer token of {@code delayqueue.http.tokens} when tokens
 * are configured, with or without Spring Security on the classpath, and an authenticated user
 * with {@code delayqueue.http.secured-by-application=true} (the application's own security,
 * such as a Spring Security chain, signs its users in). Without tokens, start-up fails unless
 * one of these or {@code delayqueue.http.allow-anonymous=true} (nothing protects it: a trusted
 * network only) says how the API is protected. Start-up logs what protects it.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("delayqueue.http.enabled")
@ConditionalOnBean(DelayQueueOperations.class)
@ImportRuntimeHints(DelayQueueHttpAutoConfiguration.HttpApiRuntimeHints.class)
public final class DelayQueueHttpAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DelayQueueHttpAutoConfiguration.class);

	private static final String SPRING_SECURITY = "org.springframework.security.web.SecurityFilterChain";

	/** The bean name of the token check. */
	static final String TOKEN_INTERCEPTOR_BEAN_NAME = "delayQueueHttpTokenInterceptor";

	/** The bean name of the authenticated user check. */
	static final String USER_INTERCEPTOR_BEAN_NAME = "delayQueueHttpUserInterceptor";

	DelayQueueHttpAutoConfiguration(DelayQueueHttpProperties properties, ResourceLoader resourceLoader,
			ListableBeanFactory beanFactory) {
		checkProtection(properties, ClassUtils.isPresent(SPRING_SECURITY, resourceLoader.getClassLoader()));
		checkChecksDefined(properties, beanFactory.containsBeanDefinition(TOKEN_INTERCEPTOR_BEAN_NAME),
				beanFactory.containsBeanDefinition(USER_INTERCEPTOR_BEAN_NAME));
	}

	@Bean
	@ConditionalOnMissingBean
	ReserveWaiters delayQueueReserveWaiters(DelayQueueOperations operations, DelayQueueHttpProperties properties) {
		return new ReserveWaiters(operations, properties.getMaxWaiting(), properties.getMaxTopics());
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueHttpApi delayQueueHttpApi(DelayQueueOperations operations, ReserveWaiters waiters,
			ObjectProvider<JsonMapper> jsonMapper, DelayQueueHttpProperties http,
			ObjectProvider<RecurringJobs> recurringJobs) {
		return new DelayQueueHttpApi(operations, waiters, jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()),
				limits(http), basePath(http), recurringJobs.getIfAvailable());
	}

	/**
	 * The reading of the API's request bodies, and Spring MVC's own refusals of requests to
	 * the API before a route is found (a method a route does not serve, a path without a
	 * route) as {@code application/problem+json}, as the API's are. First, so that the API's
	 * converter comes before the JSON converters an application declares.
	 */
	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	WebMvcConfigurer delayQueueHttpWebMvc(DelayQueueHttpProperties properties) {
		List<String> paths = List.of(basePath(properties));
		long maxBodyBytes = limits(properties).maxBodyBytes();
		return new WebMvcConfigurer() {

			@Override
			public void configureMessageConverters(HttpMessageConverters.ServerBuilder builder) {
				builder.addCustomConverter(new JobRequestConverter(maxBodyBytes));
			}

			@Override
			public void extendHandlerExceptionResolvers(List<HandlerExceptionResolver> resolvers) {
				// after @ExceptionHandler methods, before Spring MVC's default handling
				resolvers.add(Math.min(1, resolvers.size()), new ProblemJsonExceptionResolver(() -> paths));
			}

		};
	}

	private static DelayQueueHttpApi.Limits limits(DelayQueueHttpProperties http) {
		return new DelayQueueHttpApi.Limits(http.getMaxBodySize().toBytes(), http.getMaxReserve(), http.getMaxWait());
	}

	/**
	 * The token check, with or without Spring Security. A {@link MappedInterceptor} bean is
	 * applied by every handler mapping to every handler, and checks the API's handlers: not
	 * replaceable, so that configured tokens are always checked.
	 */
	@Bean(TOKEN_INTERCEPTOR_BEAN_NAME)
	@Conditional(OnTokensCondition.class)
	MappedInterceptor delayQueueHttpTokenInterceptor(DelayQueueHttpProperties properties) {
		return new MappedInterceptor(null, new BearerTokenInterceptor(properties.getTokens()));
	}

	/**
	 * The authenticated user check of {@code delayqueue.http.secured-by-application=true},
	 * applied as the token check is: whatever the application's security permits, a request
	 * to the API without an authenticated user is refused.
	 */
	@Bean(USER_INTERCEPTOR_BEAN_NAME)
	@ConditionalOnBooleanProperty("delayqueue.http.secured-by-application")
	MappedInterceptor delayQueueHttpUserInterceptor() {
		return new MappedInterceptor(null, new AuthenticatedUserInterceptor());
	}

	static String basePath(DelayQueueHttpProperties http) {
		return checkedPath("delayqueue.http.base-path", http.getBasePath());
	}

	/** A path property's value, checked again for properties set in code. */
	static String checkedPath(String property, @Nullable String path) {
		Assert.state(path != null && DelayQueueHttpProperties.PATH.matcher(path).matches(),
				() -> property + " " + DelayQueueHttpProperties.PATH_RULE + ", was '" + path + "'");
		return path;
	}

	/**
	 * Refuses to serve the API unprotected unless asked to, and settings that contradict each
	 * other. Spring Security on the classpath proves nothing: its chains may not cover the
	 * API's paths, or permit them.
	 */
	static void checkProtection(DelayQueueHttpProperties http, boolean springSecurity) {
		List<String> tokens = http.getTokens();
		if (http.isAllowAnonymous() && (!tokens.isEmpty() || http.isSecuredByApplication())) {
			String other = tokens.isEmpty() ? "delayqueue.http.secured-by-application" : "delayqueue.http.tokens";
			Set<String> names = new LinkedHashSet<>(List.of("delayqueue.http.allow-anonymous", other));
			throw new MutuallyExclusiveConfigurationPropertiesException(names, names);
		}
		String user = " serves authenticated users only: the application's security signs them in, and a request"
				+ " without one is refused (delayqueue.http.secured-by-application=true)";
		if (!tokens.isEmpty()) {
			logger.info("The delayqueue HTTP job API at " + http.getBasePath() + " needs one of the " + tokens.size()
					+ " bearer tokens of delayqueue.http.tokens" + (http.isSecuredByApplication() ? " and" + user : ""));
			return;
		}
		if (http.isSecuredByApplication()) {
			logger.info("The delayqueue HTTP job API at " + http.getBasePath() + user);
			return;
		}
		if (http.isAllowAnonymous()) {
			logger.warn("The delayqueue HTTP job API at " + http.getBasePath()
					+ " takes requests without a token (delayqueue.http.allow-anonymous=true)");
			return;
		}
		throw new UnprotectedHttpApiException(http.getBasePath() + "/**", springSecurity);
	}

	/**
	 * Refuses configured tokens or secured-by-application that nothing would check. Each
	 * check is defined under a condition that an application processed ahead of time
	 * ({@code spring-boot:process-aot}) evaluated with the build's properties: started with
	 * the property after a build without it, it would let every request to the API through.
	 */
	static void checkChecksDefined(DelayQueueHttpProperties http, boolean tokenCheckDefined,
			boolean userCheckDefined) {
		Assert.state(http.getTokens().isEmpty() || tokenCheckDefined,
				() -> "delayqueue.http.tokens is set, but the application has no token check: it was processed ahead of"
						+ " time without delayqueue.http.tokens. Set delayqueue.http.tokens when processing it too"
						+ " (any value: the tokens are read at start-up)");
		Assert.state(!http.isSecuredByApplication() || userCheckDefined,
				() -> "delayqueue.http.secured-by-application=true, but the application has no authenticated user check:"
						+ " it was processed ahead of time without it. Set it when processing the application too");
	}

	static class OnTokensCondition extends OnPropertyListCondition {

		OnTokensCondition() {
			super("delayqueue.http.tokens", () -> ConditionMessage.forCondition("delayqueue.http.tokens"));
		}

	}

	/**
	 * What the HTTP job API needs at run time in a native image, besides the reflection on
	 * its routes that Spring MVC registers for a controller bean: its OpenAPI description (a
	 * resource of its package) and the type its configuration looks for on the class path.
	 * Its request records are registered for binding with its routes, as the types of their
	 * {@code @RequestBody} parameters; its answers are JSON trees, which need no binding.
	 */
	static class HttpApiRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			hints.resources().registerPattern(DelayQueueHttpApi.class.getPackageName().replace('.', '/') + "/openapi.yaml");
			hints.reflection().registerTypeIfPresent(classLoader, SPRING_SECURITY);
		}

	}

}
