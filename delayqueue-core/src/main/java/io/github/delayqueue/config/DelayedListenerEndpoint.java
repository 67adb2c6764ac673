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

	/** The id of the endpoint's container, unique in the registry. */
	String id();

	/** The topic whose jobs the endpoint handles. */
	String topic();

	/** How the endpoint is named in messages. */
	String describe();

	/**
	 * Make the listener a container calls for each job.
	 * @param methodFactory resolves the arguments of a listener method from the job's message
	 * @param jobs makes a {@link io.github.delayqueue.core.DelayedJob} of the job's message
	 * @return the handler
	 * @throws InvalidDelayedListenerException when the endpoint cannot be run
	 */
	DelayedJobHandler createHandler(MessageHandlerMethodFactory methodFactory, DelayedJobArgumentResolver jobs);

	/** Handlers at once, or {@code null} for the factory's. */
	default @Nullable Integer concurrency() {
		return null;
	}

	/** The reservation's time-to-run, or {@code null} for each job's own. */
	default @Nullable Duration ttr() {
		return null;
	}

	/** Attempts per job, stored with each job the container reserves, or {@code null} for each job's own. */
	default @Nullable Integer maxAttempts() {
		return null;
	}

	/** The topic's rate limit, set in the queue when the container is created, or {@code null} to leave it. */
	default @Nullable RateLimit rateLimit() {
		return null;
	}

	/** Whether the container starts with the context, or {@code null} for the factory's setting. */
	default @Nullable Boolean autoStartup() {
		return null;
	}

	/** The default error handler's first retry interval, or {@code null} for the factory's. */
	default @Nullable Duration backOffInitial() {
		return null;
	}

	/** The default error handler's growth of the retry interval, or {@code null} for the factory's. */
	default @Nullable Double backOffMultiplier() {
		return null;
	}

	/** The default error handler's longest retry interval, or {@code null} for the factory's. */
	default @Nullable Duration backOffMax() {
		return null;
	}

	/** Exceptions the default error handler never retries, beside the factory's. */
	default List<Class<? extends Throwable>> noRetryFor() {
		return List.of();
	}

	/** The bean name of the container factory the registrar uses, or {@code null} for its default. */
	default @Nullable String containerFactory() {
		return null;
	}

	/** Whether the endpoint must be the only one of its topic in the registry; {@code false} by default. */
	default boolean exclusive() {
		return false;
	}

	/** The endpoint's own interceptors, run after the container factory's. */
	default List<DelayedJobInterceptor> interceptors() {
		return List.of();
	}

}
