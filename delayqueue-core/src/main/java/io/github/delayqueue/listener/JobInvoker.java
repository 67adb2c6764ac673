package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.micrometer.DefaultDelayedListenerObservationConvention;
import io.github.delayqueue.micrometer.DelayQueueObservation;
import io.github.delayqueue.micrometer.DelayedJobReceiverContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.messaging.Message;
import org.springframework.messaging.support.GenericMessage;

/**
 * Calls a container's listener on one reserved job as a message, with its interceptors
 * around; anything thrown goes to the {@link DelayedJobErrorHandler}. Each job is observed
 * and reported to the observer. Thread-safe.
 */
final class JobInvoker {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

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
		Observation observation = startObservation(job);
		DelayedJobReceiverContext context = (observation.getContext() instanceof DelayedJobReceiverContext receiver)
				? receiver : null;
		try (Observation.Scope scope = openScope(observation)) {
			return handle(job, observation, context);
		}
		catch (Throwable ex) {
			quietly("take its error", () -> observation.error(ex));
			logger.error("Listener '" + this.settings.getId() + "' could not settle job " + job.id() + " of topic "
					+ job.topic() + " (it is redelivered after its TTR)", ex);
			return false;
		}
		finally {
			quietly("stop", observation::stop);
			this.inFlight.decrementAndGet();
		}
	}

	/** Starts the job's observation; {@link Observation#NOOP} without a registry or on failure. */
	private Observation startObservation(ReservedJob job) {
		ObservationRegistry registry = this.settings.getObservationRegistry();
		if (registry == null || registry.isNoop()) {
			return Observation.NOOP;
		}
		try {
			DelayedJobReceiverContext context = new DelayedJobReceiverContext(this.settings.getId(), job);
			return DelayQueueObservation.LISTENER
				.observation(this.settings.getObservationConvention(), DefaultDelayedListenerObservationConvention.INSTANCE,
						() -> context, registry)
				.start();
		}
		catch (Throwable ex) {
			logger.debug("Observation of listener '" + this.settings.getId() + "' could not start", ex);
			return Observation.NOOP;
		}
	}

	private Observation.Scope openScope(Observation observation) {
		try {
			return observation.openScope();
		}
		catch (Throwable ex) {
			logger.debug("Observation of listener '" + this.settings.getId() + "' could not open its scope", ex);
			return Observation.Scope.NOOP;
		}
	}

	// a tracer's failure must not decide a job's fate
	private void quietly(String what, Runnable action) {
		try {
			action.run();
		}
		catch (Throwable ex) {
			logger.debug("Observation of listener '" + this.settings.getId() + "' could not " + what, ex);
		}
	}

	/** The message a handler method gets for a job: its payload, its own headers, then the queue's. */
	static Message<byte[]> message(ReservedJob job) {
		Map<String, String> own = job.headers();
		Map<String, Object> headers = new HashMap<>((int) ((own.size() + 11) / 0.75f) + 1);
		headers.putAll(own);
		headers.put(DelayedJobArgumentResolver.JOB_HEADER, job);
		headers.put(DelayQueueHeaders.TOPIC, job.topic());
		headers.put(DelayQueueHeaders.ID, job.id());
		headers.put(DelayQueueHeaders.ATTEMPT, job.attempt());
		headers.put(DelayQueueHeaders.MAX_ATTEMPTS, job.maxAttempts());
		putUnlessNull(headers, DelayQueueHeaders.DUE_AT, job.dueAt());
		putUnlessNull(headers, DelayQueueHeaders.CREATED_AT, job.createdAt());
		putUnlessNull(headers, DelayQueueHeaders.DELIVERED_AT, job.deliveredAt());
		putUnlessNull(headers, DelayQueueHeaders.RESERVED_UNTIL, job.reservedUntil());
		putUnlessNull(headers, DelayQueueHeaders.TTR, job.ttr());
		headers.put(DelayQueueHeaders.RESERVATION_TOKEN, job.token());
		return new GenericMessage<>(job.payload(), headers);
	}

	/** Sets a header that a job may lack; without a value there is none of that name. */
	private static void putUnlessNull(Map<String, Object> headers, String name, @Nullable Object value) {
		if (value != null) {
			headers.put(name, value);
		}
		else {
			headers.remove(name);
		}
	}

	private boolean handle(ReservedJob job, Observation observation, @Nullable DelayedJobReceiverContext context) {
		Message<byte[]> message = message(job);
		long start = System.nanoTime();
		this.container.jobStarted(start);
		List<DelayedJobInterceptor> interceptors = this.settings.getInterceptors();
		// the interceptors whose intercept ran: only they hear the rest of the job
		List<DelayedJobInterceptor> asked = interceptors;
		try {
			Throwable failure = null;
			int ran = 0;
			try {
				while (ran < interceptors.size()) {
					if (!interceptors.get(ran++).intercept(job)) {
						asked = interceptors.subList(0, ran);
						if (logger.isDebugEnabled()) {
							logger.debug("Listener '" + this.settings.getId() + "' skipped job " + job.id() + " of topic "
									+ job.topic() + ": an interceptor said so");
						}
						observe(job, start, "skipped", null, observation, context);
						return true;
					}
				}
			}
			catch (Throwable ex) {
				asked = interceptors.subList(0, ran);
				failure = ex;
			}
			if (failure == null) {
				failure = call(message);
			}
			if (failure == null) {
				for (DelayedJobInterceptor interceptor : interceptors) {
					hook(interceptor, "success", job, () -> interceptor.success(job));
				}
				observe(job, start, "success", null, observation, context);
				return true;
			}
			Throwable thrown = failure;
			for (DelayedJobInterceptor interceptor : asked) {
				hook(interceptor, "failure", job, () -> interceptor.failure(job, thrown));
			}
			observe(job, start, settle(job, failure).tag(), failure, observation, context);
			return false;
		}
		finally {
			for (DelayedJobInterceptor interceptor : asked) {
				hook(interceptor, "afterJob", job, () -> interceptor.afterJob(job));
			}
		}
	}

	/** Has the error handler settle a failed job; {@code LEFT} when it returned {@code null} or threw. */
	private DelayedJobErrorHandler.Outcome settle(ReservedJob job, Throwable failure) {
		DelayedJobErrorHandler errorHandler = this.settings.getErrorHandler();
		try {
			DelayedJobErrorHandler.Outcome outcome = errorHandler.handle(job, failure, this.container, this.consumer);
			return (outcome != null) ? outcome : DelayedJobErrorHandler.Outcome.LEFT;
		}
		catch (Throwable ex) {
			logger.error("Error handler " + errorHandler.getClass().getName() + " of listener '" + this.settings.getId()
					+ "' threw for job " + job.id() + " of topic " + job.topic()
					+ " (unless it settled the job first, it is delivered again after its TTR)", ex);
			return DelayedJobErrorHandler.Outcome.LEFT;
		}
	}

	/** Runs an interceptor's hook; what it throws is logged and changes nothing. */
	private void hook(DelayedJobInterceptor interceptor, String name, ReservedJob job, Runnable hook) {
		try {
			hook.run();
		}
		catch (Throwable ex) {
			logger.warn("Interceptor " + interceptor.getClass().getName() + " of listener '" + this.settings.getId()
					+ "' threw from " + name + " for job " + job.id() + " of topic " + job.topic()
					+ "; the job's outcome stands", ex);
		}
	}

	/** Calls the listener; what it threw (an {@link Error} too), or {@code null}. */
	private @Nullable Throwable call(Message<byte[]> message) {
		try {
			this.handler.handle(message);
			return null;
		}
		catch (Throwable ex) {
			return ex;
		}
	}

	private void observe(ReservedJob job, long start, String outcome, @Nullable Throwable failure,
			Observation observation, @Nullable DelayedJobReceiverContext context) {
		Duration duration = Duration.ofNanos(System.nanoTime() - start);
		Throwable cause = (failure != null) ? DefaultDelayedJobErrorHandler.unwrap(failure) : null;
		if (context != null) {
			context.setOutcome(outcome);
			if (cause != null) {
				quietly("take its error", () -> observation.error(cause));
			}
		}
		DelayQueueObserver observer = this.settings.getObserver();
		if (this.settings.isOutcomeEvents()) {
			this.container.publish(new DelayedJobOutcomeEvent(this.container, job, outcome, cause));
		}
		if (observer != null) {
			try {
				observer.handled(job.topic(), duration, outcome, cause);
			}
			catch (Throwable ex) {
				logger.debug("Observer of listener '" + this.settings.getId() + "' failed", ex);
			}
		}
	}

}
