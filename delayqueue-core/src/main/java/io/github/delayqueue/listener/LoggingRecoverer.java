package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A {@link DelayedJobRecoverer} that logs an exhausted job at ERROR and lets it be finished
 * (removed, not DEAD).
 */
public class LoggingRecoverer implements DelayedJobRecoverer {

	private static final Log logger = LogFactory.getLog(LoggingRecoverer.class);

	@Override
	public void recover(ReservedJob job, Throwable failure) {
		logger.error("Job " + job.id() + " of topic " + job.topic() + " failed on attempt " + job.attempt() + " of "
				+ job.maxAttempts() + " and is dropped", DefaultDelayedJobErrorHandler.unwrap(failure));
	}

}
