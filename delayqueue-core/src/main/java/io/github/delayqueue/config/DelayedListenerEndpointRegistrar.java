package io.github.delayqueue.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.util.Assert;
import org.springframework.validation.Validator;

/**
 * Collects endpoints during start-up and hands them, with their container factory, to the
 * {@link DelayedListenerEndpointRegistry}; an endpoint registered once the containers exist
 * (from a bean made later, or at run time) is handed over at once. A
 * {@link DelayedListenerConfigurer} gets it before the containers are made.
 *
 * <p>
 * It owns how listener methods get their arguments, as Spring Kafka's registrar does: by
 * default the container factory's message-handler-method factory resolves them (the job, the
 * payload read by the factory's converter, {@code @Header} parameters, {@code Message<T>}).
 * {@link #setValidator(Validator) A validator} (for {@code @Valid @Payload} parameters) and
 * {@link #setCustomMethodArgumentResolvers custom argument resolvers} are added to that, for
 * the endpoints registered here; {@link #setMessageHandlerMethodFactory a factory of one's
 * own} replaces it. Endpoints registered with the registry directly use their container
 * factory's.
 */
public class DelayedListenerEndpointRegistrar {

	/** The bean name of the default container factory. */
	public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "delayedListenerContainerFactory";

	private final List<Registration> endpoints = new ArrayList<>();

	private @Nullable DelayedListenerEndpointRegistry registry;

	private @Nullable DelayedListenerContainerFactory containerFactory;

	private String containerFactoryBeanName = DEFAULT_CONTAINER_FACTORY_BEAN_NAME;

	private @Nullable BeanFactory beanFactory;

	private @Nullable MessageHandlerMethodFactory messageHandlerMethodFactory;

	private @Nullable Validator validator;

	private List<HandlerMethodArgumentResolver> customMethodArgumentResolvers = List.of();

	// set once registerAllEndpoints has run: later endpoints are registered at once
	private boolean registered;

	private record Registration(DelayedListenerEndpoint endpoint, @Nullable DelayedListenerContainerFactory factory) {
	}

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
	public @Nullable DelayedListenerEndpointRegistry getEndpointRegistry() {
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
	 * Resolves the arguments of the listener methods registered here instead of the
	 * container factory's; the {@link #setValidator validator} and
	 * {@link #setCustomMethodArgumentResolvers custom resolvers} then do not apply (configure
	 * them on this factory). It must resolve {@link io.github.delayqueue.core.DelayedJob}
	 * parameters and read payloads itself, and the start-up check that a listener method has
	 * at most one payload parameter is skipped (what is a payload parameter is then the
	 * factory's to say).
	 * @param messageHandlerMethodFactory the factory, or {@code null} for the container
	 * factory's
	 */
	public void setMessageHandlerMethodFactory(@Nullable MessageHandlerMethodFactory messageHandlerMethodFactory) {
		this.messageHandlerMethodFactory = messageHandlerMethodFactory;
	}

	/**
	 * The factory set by {@link #setMessageHandlerMethodFactory}.
	 * @return the factory, or {@code null}
	 */
	public @Nullable MessageHandlerMethodFactory getMessageHandlerMethodFactory() {
		return this.messageHandlerMethodFactory;
	}

	/**
	 * Validates payload parameters annotated with {@code @Valid} or {@code @Validated}; a job
	 * whose payload fails is failed without a retry.
	 * @param validator the validator, or {@code null} for none
	 */
	public void setValidator(@Nullable Validator validator) {
		this.validator = validator;
	}

	/**
	 * The validator set by {@link #setValidator}.
	 * @return the validator, or {@code null}
	 */
	public @Nullable Validator getValidator() {
		return this.validator;
	}

	/**
	 * Resolvers for parameters of listener methods that the built-in ones do not bind; asked
	 * after the job's own ({@code DelayedJob}, {@code ReservedJob}) and before the payload's.
	 * @param resolvers the resolvers
	 */
	public void setCustomMethodArgumentResolvers(HandlerMethodArgumentResolver... resolvers) {
		Assert.noNullElements(resolvers, "resolvers must not contain null");
		this.customMethodArgumentResolvers = List.of(resolvers);
	}

	/**
	 * The resolvers set by {@link #setCustomMethodArgumentResolvers}.
	 * @return the resolvers
	 */
	public List<HandlerMethodArgumentResolver> getCustomMethodArgumentResolvers() {
		return this.customMethodArgumentResolvers;
	}

	/**
	 * Adds an endpoint, run by the container factory it names or the default one; registered
	 * with the registry at once when the containers exist already.
	 * @param endpoint the endpoint
	 */
	public void registerEndpoint(DelayedListenerEndpoint endpoint) {
		registerEndpoint(endpoint, null);
	}

	/**
	 * Adds an endpoint run by a given container factory; registered with the registry at
	 * once when the containers exist already.
	 * @param endpoint the endpoint
	 * @param factory the factory, or {@code null} for the one the endpoint names or the
	 * default one
	 */
	public void registerEndpoint(DelayedListenerEndpoint endpoint, @Nullable DelayedListenerContainerFactory factory) {
		Assert.notNull(endpoint, "endpoint must not be null");
		Registration registration = new Registration(endpoint, factory);
		boolean now;
		synchronized (this.endpoints) {
			now = this.registered;
			if (!now) {
				this.endpoints.add(registration);
			}
		}
		if (now) {
			register(registration);
		}
	}

	/**
	 * Creates every endpoint's container in the registry; endpoints added later are
	 * registered at once.
	 */
	public void registerAllEndpoints() {
		Assert.state(this.registry != null, "No DelayedListenerEndpointRegistry set");
		List<Registration> all;
		synchronized (this.endpoints) {
			all = List.copyOf(this.endpoints);
			this.endpoints.clear();
			this.registered = true;
		}
		all.forEach(this::register);
	}

	@SuppressWarnings("NullAway") // registered only once registerAllEndpoints checked the registry
	private void register(Registration registration) {
		DelayedListenerEndpoint endpoint = registration.endpoint();
		DelayedListenerContainerFactory factory = (registration.factory() != null) ? registration.factory()
				: resolveFactory(endpoint);
		this.registry.registerListenerContainer(customized(endpoint), factory);
	}

	private DelayedListenerContainerFactory resolveFactory(DelayedListenerEndpoint endpoint) {
		if (endpoint.containerFactory() != null) {
			return lookUp(endpoint.containerFactory(), endpoint);
		}
		if (this.containerFactory != null) {
			return this.containerFactory;
		}
		return lookUp(this.containerFactoryBeanName, endpoint);
	}

	private DelayedListenerContainerFactory lookUp(String name, DelayedListenerEndpoint endpoint) {
		if (this.beanFactory == null || !this.beanFactory.containsBean(name)) {
			throw new InvalidDelayedListenerException(endpoint.describe(),
					"needs a DelayedListenerContainerFactory bean named '" + name + "'",
					"define one, or use Spring Boot's auto-configuration (delayqueue-starter)", null);
		}
		return this.beanFactory.getBean(name, DelayedListenerContainerFactory.class);
	}

	/**
	 * The endpoint with its arguments resolved as this registrar says, when it says anything.
	 */
	private DelayedListenerEndpoint customized(DelayedListenerEndpoint endpoint) {
		if (this.messageHandlerMethodFactory == null && this.validator == null
				&& this.customMethodArgumentResolvers.isEmpty()) {
			// the container factory's own resolution, which checks the parameters
			return endpoint;
		}
		if (endpoint instanceof MethodDelayedListenerEndpoint method && this.messageHandlerMethodFactory == null) {
			method.checkPayloadParameters(this.customMethodArgumentResolvers);
		}
		return new CustomizedEndpoint(endpoint, this.messageHandlerMethodFactory, this.validator,
				this.customMethodArgumentResolvers);
	}

	/**
	 * An endpoint whose handler is made with the registrar's message-handler-method factory;
	 * everything else is the endpoint's.
	 */
	private record CustomizedEndpoint(DelayedListenerEndpoint endpoint,
			@Nullable MessageHandlerMethodFactory methodFactory, @Nullable Validator validator,
			List<HandlerMethodArgumentResolver> resolvers) implements DelayedListenerEndpoint {

		@Override
		public DelayedJobHandler createHandler(MessageHandlerMethodFactory containerFactorys,
				DelayedJobArgumentResolver jobs) {
			MessageHandlerMethodFactory factory = this.methodFactory;
			if (factory == null) {
				DefaultMessageHandlerMethodFactory made = new DefaultMessageHandlerMethodFactory();
				made.setMessageConverter(jobs.getConverter());
				List<HandlerMethodArgumentResolver> all = new ArrayList<>();
				all.add(jobs);
				all.addAll(this.resolvers);
				made.setCustomArgumentResolvers(all);
				if (this.validator != null) {
					made.setValidator(this.validator);
				}
				made.afterPropertiesSet();
				factory = made;
			}
			return this.endpoint.createHandler(factory, jobs);
		}

		@Override
		public String id() {
			return this.endpoint.id();
		}

		@Override
		public String topic() {
			return this.endpoint.topic();
		}

		@Override
		public String describe() {
			return this.endpoint.describe();
		}

		@Override
		public @Nullable Integer concurrency() {
			return this.endpoint.concurrency();
		}

		@Override
		public @Nullable Duration ttr() {
			return this.endpoint.ttr();
		}

		@Override
		public @Nullable Integer maxAttempts() {
			return this.endpoint.maxAttempts();
		}

		@Override
		public @Nullable RateLimit rateLimit() {
			return this.endpoint.rateLimit();
		}

		@Override
		public @Nullable Boolean autoStartup() {
			return this.endpoint.autoStartup();
		}

		@Override
		public @Nullable Duration backOffInitial() {
			return this.endpoint.backOffInitial();
		}

		@Override
		public @Nullable Double backOffMultiplier() {
			return this.endpoint.backOffMultiplier();
		}

		@Override
		public @Nullable Duration backOffMax() {
			return this.endpoint.backOffMax();
		}

		@Override
		public List<Class<? extends Throwable>> noRetryFor() {
			return this.endpoint.noRetryFor();
		}

		@Override
		public @Nullable String containerFactory() {
			return this.endpoint.containerFactory();
		}

		@Override
		public List<DelayedJobInterceptor> interceptors() {
			return this.endpoint.interceptors();
		}

		@Override
		public boolean exclusive() {
			return this.endpoint.exclusive();
		}

	}

}
