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
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.GenericMessage;

/**
 * Calls a container's listener method on one reserved job. The job becomes a message: its
 * payload, with the job and its TTR as headers for {@link DelayedJobArgumentResolver}. A
 * return is a success, finished later with its batch; anything thrown, an {@link Error}
 * included, goes to the container's {@link DelayedJobErrorHandler}, which settles it in
 * Redis. The container's {@link DelayedJobInterceptor}s run around the call (and may skip it:
 * the job is then finished as a success is). The {@link DelayQueueObserver}, if any, hears
 * each outcome, and with an observation registry in the settings each job is a
 * {@link DelayQueueObservation#LISTENER} observation, in scope while the listener runs.
 * Counts the calls in flight. Thread-safe.
 */
final class JobInvoker {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	private final ContainerProperties settings;

	private final DelayedJobHandler handler;

	private final DefaultDelayedListenerContainer container;

	private final DelayQueueConsumer consumer;

	private final AtomicInteger inFlight = new AtomicInteger();

	/**
	 * Creates an invoker.
	 * @param settings the container's settings
	 * @param handler the endpoint's listener
	 * @param container the container, for the error handler
	 * @param consumer the queue the error handler settles failed jobs with
	 */
	JobInvoker(ContainerProperties settings, DelayedJobHandler handler,
			DefaultDelayedListenerContainer container, DelayQueueConsumer consumer) {
		this.settings = settings;
		this.handler = handler;
		this.container = container;
		this.consumer = consumer;
	}

	/**
	 * How many calls run now.
	 * @return the count
	 */
	int inFlight() {
		return this.inFlight.get();
	}

	/**
	 * Runs the listener method on a job and settles a failure in Redis; never throws.
	 * @param job the job
	 * @return {@code true} when it succeeded and is yet to be finished
	 */
	boolean invoke(ReservedJob job) {
		this.inFlight.incrementAndGet();
		Observation observation = startObservation(job);
		DelayedJobReceiverContext context = (observation.getContext() instanceof DelayedJobReceiverContext receiver)
				? receiver : null;
		try (Observation.Scope scope = openScope(observation)) {
			return handle(job, observation, context);
		}
		catch (Throwable ex) {
			error(observation, ex);
			logger.error("Listener '" + this.settings.getId() + "' could not settle job " + job.id() + " of topic "
					+ job.topic() + " (it is redelivered after its TTR)", ex);
			return false;
		}
		finally {
			stop(observation);
			this.inFlight.decrementAndGet();
		}
	}

	/**
	 * Starts the job's observation, when the container has a registry.
	 * @return the observation; {@link Observation#NOOP} when there is none or it could not
	 * start (a tracer's failure must not decide a job's fate)
	 */
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

	private void error(Observation observation, Throwable failure) {
		try {
			observation.error(failure);
		}
		catch (Throwable ex) {
			logger.debug("Observation of listener '" + this.settings.getId() + "' could not take its error", ex);
		}
	}

	private void stop(Observation observation) {
		try {
			observation.stop();
		}
		catch (Throwable ex) {
			// a tracer's failure must not decide a job's fate
			logger.debug("Observation of listener '" + this.settings.getId() + "' failed", ex);
		}
	}

	/**
	 * The message a handler method gets for a job: its payload, the job's own headers, then
	 * the queue's (those a job lacks left out); {@link MessageHeaders} adds the id and
	 * timestamp. A job's own headers never take the queue's names ({@code JobConstraints.headers}).
	 */
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

	/** Sets a header that a job may lack: without a value there is no header of that name. */
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

	/**
	 * Has the error handler settle a failed job. What it throws, an {@link Error} included, is
	 * logged; the job is then as the handler left it.
	 * @return the handler's outcome; {@code LEFT} when it returned {@code null} or threw
	 */
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

	/**
	 * Runs an interceptor's hook after the job's fate is decided: what it throws, an
	 * {@link Error} included, is logged and changes nothing.
	 */
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

	/**
	 * Calls the listener method.
	 * @return what it threw, or {@code null} when it returned: an {@link Error} (an
	 * {@link AssertionError}, a {@link StackOverflowError}, a class missing at run time) is a
	 * failure of the job like any exception
	 */
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
				error(observation, cause);
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
				// metrics must not decide a job's fate (an Error here would leave a success
				// unfinished, to run again after its TTR)
				logger.debug("Observer of listener '" + this.settings.getId() + "' failed", ex);
			}
		}
	}

}
