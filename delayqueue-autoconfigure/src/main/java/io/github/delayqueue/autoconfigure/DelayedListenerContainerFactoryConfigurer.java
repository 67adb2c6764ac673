package io.github.delayqueue.autoconfigure;

import java.util.List;

import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.listener.ContainerProperties;
import io.github.delayqueue.listener.DelayedJobErrorHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import io.github.delayqueue.listener.DelayedJobRecoverer;
import io.github.delayqueue.micrometer.DelayedListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.task.VirtualThreadTaskExecutor;

import static io.github.delayqueue.autoconfigure.DelayQueuePropertiesRules.property;

/**
 * Configures a {@link DefaultDelayedListenerContainerFactory} as the auto-configured one:
 * from {@code delayqueue.listener.*}, with the application's {@link DelayedJobErrorHandler}
 * or {@link DelayedJobRecoverer}, {@link DelayedJobInterceptor} and {@link DelayQueueObserver}
 * beans, and virtual threads when enabled. Inject it to make a second factory from the same
 * settings:
 *
 * <pre class="code">
 * DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(operations, converter);
 * configurer.configure(factory);
 * factory.getContainerProperties().setShutdownTimeout(Duration.ofMinutes(2));
 * </pre>
 */
public final class DelayedListenerContainerFactoryConfigurer {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainerFactoryConfigurer.class);

	private final DelayQueueProperties.Listener properties;

	private final @Nullable DelayedJobRecoverer recoverer;

	private final @Nullable DelayedJobErrorHandler errorHandler;

	private final List<DelayedJobInterceptor> interceptors;

	private final List<DelayQueueObserver> observers;

	private final boolean virtualThreads;

	private final ApplicationEventPublisher eventPublisher;

	private final @Nullable ObservationRegistry observationRegistry;

	private final @Nullable DelayedListenerObservationConvention observationConvention;

	DelayedListenerContainerFactoryConfigurer(DelayQueueProperties.Listener properties,
			@Nullable DelayedJobRecoverer recoverer, @Nullable DelayedJobErrorHandler errorHandler,
			List<DelayedJobInterceptor> interceptors, List<DelayQueueObserver> observers, boolean virtualThreads,
			ApplicationEventPublisher eventPublisher, @Nullable ObservationRegistry observationRegistry,
			@Nullable DelayedListenerObservationConvention observationConvention) {
		this.observationRegistry = observationRegistry;
		this.observationConvention = observationConvention;
		this.properties = properties;
		this.recoverer = recoverer;
		this.errorHandler = errorHandler;
		this.interceptors = List.copyOf(interceptors);
		this.observers = List.copyOf(observers);
		this.virtualThreads = virtualThreads;
		this.eventPublisher = eventPublisher;
		if (errorHandler != null && recoverer != null) {
			logger.warn("Both a DelayedJobErrorHandler bean (" + errorHandler.getClass().getName()
					+ ") and a DelayedJobRecoverer bean (" + recoverer.getClass().getName()
					+ ") are defined: the error handler settles failed jobs and the recoverer is not used"
					+ " (give the recoverer to a DefaultDelayedJobErrorHandler to use both)");
		}
	}

	/**
	 * Applies the settings to a factory; what is set on it afterwards wins. With a
	 * {@link DelayedJobErrorHandler} bean the factory's back-off, {@code noRetryFor} and
	 * recoverer are not used (the error handler decides);
	 * {@code getContainerProperties().setErrorHandler(null)} after {@code configure} brings back
	 * the default handler with them.
	 * @param factory the factory
	 */
	public void configure(DefaultDelayedListenerContainerFactory factory) {
		PropertyMapper map = PropertyMapper.get();
		ContainerProperties container = factory.getContainerProperties();
		DelayQueueProperties.Listener listener = this.properties;
		DelayQueueProperties.BackOff backOff = listener.backOff();
		map.from(listener::concurrency).to(property("delayqueue.listener.concurrency", container::setConcurrency));
		map.from(listener::autoStartup).to(container::setAutoStartup);
		map.from(listener::shutdownTimeout)
			.to(property("delayqueue.listener.shutdown-timeout", container::setShutdownTimeout));
		map.from(listener::idleEventInterval)
			.to(property("delayqueue.listener.idle-event-interval", container::setIdleEventInterval));
		map.from(listener.outcomeEvents() || listener.outcomeStream()).to(container::setOutcomeEvents);
		map.from(backOff::initialInterval)
			.to(property("delayqueue.listener.back-off.initial-interval", factory::setBackOffInitial));
		map.from(backOff::multiplier)
			.to(property("delayqueue.listener.back-off.multiplier", factory::setBackOffMultiplier));
		map.from(backOff::maxInterval)
			.to(property("delayqueue.listener.back-off.max-interval", factory::setBackOffMax));
		map.from(backOff::jitter).to(property("delayqueue.listener.back-off.jitter", factory::setBackOffJitter));
		map.from(this.recoverer).to(factory::setRecoverer);
		map.from(this.errorHandler).to(container::setErrorHandler);
		map.from(this.interceptors).to(container::setInterceptors);
		map.from(this.eventPublisher).to(container::setEventPublisher);
		map.from(this.observationRegistry).when((registry) -> listener.observationEnabled())
			.to(container::setObservationRegistry);
		map.from(this.observationConvention).to(container::setObservationConvention);
		map.from(this.observers).whenNot(List::isEmpty).as(DelayQueueObserver::composite).to(container::setObserver);
		if (this.virtualThreads) {
			container.setThreadFactory(new VirtualThreadTaskExecutor("delayqueue-").getVirtualThreadFactory());
		}
	}

}
