package io.github.delayqueue.web.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueSampler;
import io.github.delayqueue.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.autoconfigure.ListenerContainers;
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
import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Builds the dashboard for the application's context or the management context. Apart from
 * {@link DelayQueueDashboardAutoConfiguration}, whose class is loaded before it knows that
 * Actuator, which this class needs, is on the classpath.
 */
final class Dashboards {

	private static final Log logger = LogFactory.getLog(Dashboards.class);

	private Dashboards() {
	}

	/**
	 * The dashboard's routes, from the beans of the application context (or of its parent,
	 * for the management context's), with Actuator's access to the {@code delayqueue}
	 * endpoint: read-only makes the dashboard read-only, none leaves it unserved (routes that
	 * match no request).
	 * @param beanFactory the context's bean factory
	 * @param onManagementPort whether it is served on the management port (then without an
	 * authenticated user where there is no Spring Security)
	 * @return the routes
	 */
	static RouterFunction<ServerResponse> routes(ListableBeanFactory beanFactory, boolean onManagementPort) {
		Access access = endpointAccess(beanFactory);
		String setting = ": the delayqueue endpoint's access is " + access.name().toLowerCase(Locale.ROOT).replace('_', '-')
				+ " (management.endpoint.delayqueue.access, management.endpoints.access.*)";
		if (access == Access.NONE) {
			logger.info("The delayqueue dashboard is not served" + setting);
			return (request) -> Optional.empty();
		}
		if (access == Access.READ_ONLY) {
			logger.info("The delayqueue dashboard is read-only" + setting);
		}
		return create(beanFactory, onManagementPort, access == Access.READ_ONLY).routes();
	}

	/**
	 * The access to the endpoint, as Actuator resolves it for its operations.
	 */
	private static Access endpointAccess(ListableBeanFactory beanFactory) {
		EndpointAccessResolver resolver = beanFactory.getBeanProvider(EndpointAccessResolver.class)
			.getIfAvailable(() -> new PropertiesEndpointAccessResolver(beanFactory.getBean(Environment.class)));
		// the endpoint's id and default access, as its @Endpoint declares them
		return resolver.accessFor(EndpointId.of("delayqueue"), Access.UNRESTRICTED);
	}

	private static DelayQueueDashboard create(ListableBeanFactory beanFactory, boolean onManagementPort,
			boolean readOnlyEndpoint) {
		DelayQueueProperties properties = beanFactory.getBean(DelayQueueProperties.class);
		DelayQueueDashboardProperties dashboard = beanFactory.getBean(DelayQueueDashboardProperties.class);
		boolean showPayloads = properties.endpoint().showPayloads();
		ClassLoader classLoader = Dashboards.class.getClassLoader();
		String instanceId = ListenerContainers.instanceId(beanFactory.getBeanProvider(RedisDelayQueue.class));
		DelayQueueEndpoint endpoint = new DelayQueueEndpoint(beanFactory.getBean(DelayQueueOperations.class),
				ListenerContainers.of(beanFactory.getBeanProvider(DelayedListenerEndpointRegistry.class)),
				instanceId, showPayloads,
				beanFactory.getBeanProvider(RecurringJobs.class).getIfAvailable(), "dashboard");
		boolean unauthenticated = dashboard.isAllowUnauthenticated()
				|| (onManagementPort && !ClassUtils.isPresent(DelayQueueDashboardAutoConfiguration.SPRING_SECURITY,
						classLoader));
		DelayQueueDashboard.Settings settings = new DelayQueueDashboard.Settings(
				DelayQueueHttpAutoConfiguration.checkedPath("delayqueue.dashboard.path", dashboard.getPath()),
				dashboard.isReadOnly() || readOnlyEndpoint, unauthenticated && dashboard.getRole() == null, dashboard.getRole(),
				dashboard.getRefreshInterval(), dashboard.getChartWindow(), showPayloads, instanceId);
		Supplier<Map<String, JobCounts>> counts = Map::of;
		if (ClassUtils.isPresent(DelayQueueDashboardAutoConfiguration.METER_REGISTRY, classLoader)) {
			counts = MeterCounts.of(beanFactory);
		}
		DashboardHistory history = null;
		DelayQueueSampler sampler = beanFactory.getBeanProvider(DelayQueueSampler.class).getIfAvailable();
		if (sampler != null) {
			history = new DashboardHistory(dashboard.getChartWindow());
			sampler.addListener(history);
		}
		return new DelayQueueDashboard(endpoint, counts, settings, history);
	}

	/**
	 * Whether the management server listens on a port of its own.
	 * @param environment the environment
	 * @return whether it does
	 */
	static boolean managementPortOfItsOwn(Environment environment) {
		return ManagementPortType.get(environment) == ManagementPortType.DIFFERENT;
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

}
