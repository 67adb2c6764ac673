package io.github.delayqueue.web.autoconfigure;

import java.util.List;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueEndpointAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.dashboard.DelayQueueDashboard;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Auto-configuration of the operators' dashboard ({@code delayqueue.dashboard.enabled=true})
 * in a Spring MVC application with Spring Boot Actuator. It is served only where something
 * authenticates its users: with Spring Security on the classpath (the dashboard then also
 * refuses every request without an authenticated user itself, whatever the application's
 * chains permit), or when {@code delayqueue.dashboard.allow-unauthenticated=true} says that
 * nothing needs to (a warning at start-up). With
 * {@code delayqueue.dashboard.on-management-port=true} it is served by the management server
 * only ({@link DelayQueueDashboardManagementContextConfiguration}), which needs
 * {@code management.server.port} of its own, and there without an authenticated user unless
 * Spring Security is on the classpath. Otherwise it is not served, and a warning says why.
 * Actuator's access to the {@code delayqueue} endpoint applies: {@code read-only}
 * ({@code management.endpoint.delayqueue.access} or
 * {@code management.endpoints.access.max-permitted}) makes the dashboard read-only,
 * {@code none} leaves it unserved.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("delayqueue.dashboard.enabled")
@ConditionalOnBean(DelayQueueOperations.class)
@ImportRuntimeHints(DelayQueueDashboardAutoConfiguration.DashboardRuntimeHints.class)
public final class DelayQueueDashboardAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DelayQueueDashboardAutoConfiguration.class);

	static final String SPRING_SECURITY = "org.springframework.security.web.SecurityFilterChain";

	static final String ACTUATOR = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

	static final String MANAGEMENT_PORT = "org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType";

	static final String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";

	/** Spring Security's CSRF token, which the dashboard reads through its interface. */
	static final String CSRF_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

	DelayQueueDashboardAutoConfiguration(DelayQueueDashboardProperties dashboard, DelayQueueHttpProperties http,
			ResourceLoader resourceLoader, Environment environment) {
		String path = dashboard.getPath();
		if (http.isEnabled() && (path.equals(http.getBasePath()) || path.startsWith(http.getBasePath() + "/")
				|| http.getBasePath().startsWith(path + "/"))) {
			throw new InvalidConfigurationPropertyValueException("delayqueue.dashboard.path", path,
					"must not be delayqueue.http.base-path, nor above or under it");
		}
		if (!ClassUtils.isPresent(ACTUATOR, resourceLoader.getClassLoader())
				|| !ClassUtils.isPresent(MANAGEMENT_PORT, resourceLoader.getClassLoader())) {
			throw new IllegalStateException("delayqueue.dashboard.enabled=true needs Spring Boot Actuator: add"
					+ " org.springframework.boot:spring-boot-starter-actuator");
		}
		if (dashboard.isOnManagementPort()) {
			if (!Dashboards.managementPortOfItsOwn(environment)) {
				throw new IllegalStateException("delayqueue.dashboard.on-management-port=true needs the management"
						+ " server on a port of its own: set management.server.port to another port than server.port");
			}
			boolean springSecurity = ClassUtils.isPresent(SPRING_SECURITY, resourceLoader.getClassLoader());
			if (!springSecurity && dashboard.getRole() != null) {
				throw new IllegalStateException("delayqueue.dashboard.role needs Spring Security on the classpath to sign"
						+ " users in: without it the management port's dashboard has no users to check");
			}
			String access = (springSecurity || dashboard.isReadOnly()) ? ""
					: ", without an authenticated user: anyone who reaches that port can replay, cancel and pause";
			String line = "The delayqueue dashboard is served on the management port only, at " + dashboard.getPath()
					+ " (delayqueue.dashboard.on-management-port=true)" + access;
			if (access.isEmpty()) {
				logger.info(line);
			}
			else {
				logger.warn(line);
			}
		}
		if (dashboard.isAllowUnauthenticated()) {
			logger.warn("The delayqueue dashboard at " + dashboard.getPath() + " serves requests without an"
					+ " authenticated user (delayqueue.dashboard.allow-unauthenticated=true)"
					+ (dashboard.isReadOnly() ? "" : ", and anyone who reaches it can replay, cancel and pause"));
		}
		else if (ClassUtils.isPresent(SPRING_SECURITY, resourceLoader.getClassLoader())) {
			if (dashboard.getRole() == null && !dashboard.isReadOnly()) {
				logger.warn("Every authenticated user may use the delayqueue dashboard at " + dashboard.getPath()
						+ ", replay, cancel and pause included, unless the application's security limits its path:"
						+ " set delayqueue.dashboard.role to the operators' role");
			}
		}
		else if (!dashboard.isOnManagementPort()) {
			logger.warn("The delayqueue dashboard is not served: nothing authenticates its users. Add Spring Security"
					+ " (spring-boot-starter-security) and sign its users in, serve it on the management port only"
					+ " (delayqueue.dashboard.on-management-port=true), or set"
					+ " delayqueue.dashboard.allow-unauthenticated=true where the network keeps strangers out");
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = ACTUATOR)
	@Conditional(OnAuthenticatedDashboardCondition.class)
	static class DashboardConfiguration {

		@Bean
		RouterFunction<ServerResponse> delayQueueDashboardRoutes(ListableBeanFactory beanFactory) {
			return Dashboards.routes(beanFactory, false);
		}

	}

	/**
	 * Served on the application's port, and something authenticates the dashboard's users:
	 * Spring Security is on the classpath, or
	 * {@code delayqueue.dashboard.allow-unauthenticated=true} says nothing needs to.
	 */
	static class OnAuthenticatedDashboardCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			if (context.getEnvironment().getProperty("delayqueue.dashboard.on-management-port", Boolean.class, false)) {
				return ConditionOutcome.noMatch("delayqueue.dashboard.on-management-port=true: served by the management"
						+ " context");
			}
			if (context.getEnvironment()
				.getProperty("delayqueue.dashboard.allow-unauthenticated", Boolean.class, false)) {
				return ConditionOutcome.match("delayqueue.dashboard.allow-unauthenticated=true");
			}
			if (ClassUtils.isPresent(SPRING_SECURITY, context.getClassLoader())) {
				return ConditionOutcome.match("Spring Security is on the classpath");
			}
			return ConditionOutcome.noMatch("Neither Spring Security on the classpath nor"
					+ " delayqueue.dashboard.allow-unauthenticated=true");
		}

	}

	/**
	 * What the dashboard needs at run time in a native image: its page, script and style
	 * sheet (resources of its package); the types of its JSON answers, written by its own
	 * Jackson mapper (its overview and the endpoint's answers); the methods of Spring
	 * Security's CSRF token, which it reads through reflection; and the types it and its
	 * configuration look for on the class path.
	 */
	static class DashboardRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			String assets = DelayQueueDashboard.class.getPackageName().replace('.', '/');
			for (String type : new String[] { "html", "js", "css" }) {
				hints.resources().registerPattern(assets + "/*." + type);
			}
			new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
					DelayQueueDashboard.Overview.class);
			DelayQueueEndpointAutoConfiguration.EndpointRuntimeHints.registerAnswers(hints.reflection());
			for (String type : new String[] { SPRING_SECURITY, ACTUATOR, MANAGEMENT_PORT, METER_REGISTRY }) {
				hints.reflection().registerTypeIfPresent(classLoader, type);
			}
			hints.reflection()
				.registerTypeIfPresent(classLoader, CSRF_TOKEN,
						(type) -> type.withMethod("getParameterName", List.of(), ExecutableMode.INVOKE)
							.withMethod("getToken", List.of(), ExecutableMode.INVOKE));
		}

	}

}
