package io.github.delayqueue.autoconfigure;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueSampler;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.dashboard.DashboardHistory;
import io.github.delayqueue.dashboard.DelayQueueDashboard;
import io.github.delayqueue.dashboard.DelayQueueDashboard.JobCounts;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
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
 * nothing needs to (a warning at start-up). Otherwise it is not served, and a warning says why.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("delayqueue.dashboard.enabled")
@ConditionalOnBean(DelayQueueOperations.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueDashboardAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DelayQueueDashboardAutoConfiguration.class);

	static final String SPRING_SECURITY = "org.springframework.security.web.SecurityFilterChain";

	static final String ACTUATOR = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

	DelayQueueDashboardAutoConfiguration(DelayQueueProperties properties, ResourceLoader resourceLoader) {
		DelayQueueProperties.Dashboard dashboard = properties.getDashboard();
		if (!ClassUtils.isPresent(ACTUATOR, resourceLoader.getClassLoader())) {
			throw new IllegalStateException("delayqueue.dashboard.enabled=true needs Spring Boot Actuator: add"
					+ " org.springframework.boot:spring-boot-starter-actuator");
		}
		if (dashboard.isAllowUnauthenticated()) {
			logger.warn("The delayqueue dashboard at " + dashboard.getPath() + " serves requests without an"
					+ " authenticated user (delayqueue.dashboard.allow-unauthenticated=true)"
					+ (dashboard.isReadOnly() ? "" : ", and anyone who reaches it can replay, cancel and pause"));
		}
		else if (!ClassUtils.isPresent(SPRING_SECURITY, resourceLoader.getClassLoader())) {
			logger.warn("The delayqueue dashboard is not served: nothing authenticates its users. Add Spring Security"
					+ " (spring-boot-starter-security) and sign its users in, or set"
					+ " delayqueue.dashboard.allow-unauthenticated=true where the network keeps strangers out");
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = ACTUATOR)
	@Conditional(OnAuthenticatedDashboardCondition.class)
	static class DashboardConfiguration {

		@Bean
		RouterFunction<ServerResponse> delayQueueDashboardRoutes(DelayQueueOperations operations,
				ObjectProvider<DelayedListenerEndpointRegistry> registry, ObjectProvider<RedisDelayQueue> queue,
				ObjectProvider<RecurringJobs> recurringJobs, DelayQueueProperties properties,
				ResourceLoader resourceLoader, ListableBeanFactory beanFactory,
				ObjectProvider<DelayQueueSampler> sampler) {
			DelayQueueProperties.Dashboard dashboard = properties.getDashboard();
			boolean showPayloads = properties.getEndpoint().isShowPayloads();
			DelayQueueEndpoint endpoint = new DelayQueueEndpoint(operations, ListenerContainers.of(registry),
					ListenerContainers.instanceId(queue), showPayloads, recurringJobs.getIfAvailable(), "dashboard");
			DelayQueueDashboard.Settings settings = new DelayQueueDashboard.Settings(
					DelayQueueHttpAutoConfiguration.checkedPath("delayqueue.dashboard.path", dashboard.getPath()),
					dashboard.isReadOnly(), dashboard.isAllowUnauthenticated(), dashboard.getRefreshInterval(),
					dashboard.getChartWindow(), showPayloads);
			Supplier<Map<String, JobCounts>> counts = Map::of;
			if (ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", resourceLoader.getClassLoader())) {
				counts = MeterCounts.of(beanFactory);
			}
			DashboardHistory history = null;
			DelayQueueSampler found = sampler.getIfAvailable();
			if (found != null) {
				history = new DashboardHistory(dashboard.getChartWindow());
				found.addListener(history);
			}
			return new DelayQueueDashboard(endpoint, counts, settings, history).routes();
		}

	}

	/**
	 * This instance's job counters by topic, read from its meter registry (in a class of its
	 * own: Micrometer is optional).
	 */
	static final class MeterCounts {

		private MeterCounts() {
		}

		static Supplier<Map<String, JobCounts>> of(ListableBeanFactory beanFactory) {
			ObjectProvider<MeterRegistry> registry = beanFactory.getBeanProvider(MeterRegistry.class);
			return () -> {
				MeterRegistry found = registry.getIfAvailable();
				return (found != null) ? read(found) : Map.of();
			};
		}

		static Map<String, JobCounts> read(MeterRegistry registry) {
			Map<String, double[]> byTopic = new TreeMap<>();
			String[] kinds = { "completed", "retried", "dead" };
			for (int kind = 0; kind < kinds.length; kind++) {
				for (Counter counter : registry.find("delayqueue.jobs." + kinds[kind]).counters()) {
					String topic = counter.getId().getTag("topic");
					if (topic != null) {
						byTopic.computeIfAbsent(topic, (t) -> new double[3])[kind] += counter.count();
					}
				}
			}
			Map<String, JobCounts> counts = new TreeMap<>();
			byTopic.forEach((topic, values) -> counts.put(topic, new JobCounts(values[0], values[1], values[2])));
			return counts;
		}

	}

	/**
	 * Something authenticates the dashboard's users: Spring Security is on the classpath, or
	 * {@code delayqueue.dashboard.allow-unauthenticated=true} says nothing needs to.
	 */
	static class OnAuthenticatedDashboardCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
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

}
