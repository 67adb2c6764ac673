package io.github.delayqueue.config;

import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.Assert;

/**
 * Collects endpoints during start-up and hands them, with their container factory, to the
 * {@link DelayedListenerEndpointRegistry}.
 */
public class DelayedListenerEndpointRegistrar {

	/** The bean name of the default container factory. */
	public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "delayedListenerContainerFactory";

	private final List<MethodDelayedListenerEndpoint> endpoints = new ArrayList<>();

	private DelayedListenerEndpointRegistry registry;

	private DelayedListenerContainerFactory containerFactory;

	private String containerFactoryBeanName = DEFAULT_CONTAINER_FACTORY_BEAN_NAME;

	private BeanFactory beanFactory;

	/**
	 * Sets the registry the endpoints are registered with.
	 * @param registry the registry
	 */
	public void setEndpointRegistry(DelayedListenerEndpointRegistry registry) {
		this.registry = registry;
	}

	/**
	 * The registry the endpoints are registered with.
	 * @return the registry, or {@code null} before one is set
	 */
	public DelayedListenerEndpointRegistry getEndpointRegistry() {
		return this.registry;
	}

	/**
	 * Sets the factory used by endpoints that name none.
	 * @param containerFactory the factory
	 */
	public void setContainerFactory(DelayedListenerContainerFactory containerFactory) {
		this.containerFactory = containerFactory;
	}

	/**
	 * Names the bean of the factory used by endpoints that name none.
	 * @param containerFactoryBeanName the bean name
	 */
	public void setContainerFactoryBeanName(String containerFactoryBeanName) {
		this.containerFactoryBeanName = containerFactoryBeanName;
	}

	/**
	 * Sets the bean factory that resolves the container factory by its bean name.
	 * @param beanFactory the bean factory
	 */
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Adds an endpoint.
	 * @param endpoint the endpoint
	 */
	public void registerEndpoint(MethodDelayedListenerEndpoint endpoint) {
		Assert.notNull(endpoint, "endpoint must not be null");
		this.endpoints.add(endpoint);
	}

	/**
	 * Creates every endpoint's container in the registry.
	 */
	public void registerAllEndpoints() {
		Assert.state(this.registry != null, "No DelayedListenerEndpointRegistry set");
		for (MethodDelayedListenerEndpoint endpoint : this.endpoints) {
			this.registry.registerListenerContainer(endpoint, resolveFactory(endpoint));
		}
		this.endpoints.clear();
	}

	private DelayedListenerContainerFactory resolveFactory(MethodDelayedListenerEndpoint endpoint) {
		if (endpoint.containerFactory() != null) {
			return lookUp(endpoint.containerFactory(), endpoint);
		}
		if (this.containerFactory != null) {
			return this.containerFactory;
		}
		return lookUp(this.containerFactoryBeanName, endpoint);
	}

	private DelayedListenerContainerFactory lookUp(String name, MethodDelayedListenerEndpoint endpoint) {
		if (this.beanFactory == null || !this.beanFactory.containsBean(name)) {
			throw new InvalidDelayedListenerException(endpoint.describe(),
					"needs a DelayedListenerContainerFactory bean named '" + name + "'",
					"define one, or use Spring Boot's auto-configuration (delayqueue-starter)", null);
		}
		return this.beanFactory.getBean(name, DelayedListenerContainerFactory.class);
	}

}
