package io.github.delayqueue.annotation;

import io.github.delayqueue.config.DelayedListenerEndpointRegistry;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Registers the {@link DelayedListenerAnnotationBeanPostProcessor} and the
 * {@link DelayedListenerEndpointRegistry}; imported by {@link EnableDelayedListeners}.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public class DelayedListenerBootstrapConfiguration {

	/** The bean name of the post-processor. */
	public static final String POST_PROCESSOR_BEAN_NAME = "io.github.delayqueue.annotation.internalDelayedListenerAnnotationProcessor";

	/** The bean name of the registry. */
	public static final String REGISTRY_BEAN_NAME = "io.github.delayqueue.config.internalDelayedListenerEndpointRegistry";

	@Bean(name = POST_PROCESSOR_BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DelayedListenerAnnotationBeanPostProcessor delayedListenerAnnotationBeanPostProcessor() {
		return new DelayedListenerAnnotationBeanPostProcessor();
	}

	@Bean(name = REGISTRY_BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	DelayedListenerEndpointRegistry delayedListenerEndpointRegistry() {
		return new DelayedListenerEndpointRegistry();
	}

}
