package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A {@link DelayedJobRecoverer} that logs a job whose attempts are used up (or whose failure
 * is not retryable) at ERROR, with its failure, and lets it go: the container then finishes
 * it (removed from Redis, not DEAD). For jobs that are worth nothing once they failed, where
 * a DEAD job would only wait for an operator to delete it. Thread-safe.
 */
public class LoggingRecoverer implements DelayedJobRecoverer {

	private static final Log logger = LogFactory.getLog(LoggingRecoverer.class);

	@Override
	public void recover(ReservedJob job, Throwable failure) {
		logger.error("Job " + job.id() + " of topic " + job.topic() + " failed on attempt " + job.attempt() + " of "
				+ job.maxAttempts() + " and is dropped", DefaultDelayedJobErrorHandler.unwrap(failure));
	}

}
