package io.github.delayqueue.listener;

import java.time.Duration;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.messaging.MessagingException;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Decides and records in Redis what becomes of a job whose listener threw, as Spring
 * Kafka's {@code DefaultErrorHandler} does for a record. A job with attempts left (by its
 * {@link ReservedJob#maxAttempts()}: the listener's limit, when set, was stored with it at
 * reserve) and a retryable failure is failed with the interval that the listener's
 * {@link BackOff} gives its attempt: DELAYED again, or DEAD when Redis finds its attempts
 * used up. A payload that cannot be read, a parameter that cannot be bound and the
 * listener's {@code noRetryFor} types, anywhere in the cause chain, are not retryable. A job
 * not retried, or whose back-off stops, goes to the {@link DelayedJobRecoverer} and is
 * finished; without a recoverer, or when it throws, the job is dead-lettered in Redis.
 * Thread-safe.
 */
final class FailedJobHandler {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	private final DelayedListenerContainer.Settings settings;

	private final DelayQueueOperations operations;

	/**
	 * Creates a handler.
	 * @param settings the container's settings: back-off, {@code noRetryFor}, recoverer
	 * @param operations the queue it settles with
	 */
	FailedJobHandler(DelayedListenerContainer.Settings settings, DelayQueueOperations operations) {
		this.settings = settings;
		this.operations = operations;
	}

	/**
	 * Retries a failed job after its back-off, or recovers it.
	 * @param job the job, still reserved by this consumer
	 * @param failure what the listener threw
	 * @return the outcome: {@code retry}, {@code recovered}, {@code dead} or {@code stale}
	 * (the reservation was lost: nothing changed)
	 */
	String handle(ReservedJob job, Throwable failure) {
		long backOff = (job.attempt() < job.maxAttempts() && isRetryable(failure)) ? backOff(job.attempt()) : -1;
		if (backOff < 0) {
			return recover(job, failure);
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Listener '" + this.settings.id() + "' failed job " + job.id() + " (attempt " + job.attempt()
					+ "); retrying in " + backOff + " ms", failure);
		}
		return outcome(job, failure, this.operations.fail(job, Duration.ofMillis(backOff), describe(failure)));
	}

	/**
	 * Hands an exhausted job to the recoverer, or dead-letters it: also when the recoverer
	 * throws, an {@link Error} included.
	 * @return the outcome: {@code recovered}, {@code dead} or {@code stale}
	 */
	private String recover(ReservedJob job, Throwable failure) {
		DelayedJobRecoverer recoverer = this.settings.recoverer();
		if (recoverer != null && recovered(recoverer, job, failure)) {
			if (!this.operations.finish(job)) {
				logger.warn("Listener '" + this.settings.id() + "' recovered job " + job.id() + " of topic "
						+ job.topic() + " after its reservation was lost (TTR ran out, or it was cancelled or replaced)");
			}
			return "recovered";
		}
		return outcome(job, failure, this.operations.kill(job, describe(failure)));
	}

	private boolean recovered(DelayedJobRecoverer recoverer, ReservedJob job, Throwable failure) {
		try {
			recoverer.recover(job, failure);
			return true;
		}
		catch (Throwable ex) {
			logger.warn("Recoverer of listener '" + this.settings.id() + "' failed for job " + job.id()
					+ "; dead-lettering it in Redis", ex);
			return false;
		}
	}

	/**
	 * The outcome of a fail or kill in Redis, logged when the job is DEAD.
	 */
	private static String outcome(ReservedJob job, Throwable failure, FailResult result) {
		return switch (result) {
			case RETRYING -> "retry";
			case DEAD -> {
				logger.warn("Job " + job.id() + " of topic " + job.topic() + " is DEAD after attempt " + job.attempt()
						+ ": " + describe(failure));
				yield "dead";
			}
			case STALE -> "stale";
		};
	}

	/**
	 * The back-off before the next attempt: the interval the listener's back-off gives after
	 * {@code attempt} failures.
	 * @return the interval in milliseconds, or {@code -1} when the back-off stops
	 */
	private long backOff(int attempt) {
		BackOffExecution execution = this.settings.backOff().start();
		long interval = 0;
		for (int i = 0; i < attempt; i++) {
			interval = execution.nextBackOff();
			if (interval == BackOffExecution.STOP) {
				return -1;
			}
		}
		return Math.max(0, interval);
	}

	private boolean isRetryable(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			// the payload cannot be read, or a parameter cannot be bound: the same on every attempt
			if (cause instanceof MessageConversionException || cause instanceof MethodArgumentResolutionException) {
				return false;
			}
			for (Class<? extends Throwable> type : this.settings.noRetryFor()) {
				if (type.isInstance(cause)) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * The handler's own exception as recorded with the job: class name and message.
	 */
	private static String describe(Throwable failure) {
		Throwable root = unwrap(failure);
		return root.getClass().getName() + ": " + root.getMessage();
	}

	/**
	 * The handler's own exception, without spring-messaging's wrappers.
	 */
	static Throwable unwrap(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root && (root instanceof MessagingException)) {
			root = root.getCause();
		}
		return root;
	}

}
