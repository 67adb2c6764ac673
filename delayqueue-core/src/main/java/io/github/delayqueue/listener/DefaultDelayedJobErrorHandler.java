package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogAccessor;
import org.springframework.messaging.MessagingException;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.util.Assert;
import org.springframework.util.ExceptionTypeFilter;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The default {@link DelayedJobErrorHandler}: a job with attempts left and a retryable failure
 * is retried after the {@link BackOff}'s interval; otherwise it goes to the
 * {@link DelayedJobRecoverer} and is finished, or, without one or when it throws, is DEAD.
 * Unreadable payloads, unbindable parameters and {@code noRetryFor} types are not retryable.
 */
public class DefaultDelayedJobErrorHandler implements DelayedJobErrorHandler {

	private static final LogAccessor logger = new LogAccessor(DelayedListenerContainer.class);

	private final BackOff backOff;

	// matches the failures that may be retried
	private final ExceptionTypeFilter retryable;

	private final @Nullable DelayedJobRecoverer recoverer;

	/**
	 * Create a handler.
	 * @param backOff the interval before each retry; its {@code STOP} ends the retries
	 * @param noRetryFor exceptions (subclasses too, anywhere in the cause chain) never retried
	 * @param recoverer takes jobs not retried, or {@code null} to make them DEAD in Redis
	 */
	public DefaultDelayedJobErrorHandler(BackOff backOff, List<Class<? extends Throwable>> noRetryFor,
			@Nullable DelayedJobRecoverer recoverer) {
		Assert.notNull(backOff, "backOff must not be null");
		Assert.notNull(noRetryFor, "noRetryFor must not be null");
		Assert.noNullElements(noRetryFor, "noRetryFor must not contain null");
		this.backOff = backOff;
		// the payload cannot be read, or a parameter cannot be bound: the same on every attempt
		this.retryable = new ExceptionTypeFilter(List.of(), Stream.<Class<? extends Throwable>>concat(
				Stream.of(MessageConversionException.class, MethodArgumentResolutionException.class), noRetryFor.stream())
			.toList());
		this.recoverer = recoverer;
	}

	@Override
	public Outcome handle(ReservedJob job, Throwable failure, DelayedListenerContainer container,
			DelayQueueConsumer consumer) {
		long backOff = (job.attempt() < job.maxAttempts() && this.retryable.match(failure, true))
				? backOff(job.attempt()) : -1;
		if (backOff < 0) {
			return recover(job, failure, container, consumer);
		}
		logger.debug(failure, () -> "Listener '" + container.getId() + "' failed job " + job.id() + " (attempt "
				+ job.attempt() + "); retrying in " + backOff + " ms");
		return outcome(job, failure, consumer.fail(job, Duration.ofMillis(backOff), describe(failure)));
	}

	/** Hands an exhausted job to the recoverer, or dead-letters it (also when the recoverer throws). */
	private Outcome recover(ReservedJob job, Throwable failure, DelayedListenerContainer container,
			DelayQueueConsumer consumer) {
		boolean recovered = false;
		if (this.recoverer != null) {
			try {
				this.recoverer.recover(job, failure);
				recovered = true;
			}
			catch (Throwable ex) {
				logger.warn(ex, "Recoverer of listener '" + container.getId() + "' failed for job " + job.id()
						+ "; dead-lettering it in Redis");
			}
		}
		if (!recovered) {
			return outcome(job, failure, consumer.kill(job, describe(failure)));
		}
		if (!consumer.finish(job)) {
			logger.warn("Listener '" + container.getId() + "' recovered job " + job.id() + " of topic " + job.topic()
					+ " after its reservation was lost (TTR ran out, or it was cancelled or replaced)");
		}
		return Outcome.RECOVERED;
	}

	/** The outcome of a fail or kill in Redis, logged when the job is DEAD. */
	private static Outcome outcome(ReservedJob job, Throwable failure, FailResult result) {
		if (result == FailResult.DEAD) {
			logger.warn("Job " + job.id() + " of topic " + job.topic() + " is DEAD after attempt " + job.attempt()
					+ ": " + describe(failure));
		}
		return Outcome.of(result);
	}

	/** The back-off in ms after {@code attempt} failures, or {@code -1} when it stops. */
	private long backOff(int attempt) {
		BackOffExecution execution = this.backOff.start();
		long interval = 0;
		for (int i = 0; i < attempt; i++) {
			interval = execution.nextBackOff();
			if (interval == BackOffExecution.STOP) {
				return -1;
			}
		}
		return Math.max(0, interval);
	}

	/** The handler's own exception as recorded with the job: class name and message. */
	private static String describe(Throwable failure) {
		Throwable root = unwrap(failure);
		return root.getClass().getName() + ": " + root.getMessage();
	}

	/** The handler's own exception, without spring-messaging's wrappers. */
	static Throwable unwrap(Throwable failure) {
		Throwable root = failure;
		while (root instanceof MessagingException && root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root;
	}

}
