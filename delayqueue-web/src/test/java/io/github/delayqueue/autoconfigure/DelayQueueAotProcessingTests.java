package io.github.delayqueue.autoconfigure;

import java.util.function.Consumer;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.web.autoconfigure.DelayQueueDashboardAutoConfiguration;
import io.github.delayqueue.web.autoconfigure.DelayQueueHttpAutoConfiguration;
import io.github.delayqueue.web.autoconfigure.DelayQueueWebPropertiesAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with the starter is processed ahead of time, as
 * {@code spring-boot:process-aot} processes it (no Redis needed: nothing is started), and the
 * hints it gets cover its listeners and the features it turned on, and only those.
 */
class DelayQueueAotProcessingTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
				DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
				DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
				DelayQueueEndpointAutoConfiguration.class, DelayQueueHttpAutoConfiguration.class,
				DelayQueueDashboardAutoConfiguration.class,
				DelayQueueWebPropertiesAutoConfiguration.class))
		.withUserConfiguration(Shop.class);

	@Test
	void listenersPayloadsAndTheQueuesScriptsAreRegistered() {
		processAheadOfTime(this.runner, (hints) -> {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderCloser.class, "close"))
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderClose.class, "orderId"))
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Reminder.class, "text"))
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.resource().forResource("io/github/delayqueue/redis/finish.lua"))
				.accepts(hints);
			// Spring Boot's, for binding delayqueue.* at start-up
			assertThat(RuntimeHintsPredicates.reflection()
				.onConstructorInvocation(DelayQueueProperties.class.getDeclaredConstructors()[0])).accepts(hints);
		});
	}

	@Test
	void theEndpointTheDashboardAndTheHttpApiAreRegisteredWhenTurnedOn() {
		processAheadOfTime(this.runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue",
				"delayqueue.dashboard.enabled=true", "delayqueue.dashboard.allow-unauthenticated=true",
				"delayqueue.http.enabled=true", "delayqueue.http.tokens=a"), (hints) -> {
					assertThat(RuntimeHintsPredicates.reflection()
						.onMethodInvocation(RepairResult.class, "reindexed")).accepts(hints);
					assertThat(RuntimeHintsPredicates.resource().forResource("io/github/delayqueue/dashboard/index.html"))
						.accepts(hints);
					assertThat(RuntimeHintsPredicates.resource().forResource("io/github/delayqueue/http/openapi.yaml"))
						.accepts(hints);
				});
	}

	@Test
	void theDashboardAndTheHttpApiAreNotRegisteredWhenOff() {
		processAheadOfTime(this.runner, (hints) -> {
			assertThat(RuntimeHintsPredicates.resource().forResource("io/github/delayqueue/dashboard/index.html"))
				.rejects(hints);
			assertThat(RuntimeHintsPredicates.resource().forResource("io/github/delayqueue/http/openapi.yaml"))
				.rejects(hints);
		});
	}

	private static void processAheadOfTime(WebApplicationContextRunner runner, Consumer<RuntimeHints> hints) {
		runner.prepare((context) -> {
			DefaultGenerationContext generation = new DefaultGenerationContext(
					new ClassNameGenerator(ClassName.get(Shop.class)), new InMemoryGeneratedFiles());
			new ApplicationContextAotGenerator()
				.processAheadOfTime((GenericApplicationContext) context.getSourceApplicationContext(), generation);
			hints.accept(generation.getRuntimeHints());
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Shop {

		@Bean
		OrderCloser orderCloser() {
			return new OrderCloser();
		}

	}

	static class OrderCloser {

		@DelayedListener(topic = "order-close")
		void close(OrderClose payload) {
		}

		@DelayedListener(topic = "reminder")
		void remind(DelayedJob<Reminder> job) {
		}

	}

	record OrderClose(String orderId) {

	}

	record Reminder(String text) {

	}

}
