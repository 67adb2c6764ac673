package io.github.delayqueue.config;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * What a listener container runs: a topic, the listener called for each of its jobs, and the
 * listener's own settings; {@code null} settings take the container factory's defaults.
 */
public interface DelayedListenerEndpoint {

	/**
	 * Return the id of the endpoint's container, unique in the registry.
	 * @return the id
	 */
	String id();

	/**
	 * Return the topic whose jobs the endpoint handles.
	 * @return the topic
	 */
	String topic();

	/**
	 * Return how the endpoint is named in messages.
	 * @return the description
	 */
	String describe();

	/**
	 * Make the listener a container calls for each job.
	 * @param methodFactory resolves the arguments of a listener method from the job's message
	 * @param jobs makes a {@link io.github.delayqueue.core.DelayedJob} of the job's message
	 * @return the handler
	 * @throws InvalidDelayedListenerException when the endpoint cannot be run
	 */
	DelayedJobHandler createHandler(MessageHandlerMethodFactory methodFactory, DelayedJobArgumentResolver jobs);

	/**
	 * Handlers at once.
	 * @return the concurrency, or {@code null} for the factory's
	 */
	default @Nullable Integer concurrency() {
		return null;
	}

	/**
	 * The reservation's time-to-run.
	 * @return the TTR, or {@code null} for each job's own
	 */
	default @Nullable Duration ttr() {
		return null;
	}

	/**
	 * Attempts per job, stored with each job the container reserves.
	 * @return the attempts, or {@code null} for each job's own
	 */
	default @Nullable Integer maxAttempts() {
		return null;
	}

	/**
	 * The topic's rate limit, set in the queue when the container is created.
	 * @return the limit, or {@code null} for none (the topic keeps one set elsewhere)
	 */
	default @Nullable RateLimit rateLimit() {
		return null;
	}

	/**
	 * Whether the container starts with the context.
	 * @return whether it does, or {@code null} for the factory's setting
	 */
	default @Nullable Boolean autoStartup() {
		return null;
	}

	/**
	 * The first retry interval of the default error handler.
	 * @return the interval, or {@code null} for the factory's
	 */
	default @Nullable Duration backOffInitial() {
		return null;
	}

	/**
	 * The growth of the retry interval of the default error handler.
	 * @return the factor, or {@code null} for the factory's
	 */
	default @Nullable Double backOffMultiplier() {
		return null;
	}

	/**
	 * The longest retry interval of the default error handler.
	 * @return the interval, or {@code null} for the factory's
	 */
	default @Nullable Duration backOffMax() {
		return null;
	}

	/**
	 * Exceptions the default error handler never retries, beside the factory's.
	 * @return the exception types
	 */
	default List<Class<? extends Throwable>> noRetryFor() {
		return List.of();
	}

	/**
	 * The bean name of the container factory the registrar uses for this endpoint.
	 * @return the name, or {@code null} for the registrar's default factory
	 */
	default @Nullable String containerFactory() {
		return null;
	}

	/**
	 * Return whether the endpoint must be the only one of its topic in the registry.
	 * @return whether it is, {@code false} by default
	 */
	default boolean exclusive() {
		return false;
	}

	/**
	 * The endpoint's own interceptors, run after the container factory's.
	 * @return the interceptors
	 */
	default List<DelayedJobInterceptor> interceptors() {
		return List.of();
	}

}
