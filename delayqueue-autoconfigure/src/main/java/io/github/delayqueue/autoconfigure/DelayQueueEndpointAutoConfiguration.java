package io.github.delayqueue.autoconfigure;

import java.util.List;
import java.util.Objects;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpointInvokerAdvisor;
import io.github.delayqueue.actuate.EndpointDescriptors;
import io.github.delayqueue.actuate.ProblemJsonExceptionResolver;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.redis.RedisDelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Auto-configuration of the {@code delayqueue} Actuator endpoint, with its
 * {@code application/problem+json} refusals.
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(DelayQueueOperations.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
@ImportRuntimeHints(DelayQueueEndpointAutoConfiguration.EndpointRuntimeHints.class)
public final class DelayQueueEndpointAutoConfiguration {

	// a nested class: its condition's class exists only with Actuator, checked above
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DelayQueueEndpoint delayQueueEndpoint(DelayQueueOperations operations,
				ObjectProvider<DelayedListenerEndpointRegistry> registry, ObjectProvider<RedisDelayQueue> queue,
				DelayQueueProperties properties, ObjectProvider<RecurringJobs> recurringJobs) {
			return new DelayQueueEndpoint(operations, ListenerContainers.of(registry),
					ListenerContainers.instanceId(queue), properties.endpoint().showPayloads(),
					recurringJobs.getIfAvailable(), "endpoint");
		}

		// without spring-web (JMX only) refusals stay the endpoint's exceptions
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnClass(name = "org.springframework.http.MediaType")
		DelayQueueEndpointInvokerAdvisor delayQueueEndpointInvokerAdvisor() {
			return new DelayQueueEndpointInvokerAdvisor();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnAvailableEndpoint(endpoint = DelayQueueEndpoint.class, exposure = EndpointExposure.WEB)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass({ DispatcherServlet.class, PathMappedEndpoints.class })
	static class WebMvcConfiguration {

		@Bean
		WebMvcConfigurer delayQueueEndpointProblems(ObjectProvider<PathMappedEndpoints> endpoints) {
			EndpointId id = EndpointId.of("delayqueue");
			return new WebMvcConfigurer() {

				@Override
				public void extendHandlerExceptionResolvers(List<HandlerExceptionResolver> resolvers) {
					// after @ExceptionHandler methods, before Spring MVC's default handling
					resolvers.add(Math.min(1, resolvers.size()), new ProblemJsonExceptionResolver(
							() -> endpoints.stream().map((mapped) -> mapped.getPath(id)).filter(Objects::nonNull).toList()));
				}

			};
		}

	}

	/**
	 * The endpoint's answer types, for a native image.
	 */
	public static class EndpointRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			registerAnswers(hints.reflection());
		}

		/**
		 * Registers the binding of every answer type of the endpoint (the dashboard's too): each
		 * type nested in {@link EndpointDescriptors}.
		 * @param hints the reflection hints
		 */
		public static void registerAnswers(ReflectionHints hints) {
			new BindingReflectionHintsRegistrar().registerReflectionHints(hints,
					EndpointDescriptors.class.getDeclaredClasses());
		}

	}

}
