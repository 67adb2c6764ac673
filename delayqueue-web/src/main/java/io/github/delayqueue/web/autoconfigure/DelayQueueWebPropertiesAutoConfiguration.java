package io.github.delayqueue.web.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Configuration;

/**
 * Binds {@code delayqueue.http.*} and {@code delayqueue.dashboard.*} whenever this module is on
 * the class path, so that a misspelt name fails the start also while the API and the
 * dashboard are off; in a reactive application, turning either on fails the start.
 */
@AutoConfiguration
@EnableConfigurationProperties({ DelayQueueHttpProperties.class, DelayQueueDashboardProperties.class })
public final class DelayQueueWebPropertiesAutoConfiguration {

	/** Refuses the HTTP API or the dashboard in a WebFlux application: both are Spring MVC. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	static class ReactiveApplication {

		ReactiveApplication(DelayQueueHttpProperties http, DelayQueueDashboardProperties dashboard) {
			String reason = "needs a Spring MVC (servlet) application, and this one is reactive (WebFlux); "
					+ "call ReactiveDelayedJobTemplate from your own handlers instead";
			if (http.isEnabled()) {
				throw new InvalidConfigurationPropertyValueException("delayqueue.http.enabled", true, reason);
			}
			if (dashboard.isEnabled()) {
				throw new InvalidConfigurationPropertyValueException("delayqueue.dashboard.enabled", true, reason);
			}
		}

	}

}
