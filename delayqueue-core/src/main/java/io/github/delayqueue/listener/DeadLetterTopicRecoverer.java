package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.github.delayqueue.core.DelayQueueProducer;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * A {@link DelayedJobRecoverer} that moves an exhausted job to a dead-letter topic (by default
 * its topic with {@value #DEFAULT_SUFFIX} appended): the same id and payload, due at once or
 * after {@link #setDelay a delay}, an existing job of that id kept ({@link OnDuplicate#KEEP}),
 * with the job's headers and the {@code DLT_*} headers of {@link DelayQueueHeaders}.
 * Thread-safe.
 */
public class DeadLetterTopicRecoverer implements DelayedJobRecoverer {

	/** What the default destination appends to the job's topic. */
	public static final String DEFAULT_SUFFIX = "-dlt";

	private static final Log logger = LogFactory.getLog(DeadLetterTopicRecoverer.class);

	private final DelayQueueProducer producer;

	private final Function<ReservedJob, String> destination;

	private volatile Duration delay = Duration.ZERO;

	/**
	 * Create a recoverer that moves jobs to their topic with {@value #DEFAULT_SUFFIX} appended.
	 * @param producer the queue to schedule the dead-letter jobs on
	 */
	public DeadLetterTopicRecoverer(DelayQueueProducer producer) {
		this(producer, (job) -> job.topic() + DEFAULT_SUFFIX);
	}

	/**
	 * Create a recoverer that moves jobs to the topic the function names for each.
	 * @param producer the queue to schedule the dead-letter jobs on
	 * @param destination the dead-letter topic of a job; it must not return the job's own topic
	 */
	public DeadLetterTopicRecoverer(DelayQueueProducer producer, Function<ReservedJob, String> destination) {
		Assert.notNull(producer, "producer must not be null");
		Assert.notNull(destination, "destination must not be null");
		this.producer = producer;
		this.destination = destination;
	}

	/** Set how long after the recovery the dead-letter job is due, checked as a schedule's delay; default at once. */
	public void setDelay(Duration delay) {
		this.delay = JobConstraints.delay(delay);
	}

	@Override
	public void recover(ReservedJob job, Throwable failure) {
		String topic = this.destination.apply(job);
		Assert.isTrue(!job.topic().equals(topic), () -> "the dead-letter topic of job " + job.id()
				+ " is its own topic '" + topic + "': the job would run again at once");
		ScheduleResult result = schedule(topic, job, failure);
		logger.warn("Job " + job.id() + " of topic " + job.topic() + " failed on attempt " + job.attempt() + " of "
				+ job.maxAttempts() + " and is moved to dead-letter topic " + topic
				+ (result.created() ? "" : " (a job of that id waits there already and is kept)") + ": "
				+ DefaultDelayedJobErrorHandler.unwrap(failure));
	}

	/** Schedules the dead-letter job, its error text shortened, then left out, when over the payload limit. */
	private ScheduleResult schedule(String topic, ReservedJob job, Throwable failure) {
		int[] errorLengths = { JobConstraints.MAX_HEADER_VALUE_LENGTH, 100, 0 };
		for (int i = 0;; i++) {
			try {
				return this.producer.schedule(new ScheduleRequest(topic, job.id(), job.payload(), this.delay, null,
						null, null, OnDuplicate.KEEP, headers(job, failure, errorLengths[i]), null));
			}
			catch (IllegalArgumentException ex) {
				if (i == errorLengths.length - 1 || ex.getMessage() == null
						|| !ex.getMessage().contains("(delayqueue.max-payload-size)")) {
					throw ex;
				}
			}
		}
	}

	/** The job's own headers (its last ones dropped to make room), then the failure's. */
	private static Map<String, String> headers(ReservedJob job, Throwable failure, int errorLength) {
		Map<String, String> headers = new LinkedHashMap<>();
		job.headers().entrySet().stream()
			.filter((header) -> !header.getKey().startsWith(DelayQueueHeaders.PREFIX + "dlt"))
			.limit(JobConstraints.MAX_HEADERS - 3)
			.forEach((header) -> headers.put(header.getKey(), header.getValue()));
		if (errorLength > 0) {
			// one line of at most errorLength characters
			String error = String.valueOf(DefaultDelayedJobErrorHandler.unwrap(failure)).replaceAll("\\p{Cntrl}", " ");
			headers.put(DelayQueueHeaders.DLT_ERROR,
					(error.length() <= errorLength) ? error : error.substring(0, errorLength - 3) + "...");
		}
		headers.put(DelayQueueHeaders.DLT_ORIGINAL_TOPIC, job.topic());
		headers.put(DelayQueueHeaders.DLT_ATTEMPTS, Integer.toString(job.attempt()));
		return headers;
	}

}
