package io.github.delayqueue.config;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.util.Assert;
import org.springframework.validation.Validator;

/**
 * Collects endpoints during start-up and registers them, with their container factory, in the
 * {@link DelayedListenerEndpointRegistry}; an endpoint added once the containers exist is
 * registered at once. A validator, custom argument resolvers or a message-handler-method
 * factory set here apply to the listener methods registered here.
 */
public class DelayedListenerEndpointRegistrar {

	/** The bean name of the default container factory. */
	public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "delayedListenerContainerFactory";

	// the endpoints added before registerAllEndpoints ran; null since, endpoints are registered as they are added
	private @Nullable List<DelayedListenerEndpoint> endpoints = new ArrayList<>();

	private @Nullable DelayedListenerEndpointRegistry registry;

	private @Nullable DelayedListenerContainerFactory containerFactory;

	private @Nullable BeanFactory beanFactory;

	private @Nullable MessageHandlerMethodFactory messageHandlerMethodFactory;

	private @Nullable Validator validator;

	private List<HandlerMethodArgumentResolver> customMethodArgumentResolvers = List.of();

	/** Set the registry the endpoints are registered in. */
	public void setEndpointRegistry(DelayedListenerEndpointRegistry registry) {
		this.registry = registry;
	}

	/** Set the factory of the endpoints that name none. */
	public void setContainerFactory(DelayedListenerContainerFactory containerFactory) {
		this.containerFactory = containerFactory;
	}

	/** Set the bean factory that resolves container factories by bean name. */
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Set the factory that resolves listener method arguments instead of the container
	 * factory's ({@code null}); the validator and custom resolvers then do not apply.
	 */
	public void setMessageHandlerMethodFactory(@Nullable MessageHandlerMethodFactory messageHandlerMethodFactory) {
		this.messageHandlerMethodFactory = messageHandlerMethodFactory;
	}

	/** Set the validator of {@code @Valid} payload parameters, or {@code null}; a job that fails is not retried. */
	public void setValidator(@Nullable Validator validator) {
		this.validator = validator;
	}

	/** Set resolvers of listener method parameters, asked after the job's and before the payload's. */
	public void setCustomMethodArgumentResolvers(HandlerMethodArgumentResolver... resolvers) {
		Assert.noNullElements(resolvers, "resolvers must not contain null");
		this.customMethodArgumentResolvers = List.of(resolvers);
	}

	/** Add an endpoint, run by the container factory it names or the default one. */
	public void registerEndpoint(DelayedListenerEndpoint endpoint) {
		Assert.notNull(endpoint, "endpoint must not be null");
		synchronized (this) {
			if (this.endpoints != null) {
				this.endpoints.add(endpoint);
				return;
			}
		}
		register(endpoint);
	}

	/**
	 * Create every endpoint's container in the registry; endpoints added later are registered at once.
	 */
	public void registerAllEndpoints() {
		Assert.state(this.registry != null, "No DelayedListenerEndpointRegistry set");
		List<DelayedListenerEndpoint> all;
		synchronized (this) {
			all = (this.endpoints != null) ? this.endpoints : List.of();
			this.endpoints = null;
		}
		all.forEach(this::register);
	}

	@SuppressWarnings("NullAway") // registered only once registerAllEndpoints checked the registry
	private void register(DelayedListenerEndpoint endpoint) {
		this.registry.registerListenerContainer(customized(endpoint), resolveFactory(endpoint));
	}

	private DelayedListenerContainerFactory resolveFactory(DelayedListenerEndpoint endpoint) {
		if (endpoint.containerFactory() != null) {
			return lookUp(endpoint.containerFactory(), endpoint);
		}
		if (this.containerFactory != null) {
			return this.containerFactory;
		}
		return lookUp(DEFAULT_CONTAINER_FACTORY_BEAN_NAME, endpoint);
	}

	private DelayedListenerContainerFactory lookUp(String name, DelayedListenerEndpoint endpoint) {
		if (this.beanFactory == null || !this.beanFactory.containsBean(name)) {
			throw new InvalidDelayedListenerException(endpoint.describe(),
					"needs a DelayedListenerContainerFactory bean named '" + name + "'",
					"define one, or use Spring Boot's auto-configuration (delayqueue-starter)", null);
		}
		return this.beanFactory.getBean(name, DelayedListenerContainerFactory.class);
	}

	/** A listener method endpoint with its arguments resolved as this registrar says. */
	private DelayedListenerEndpoint customized(DelayedListenerEndpoint endpoint) {
		MessageHandlerMethodFactory custom = this.messageHandlerMethodFactory;
		if (!(endpoint instanceof MethodDelayedListenerEndpoint method)
				|| (custom == null && this.validator == null && this.customMethodArgumentResolvers.isEmpty())) {
			return endpoint;
		}
		return method.withMethodFactory((jobs) -> (custom != null) ? custom
				: DefaultDelayedListenerContainerFactory.methodFactory(jobs, this.customMethodArgumentResolvers,
						this.validator));
	}

}
