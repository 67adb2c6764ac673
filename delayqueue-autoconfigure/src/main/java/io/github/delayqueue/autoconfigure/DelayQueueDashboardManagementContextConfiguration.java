package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.core.DelayQueueOperations;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.function.support.HandlerFunctionAdapter;
import org.springframework.web.servlet.function.support.RouterFunctionMapping;

/**
 * The dashboard in the management server's own context, with
 * {@code delayqueue.dashboard.on-management-port=true} and a {@code management.server.port} of
 * its own ({@link DelayQueueDashboardAutoConfiguration} checks both and refuses to start
 * otherwise). That context has no Spring MVC configuration of its own: the dashboard's routes
 * come with a handler mapping and adapter of their own, which its dispatcher finds.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("delayqueue.dashboard.enabled")
@ConditionalOnBooleanProperty("delayqueue.dashboard.on-management-port")
@ConditionalOnBean(DelayQueueOperations.class)
public final class DelayQueueDashboardManagementContextConfiguration {

	@Bean
	RouterFunctionMapping delayQueueDashboardHandlerMapping(ListableBeanFactory beanFactory) {
		RouterFunctionMapping mapping = new RouterFunctionMapping(Dashboards.create(beanFactory, true).routes());
		mapping.setOrder(-1);
		return mapping;
	}

	@Bean
	HandlerFunctionAdapter delayQueueDashboardHandlerAdapter() {
		return new HandlerFunctionAdapter();
	}

}
