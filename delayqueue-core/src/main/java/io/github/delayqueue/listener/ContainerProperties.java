package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadFactory;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.micrometer.DefaultDelayedListenerObservationConvention;
import io.github.delayqueue.micrometer.DelayQueueObservation;
import io.github.delayqueue.micrometer.DelayedListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The settings of a {@link DefaultDelayedListenerContainer}, each checked when it is set; set
 * them before the container starts.
 */
public class ContainerProperties {

	private final String id;

	private final String topic;

	private int concurrency = 1;

	private @Nullable Duration ttr;

	private @Nullable Integer maxAttempts;

	private @Nullable DelayedJobErrorHandler errorHandler;

	private Duration shutdownTimeout = Duration.ofSeconds(20);

	private @Nullable ThreadFactory threadFactory;

	private boolean autoStartup = true;

	private @Nullable DelayQueueObserver observer;

	private List<DelayedJobInterceptor> interceptors = List.of();

	private @Nullable ApplicationEventPublisher eventPublisher;

	private @Nullable Duration idleEventInterval;

	private boolean outcomeEvents;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable DelayedListenerObservationConvention observationConvention;

	/**
	 * Create the settings of a container.
	 * @param id the container id, unique in its registry
	 * @param topic the topic it consumes
	 */
	public ContainerProperties(String id, String topic) {
		Assert.hasText(id, "id must not be empty");
		Assert.hasText(topic, "topic must not be empty");
		this.id = id;
		this.topic = topic;
	}

	/**
	 * Create the settings of a container from a template's.
	 * @param id the container id, unique in its registry
	 * @param topic the topic it consumes
	 * @param template the settings copied
	 */
	public ContainerProperties(String id, String topic, ContainerProperties template) {
		this(id, topic);
		BeanUtils.copyProperties(template, this, "threadFactory");
		this.threadFactory = template.threadFactory;
	}

	/**
	 * Return the back-off of the default error handler: from 1 s, doubling up to 5 min, with
	 * 100 ms jitter.
	 * @return a new back-off
	 */
	public static ExponentialBackOff defaultBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(1000, 2.0);
		backOff.setMaxInterval(Duration.ofMinutes(5).toMillis());
		backOff.setJitter(100);
		return backOff;
	}

	/** Return the container id. */
	public String getId() {
		return this.id;
	}

	/** Return the topic the container consumes. */
	public String getTopic() {
		return this.topic;
	}

	public int getConcurrency() {
		return this.concurrency;
	}

	/** Set how many handlers run at once, 1 to 10000; default 1. */
	public void setConcurrency(int concurrency) {
		this.concurrency = JobConstraints.concurrency(concurrency);
	}

	public @Nullable Duration getTtr() {
		return this.ttr;
	}

	/** Set the TTR of the reservations, or {@code null} (the default) for each job's own. */
	public void setTtr(@Nullable Duration ttr) {
		this.ttr = (ttr != null) ? JobConstraints.ttr(ttr) : null;
	}

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	/** Set the attempts limit stored with each job reserved, or {@code null} (the default) for each job's own. */
	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = (maxAttempts != null) ? JobConstraints.maxAttempts(maxAttempts) : null;
	}

	public @Nullable DelayedJobErrorHandler getErrorHandler() {
		return this.errorHandler;
	}

	/**
	 * Set the handler of jobs whose listener threw, or {@code null} (the default) for a
	 * {@link DefaultDelayedJobErrorHandler} with the {@link #defaultBackOff()} (made by a container
	 * factory: its back-off and recoverer, the listener's settings over them).
	 */
	public void setErrorHandler(@Nullable DelayedJobErrorHandler errorHandler) {
		this.errorHandler = errorHandler;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	/** Set how long stopping waits for running handlers, not negative; default 20 s. */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		Assert.isTrue(shutdownTimeout != null && !shutdownTimeout.isNegative(), "shutdownTimeout must not be negative");
		this.shutdownTimeout = shutdownTimeout;
	}

	/** Return the factory of the consumer and handler threads: the one set, or a new one named after the container. */
	public ThreadFactory getThreadFactory() {
		return (this.threadFactory != null) ? this.threadFactory
				: new CustomizableThreadFactory("delayqueue-" + this.id + "-");
	}

	/**
	 * Set the factory of the consumer and handler threads, or {@code null} (the default) for
	 * threads named after the container.
	 */
	public void setThreadFactory(@Nullable ThreadFactory threadFactory) {
		this.threadFactory = threadFactory;
	}

	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/** Set whether the registry starts the container with the context; default true. */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	public @Nullable DelayQueueObserver getObserver() {
		return this.observer;
	}

	/** Set the observer of each handler call, or {@code null} (the default) for none. */
	public void setObserver(@Nullable DelayQueueObserver observer) {
		this.observer = observer;
	}

	public List<DelayedJobInterceptor> getInterceptors() {
		return this.interceptors;
	}

	/** Set the interceptors run around each job, in this order; default none. */
	public void setInterceptors(List<DelayedJobInterceptor> interceptors) {
		Assert.noNullElements(interceptors, "interceptors must not contain null");
		this.interceptors = List.copyOf(interceptors);
	}

	public @Nullable ApplicationEventPublisher getEventPublisher() {
		return this.eventPublisher;
	}

	/**
	 * Set the publisher of the container's {@link DelayedListenerContainerEvent}s, or {@code null}
	 * (the default) for none.
	 */
	public void setEventPublisher(@Nullable ApplicationEventPublisher eventPublisher) {
		this.eventPublisher = eventPublisher;
	}

	public @Nullable Duration getIdleEventInterval() {
		return this.idleEventInterval;
	}

	/**
	 * Set after how long without a job a {@link DelayedListenerIdleEvent} is published, positive,
	 * or {@code null} (the default) for never.
	 */
	public void setIdleEventInterval(@Nullable Duration idleEventInterval) {
		Assert.isTrue(idleEventInterval == null || (!idleEventInterval.isNegative() && !idleEventInterval.isZero()),
				"idleEventInterval must be positive");
		this.idleEventInterval = idleEventInterval;
	}

	public boolean isOutcomeEvents() {
		return this.outcomeEvents;
	}

	/** Set whether a {@link DelayedJobOutcomeEvent} is published for each job; default off. */
	public void setOutcomeEvents(boolean outcomeEvents) {
		this.outcomeEvents = outcomeEvents;
	}

	public ObservationRegistry getObservationRegistry() {
		return this.observationRegistry;
	}

	/**
	 * Set where each job's {@link DelayQueueObservation#LISTENER} observation goes, or {@code null}
	 * (the default) for none.
	 */
	public void setObservationRegistry(@Nullable ObservationRegistry observationRegistry) {
		this.observationRegistry = (observationRegistry != null) ? observationRegistry : ObservationRegistry.NOOP;
	}

	public @Nullable DelayedListenerObservationConvention getObservationConvention() {
		return this.observationConvention;
	}

	/**
	 * Set the observations' convention, or {@code null} (the default) for
	 * {@link DefaultDelayedListenerObservationConvention}.
	 */
	public void setObservationConvention(@Nullable DelayedListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

}
