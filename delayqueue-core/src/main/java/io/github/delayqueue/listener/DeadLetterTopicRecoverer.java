package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 * A {@link DelayedJobRecoverer} that moves a job whose attempts are used up (or whose
 * failure is not retryable) to a dead-letter topic, as Spring Kafka's
 * {@code DeadLetterPublishingRecoverer} publishes a record: the same id and payload, due at
 * once (or after {@link #setDelay a delay}), with the queue's default TTR and attempts. A
 * {@code @DelayedListener} on that topic handles it like any job, and the job's topic (the
 * original one) is gone. The default topic is the job's topic with {@code "-dlt"} appended.
 *
 * <p>
 * The move is one schedule, then the container finishes the original: at least once. When
 * the original cannot be finished afterwards (its reservation ran out meanwhile), it is
 * delivered again and recovered again; a dead-letter job of the same id that is still in the
 * queue is then kept, not doubled ({@link OnDuplicate#KEEP}). When the schedule fails (Redis
 * cannot be reached, or the destination is not a valid topic), the recoverer throws and the
 * job is DEAD in Redis with its error, as without a recoverer. The dead-letter job keeps the
 * job's own headers (its last ones dropped when it has more than 29) and gets three of the
 * failure's:
 * {@link DelayQueueHeaders#DLT_ERROR} (the error, on one line, at most 1,024 characters;
 * cut to {@value #SHORT_ERROR_LENGTH}, then left out, when the payload with it would be over
 * {@code delayqueue.max-payload-size}), {@link DelayQueueHeaders#DLT_ORIGINAL_TOPIC} and
 * {@link DelayQueueHeaders#DLT_ATTEMPTS}; the move is logged at WARN with both topics and the
 * id.
 * Thread-safe.
 */
public class DeadLetterTopicRecoverer implements DelayedJobRecoverer {

	/**
	 * What the default destination appends to the job's topic.
	 */
	public static final String DEFAULT_SUFFIX = "-dlt";

	/** The error text's length when the full one does not fit the payload limit. */
	static final int SHORT_ERROR_LENGTH = 100;

	private static final Log logger = LogFactory.getLog(DeadLetterTopicRecoverer.class);

	private final DelayQueueProducer producer;

	private final Function<ReservedJob, String> destination;

	private volatile Duration delay = Duration.ZERO;

	/**
	 * Moves jobs to their topic with {@value #DEFAULT_SUFFIX} appended.
	 * @param producer the queue to schedule the dead-letter jobs on
	 */
	public DeadLetterTopicRecoverer(DelayQueueProducer producer) {
		this(producer, (job) -> job.topic() + DEFAULT_SUFFIX);
	}

	/**
	 * Moves jobs to the topic the function names for each.
	 * @param producer the queue to schedule the dead-letter jobs on
	 * @param destination the dead-letter topic of a job; it must not return the job's own topic
	 */
	public DeadLetterTopicRecoverer(DelayQueueProducer producer, Function<ReservedJob, String> destination) {
		Assert.notNull(producer, "producer must not be null");
		Assert.notNull(destination, "destination must not be null");
		this.producer = producer;
		this.destination = destination;
	}

	/**
	 * How long after the recovery the dead-letter job is due; default at once.
	 * @param delay the delay, checked as a schedule's delay is
	 */
	public void setDelay(Duration delay) {
		this.delay = JobConstraints.delay(delay);
	}

	@Override
	public void recover(ReservedJob job, Throwable failure) {
		String topic = this.destination.apply(job);
		if (job.topic().equals(topic)) {
			throw new IllegalArgumentException("the dead-letter topic of job " + job.id() + " is its own topic '"
					+ topic + "': the job would run again at once");
		}
		ScheduleResult result = schedule(topic, job, failure);
		logger.warn("Job " + job.id() + " of topic " + job.topic() + " failed on attempt " + job.attempt() + " of "
				+ job.maxAttempts() + " and is moved to dead-letter topic " + topic
				+ (result.created() ? "" : " (a job of that id waits there already and is kept)") + ": "
				+ DefaultDelayedJobErrorHandler.unwrap(failure));
	}


	/**
	 * Schedules the dead-letter job. When the payload with the failure's headers is over
	 * {@code delayqueue.max-payload-size}, the error text is cut to
	 * {@value #SHORT_ERROR_LENGTH} characters, then left out, so that a job near the limit
	 * still moves.
	 */
	private ScheduleResult schedule(String topic, ReservedJob job, Throwable failure) {
		int[] errorLengths = { JobConstraints.MAX_HEADER_VALUE_LENGTH, SHORT_ERROR_LENGTH, 0 };
		for (int i = 0;; i++) {
			try {
				return this.producer.schedule(new ScheduleRequest(topic, job.id(), job.payload(), this.delay, null,
						null, null, OnDuplicate.KEEP, headers(job, failure, errorLengths[i])));
			}
			catch (IllegalArgumentException ex) {
				if (i == errorLengths.length - 1 || ex.getMessage() == null
						|| !ex.getMessage().contains("(delayqueue.max-payload-size)")) {
					throw ex;
				}
			}
		}
	}

	static Map<String, String> headers(ReservedJob job, Throwable failure) {
		return headers(job, failure, JobConstraints.MAX_HEADER_VALUE_LENGTH);
	}

	/**
	 * The job's own headers, then the failure's: error (at most {@code errorLength}
	 * characters, none for 0), topic and attempts, replacing those of an earlier move. A job
	 * with more than {@code MAX_HEADERS - 3} headers of its own loses its last ones, to make
	 * room.
	 */
	static Map<String, String> headers(ReservedJob job, Throwable failure, int errorLength) {
		Map<String, String> headers = new LinkedHashMap<>(job.headers());
		headers.remove(DelayQueueHeaders.DLT_ERROR);
		headers.remove(DelayQueueHeaders.DLT_ORIGINAL_TOPIC);
		headers.remove(DelayQueueHeaders.DLT_ATTEMPTS);
		List<String> names = new ArrayList<>(headers.keySet());
		while (headers.size() > JobConstraints.MAX_HEADERS - 3) {
			headers.remove(names.remove(names.size() - 1));
		}
		if (errorLength > 0) {
			headers.put(DelayQueueHeaders.DLT_ERROR,
					errorText(DefaultDelayedJobErrorHandler.unwrap(failure), errorLength));
		}
		headers.put(DelayQueueHeaders.DLT_ORIGINAL_TOPIC, job.topic());
		headers.put(DelayQueueHeaders.DLT_ATTEMPTS, Integer.toString(job.attempt()));
		return headers;
	}

	/**
	 * The failure as a header value: {@code class: message}, control characters (line
	 * breaks of a multi-line message) as spaces, cut to the longest header value.
	 */
	static String errorText(Throwable failure, int maxLength) {
		String text = String.valueOf(failure);
		StringBuilder clean = new StringBuilder(Math.min(text.length(), maxLength));
		for (int i = 0; i < text.length() && clean.length() < maxLength; i++) {
			char c = text.charAt(i);
			clean.append((c < 0x20 || c == 0x7f) ? ' ' : c);
		}
		if (text.length() > maxLength) {
			clean.setLength(maxLength - 3);
			clean.append("...");
		}
		return clean.toString();
	}

}
