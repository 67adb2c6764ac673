package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.micrometer.DefaultDelayedListenerObservationConvention;
import io.github.delayqueue.micrometer.DelayQueueObservation;
import io.github.delayqueue.micrometer.DelayedJobReceiverContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogAccessor;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.GenericMessage;
import org.springframework.util.CollectionUtils;

/**
 * Calls a container's listener on one reserved job as a message, with its interceptors
 * around; anything thrown goes to the {@link DelayedJobErrorHandler}. Each job is observed
 * and reported to the observer. Thread-safe.
 */
final class JobInvoker {

	private static final LogAccessor logger = new LogAccessor(DelayedListenerContainer.class);

	private static final DelayedJobErrorHandler DEFAULT_ERROR_HANDLER = new DefaultDelayedJobErrorHandler(
			ContainerProperties.defaultBackOff(), List.of(), null);

	private final ContainerProperties settings;

	private final DelayedJobHandler handler;

	private final DefaultDelayedListenerContainer container;

	private final DelayQueueConsumer consumer;

	private final AtomicInteger inFlight = new AtomicInteger();

	JobInvoker(ContainerProperties settings, DelayedJobHandler handler,
			DefaultDelayedListenerContainer container, DelayQueueConsumer consumer) {
		this.settings = settings;
		this.handler = handler;
		this.container = container;
		this.consumer = consumer;
	}

	/** How many calls run now. */
	int inFlight() {
		return this.inFlight.get();
	}

	/** Runs the listener on a job and settles a failure; whether it succeeded. Never throws. */
	boolean invoke(ReservedJob job) {
		this.inFlight.incrementAndGet();
		Observation observation = quietly("start", () -> DelayQueueObservation.LISTENER
			.observation(this.settings.getObservationConvention(), DefaultDelayedListenerObservationConvention.INSTANCE,
					() -> new DelayedJobReceiverContext(this.settings.getId(), job), this.settings.getObservationRegistry())
			.start(), Observation.NOOP);
		ObservationRegistry registry = this.settings.getObservationRegistry();
		Observation.Scope enclosing = registry.getCurrentObservationScope();
		Observation.Scope scope = quietly("open its scope", observation::openScope, Observation.Scope.NOOP);
		try {
			return handle(job, observation);
		}
		catch (Throwable ex) {
			quietly("take its error", () -> observation.error(ex), observation);
			logger.error(ex, "Listener '" + this.settings.getId() + "' could not settle job " + job.id() + " of topic "
					+ job.topic() + " (it is redelivered after its TTR)");
			return false;
		}
		finally {
			// closed quietly too: a scope that throws on close must not turn a success into a failure
			quietly("close its scope", () -> {
				scope.close();
				return scope;
			}, scope);
			// a handler that threw while opening or closing it left the scope current on this thread
			registry.setCurrentObservationScope(enclosing);
			this.inFlight.decrementAndGet();
			quietly("stop", () -> {
				observation.stop();
				return observation;
			}, observation);
		}
	}

	// a tracer's failure must not decide a job's fate
	private <T> T quietly(String what, Supplier<T> action, T otherwise) {
		try {
			return action.get();
		}
		catch (Throwable ex) {
			logger.debug(ex, "Observation of listener '" + this.settings.getId() + "' could not " + what);
			return otherwise;
		}
	}

	/** The message a handler method gets for a job: its payload, its own headers, then the queue's. */
	static Message<byte[]> message(ReservedJob job) {
		Map<String, String> own = job.headers();
		Map<String, Object> headers = CollectionUtils.newHashMap(own.size() + 11);
		headers.putAll(own);
		headers.put(DelayedJobArgumentResolver.JOB_HEADER, job);
		headers.put(DelayQueueHeaders.TOPIC, job.topic());
		headers.put(DelayQueueHeaders.ID, job.id());
		headers.put(DelayQueueHeaders.ATTEMPT, job.attempt());
		headers.put(DelayQueueHeaders.MAX_ATTEMPTS, job.maxAttempts());
		headers.put(DelayQueueHeaders.DUE_AT, job.dueAt());
		headers.put(DelayQueueHeaders.CREATED_AT, job.createdAt());
		headers.put(DelayQueueHeaders.DELIVERED_AT, job.deliveredAt());
		headers.put(DelayQueueHeaders.RESERVED_UNTIL, job.reservedUntil());
		headers.put(DelayQueueHeaders.TTR, job.ttr());
		headers.put(DelayQueueHeaders.RESERVATION_TOKEN, job.token());
		// a time the job lacks is no header, not even one of its own of that name
		headers.values().removeIf(Objects::isNull);
		return new GenericMessage<>(job.payload(), headers);
	}

	private boolean handle(ReservedJob job, Observation observation) {
		long start = System.nanoTime();
		this.container.checkIdle(start, true);
		List<DelayedJobInterceptor> interceptors = this.settings.getInterceptors();
		// the interceptors whose intercept ran: only they hear the rest of the job
		int asked = 0;
		try {
			try {
				while (asked < interceptors.size()) {
					if (!interceptors.get(asked++).intercept(job)) {
						logger.debug(() -> "Listener '" + this.settings.getId() + "' skipped job " + job.id()
								+ " of topic " + job.topic() + ": an interceptor said so");
						observe(job, start, "skipped", null, observation);
						return true;
					}
				}
				this.handler.handle(message(job));
			}
			catch (Throwable ex) {
				hooks(interceptors.subList(0, asked), "failure", job, (interceptor) -> interceptor.failure(job, ex));
				observe(job, start, settle(job, ex).tag(), ex, observation);
				return false;
			}
			hooks(interceptors, "success", job, (interceptor) -> interceptor.success(job));
			observe(job, start, "success", null, observation);
			return true;
		}
		finally {
			hooks(interceptors.subList(0, asked), "afterJob", job, (interceptor) -> interceptor.afterJob(job));
		}
	}

	/** Has the error handler settle a failed job; {@code LEFT} when it returned {@code null} or threw. */
	private DelayedJobErrorHandler.Outcome settle(ReservedJob job, Throwable failure) {
		DelayedJobErrorHandler errorHandler = Objects.requireNonNullElse(this.settings.getErrorHandler(),
				DEFAULT_ERROR_HANDLER);
		try {
			DelayedJobErrorHandler.Outcome outcome = errorHandler.handle(job, failure, this.container, this.consumer);
			return (outcome != null) ? outcome : DelayedJobErrorHandler.Outcome.LEFT;
		}
		catch (Throwable ex) {
			logger.error(ex, "Error handler " + errorHandler.getClass().getName() + " of listener '"
					+ this.settings.getId() + "' threw for job " + job.id() + " of topic " + job.topic()
					+ " (unless it settled the job first, it is delivered again after its TTR)");
			return DelayedJobErrorHandler.Outcome.LEFT;
		}
	}

	/** Runs a hook of each interceptor; what one throws is logged and changes nothing. */
	private void hooks(List<DelayedJobInterceptor> interceptors, String name, ReservedJob job,
			Consumer<DelayedJobInterceptor> hook) {
		for (DelayedJobInterceptor interceptor : interceptors) {
			try {
				hook.accept(interceptor);
			}
			catch (Throwable ex) {
				logger.warn(ex, "Interceptor " + interceptor.getClass().getName() + " of listener '"
						+ this.settings.getId() + "' threw from " + name + " for job " + job.id() + " of topic "
						+ job.topic() + "; the job's outcome stands");
			}
		}
	}

	private void observe(ReservedJob job, long start, String outcome, @Nullable Throwable failure,
			Observation observation) {
		Throwable cause = (failure != null) ? DefaultDelayedJobErrorHandler.unwrap(failure) : null;
		if (observation.getContext() instanceof DelayedJobReceiverContext context) {
			context.setOutcome(outcome);
		}
		if (cause != null) {
			quietly("take its error", () -> observation.error(cause), observation);
		}
		if (this.settings.isOutcomeEvents()) {
			this.container.publish(new DelayedJobOutcomeEvent(this.container, job, outcome, cause));
		}
		DelayQueueObserver observer = this.settings.getObserver();
		if (observer != null) {
			try {
				observer.handled(job.topic(), Duration.ofNanos(System.nanoTime() - start), outcome, cause);
			}
			catch (Throwable ex) {
				logger.debug(ex, "Observer of listener '" + this.settings.getId() + "' failed");
			}
		}
	}

}
