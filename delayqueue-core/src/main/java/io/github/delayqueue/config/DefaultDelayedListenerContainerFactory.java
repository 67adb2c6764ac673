package io.github.delayqueue.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.listener.ContainerProperties;
import io.github.delayqueue.listener.DefaultDelayedJobErrorHandler;
import io.github.delayqueue.listener.DefaultDelayedListenerContainer;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobErrorHandler;
import io.github.delayqueue.listener.DelayedJobHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import io.github.delayqueue.listener.DelayedJobRecoverer;
import io.github.delayqueue.listener.DelayedListenerContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.PayloadMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.util.Assert;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.validation.Validator;

/**
 * The default {@link DelayedListenerContainerFactory}: method arguments resolved by a
 * {@link DefaultMessageHandlerMethodFactory}, failed jobs settled by a
 * {@link DefaultDelayedJobErrorHandler} per listener unless an error handler is set. Its
 * settings are every listener's defaults.
 */
public class DefaultDelayedListenerContainerFactory implements DelayedListenerContainerFactory {

	private final DelayQueueOperations operations;

	private final DelayedJobArgumentResolver jobs;

	private final ListenerMethodFactory methodFactory;

	// every container's settings before the endpoint's own
	private final ContainerProperties containerProperties = new ContainerProperties("template", "template");

	private final ExponentialBackOff backOff = ContainerProperties.defaultBackOff();

	private @Nullable DelayedJobRecoverer recoverer;

	/**
	 * Create a factory of containers on the given queue.
	 * @param operations the queue's operations
	 * @param converter reads the payloads
	 */
	public DefaultDelayedListenerContainerFactory(DelayQueueOperations operations, JobPayloadConverter converter) {
		Assert.notNull(operations, "operations must not be null");
		Assert.notNull(converter, "converter must not be null");
		this.operations = operations;
		this.jobs = new DelayedJobArgumentResolver(operations, converter);
		this.methodFactory = methodFactory(this.jobs, List.of(), null);
	}

	/** A method factory that reads payloads and job parameters with {@code jobs}, then asks the given resolvers. */
	static ListenerMethodFactory methodFactory(DelayedJobArgumentResolver jobs,
			List<HandlerMethodArgumentResolver> resolvers, @Nullable Validator validator) {
		ListenerMethodFactory factory = new ListenerMethodFactory();
		factory.setMessageConverter(jobs);
		List<HandlerMethodArgumentResolver> all = new ArrayList<>(List.of(jobs));
		all.addAll(resolvers);
		factory.setCustomArgumentResolvers(all);
		if (validator != null) {
			factory.setValidator(validator);
		}
		factory.afterPropertiesSet();
		return factory;
	}

	/**
	 * Return the settings every container starts from, such as the concurrency, the
	 * interceptors, the error handler and the thread factory; a listener's own settings
	 * override them. With an error handler set, a listener that sets back-off or
	 * {@code noRetryFor} attributes is refused.
	 * @return the settings
	 */
	public ContainerProperties getContainerProperties() {
		return this.containerProperties;
	}

	/** Set the first retry interval; default 1 s. */
	public void setBackOffInitial(Duration backOffInitial) {
		this.backOff.setInitialInterval(
				JobConstraints.positive("backOffInitial", backOffInitial, JobConstraints.MAX_DELAY).toMillis());
	}

	/** Set the growth of the retry interval per attempt, at least 1; default 2. */
	public void setBackOffMultiplier(double backOffMultiplier) {
		this.backOff.setMultiplier(backOffMultiplier);
	}

	/** Set the longest retry interval; default 5 min. */
	public void setBackOffMax(Duration backOffMax) {
		this.backOff.setMaxInterval(JobConstraints.positive("backOffMax", backOffMax, JobConstraints.MAX_DELAY).toMillis());
	}

	/** Set the random jitter of each retry interval, not negative; default 100 ms. */
	public void setBackOffJitter(Duration backOffJitter) {
		Assert.isTrue(backOffJitter != null && !backOffJitter.isNegative(), "backOffJitter must not be negative");
		this.backOff.setJitter(backOffJitter.toMillis());
	}

	/** Set the recoverer of exhausted jobs, or {@code null} (the default) to dead-letter them in Redis. */
	public void setRecoverer(@Nullable DelayedJobRecoverer recoverer) {
		this.recoverer = recoverer;
	}

	@Override
	public DelayedListenerContainer createContainer(DelayedListenerEndpoint endpoint) {
		Assert.notNull(endpoint, "endpoint must not be null");
		ContainerProperties properties = new ContainerProperties(endpoint.id(), endpoint.topic(),
				this.containerProperties);
		Optional.ofNullable(endpoint.concurrency()).ifPresent(properties::setConcurrency);
		Optional.ofNullable(endpoint.ttr()).ifPresent(properties::setTtr);
		Optional.ofNullable(endpoint.maxAttempts()).ifPresent(properties::setMaxAttempts);
		Optional.ofNullable(endpoint.autoStartup()).ifPresent(properties::setAutoStartup);
		properties.setErrorHandler(errorHandler(endpoint));
		List<DelayedJobInterceptor> interceptors = new ArrayList<>(properties.getInterceptors());
		interceptors.addAll(endpoint.interceptors());
		properties.setInterceptors(interceptors);
		DelayedJobHandler handler = endpoint.createHandler(this.methodFactory, this.jobs);
		if (endpoint.rateLimit() != null) {
			try {
				this.operations.limitRate(endpoint.topic(), endpoint.rateLimit());
			}
			catch (IllegalStateException | UnsupportedOperationException ex) {
				throw new IllegalStateException(endpoint.describe() + " cannot have its rate limit: " + ex.getMessage(),
						ex);
			}
		}
		return new DefaultDelayedListenerContainer(properties, this.operations, handler);
	}

	/** The settings' error handler, or a default one with the listener's settings over the factory's. */
	private DelayedJobErrorHandler errorHandler(DelayedListenerEndpoint endpoint) {
		DelayedJobErrorHandler errorHandler = this.containerProperties.getErrorHandler();
		if (errorHandler != null) {
			List<String> set = Stream.of((endpoint.backOffInitial() != null) ? "backOffInitial" : null,
					(endpoint.backOffMultiplier() != null) ? "backOffMultiplier" : null,
					(endpoint.backOffMax() != null) ? "backOffMax" : null,
					endpoint.noRetryFor().isEmpty() ? null : "noRetryFor")
				.filter(Objects::nonNull)
				.toList();
			if (!set.isEmpty()) {
				throw new InvalidDelayedListenerException(endpoint.describe(),
						"sets " + String.join(", ", set) + ", but its container factory has an error handler ("
								+ errorHandler.getClass().getName() + ") that decides retries on its own",
						"remove " + ((set.size() > 1) ? "these attributes" : "the attribute")
								+ ", or use a container factory without an error handler (containerFactory = \"...\")",
						null);
			}
			return errorHandler;
		}
		ExponentialBackOff backOff = new ExponentialBackOff(
				millis(endpoint.backOffInitial(), this.backOff.getInitialInterval()),
				(endpoint.backOffMultiplier() != null) ? endpoint.backOffMultiplier() : this.backOff.getMultiplier());
		backOff.setMaxInterval(millis(endpoint.backOffMax(), this.backOff.getMaxInterval()));
		backOff.setJitter(Math.min(this.backOff.getJitter(), backOff.getInitialInterval()));
		return new DefaultDelayedJobErrorHandler(backOff, endpoint.noRetryFor(), this.recoverer);
	}

	private static long millis(@Nullable Duration value, long fallback) {
		return (value != null) ? value.toMillis() : fallback;
	}

	/** The method factory of listener methods; it tells which parameters its payload resolver binds. */
	static final class ListenerMethodFactory extends DefaultMessageHandlerMethodFactory {

		private List<HandlerMethodArgumentResolver> resolvers = List.of();

		@Override
		protected List<HandlerMethodArgumentResolver> initArgumentResolvers() {
			this.resolvers = super.initArgumentResolvers();
			return this.resolvers;
		}

		/** Whether a parameter is the payload's: the first resolver that supports it is the payload resolver. */
		boolean isPayload(MethodParameter parameter) {
			return this.resolvers.stream().filter((resolver) -> resolver.supportsParameter(parameter)).findFirst()
				.orElse(null) instanceof PayloadMethodArgumentResolver;
		}

	}

}
