package io.github.delayqueue.webflux;

import io.github.delayqueue.web.autoconfigure.DelayQueueWebPropertiesAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code delayqueue-web} in a WebFlux application: the HTTP API and the dashboard are Spring
 * MVC, so turning one on fails the start with the property's name instead of serving nothing.
 */
class WebModuleOnWebFluxTests {

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DelayQueueWebPropertiesAutoConfiguration.class));

	@Test
	void offItStartsWithoutThem() {
		this.runner.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theHttpApiTurnedOnFailsTheStartNamingTheProperty() {
		this.runner.withPropertyValues("delayqueue.http.enabled=true").run((context) -> assertThat(context)
			.getFailure()
			.rootCause()
			.isInstanceOf(InvalidConfigurationPropertyValueException.class)
			.hasMessageContaining("delayqueue.http.enabled")
			.hasMessageContaining("reactive"));
	}

	@Test
	void theDashboardTurnedOnFailsTheStartNamingTheProperty() {
		this.runner.withPropertyValues("delayqueue.dashboard.enabled=true").run((context) -> assertThat(context)
			.getFailure()
			.rootCause()
			.isInstanceOf(InvalidConfigurationPropertyValueException.class)
			.hasMessageContaining("delayqueue.dashboard.enabled"));
	}

}
