package io.github.delayqueue.web.autoconfigure;

import io.github.delayqueue.core.DelayQueueOperations;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The dashboard in the management server's own context, with
 * {@code delayqueue.dashboard.on-management-port=true} and a {@code management.server.port} of
 * its own ({@link DelayQueueDashboardAutoConfiguration} checks both and refuses to start
 * otherwise). The routes are a bean of that context, where its Spring MVC configuration finds
 * them, as the application context's finds its own.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("delayqueue.dashboard.enabled")
@ConditionalOnBooleanProperty("delayqueue.dashboard.on-management-port")
@ConditionalOnBean(DelayQueueOperations.class)
@ImportRuntimeHints(DelayQueueDashboardAutoConfiguration.DashboardRuntimeHints.class)
public final class DelayQueueDashboardManagementContextConfiguration {

	@Bean
	RouterFunction<ServerResponse> delayQueueDashboardRoutes(ListableBeanFactory beanFactory) {
		return Dashboards.routes(beanFactory, true);
	}

}
