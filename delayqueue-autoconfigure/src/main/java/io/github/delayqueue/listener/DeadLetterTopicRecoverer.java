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
 * {@link DelayQueueHeaders#DLT_ERROR} (the error, on one line, at most 1,024 characters),
 * {@link DelayQueueHeaders#DLT_ORIGINAL_TOPIC} and {@link DelayQueueHeaders#DLT_ATTEMPTS}; the
 * move is logged at WARN with both topics and the id.
 * Thread-safe.
 */
public class DeadLetterTopicRecoverer implements DelayedJobRecoverer {

	/**
	 * What the default destination appends to the job's topic.
	 */
	public static final String DEFAULT_SUFFIX = "-dlt";

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
		ScheduleResult result = this.producer.schedule(new ScheduleRequest(topic, job.id(), job.payload(), this.delay,
				null, null, null, OnDuplicate.KEEP, headers(job, failure)));
		logger.warn("Job " + job.id() + " of topic " + job.topic() + " failed on attempt " + job.attempt() + " of "
				+ job.maxAttempts() + " and is moved to dead-letter topic " + topic
				+ (result.created() ? "" : " (a job of that id waits there already and is kept)") + ": "
				+ DefaultDelayedJobErrorHandler.unwrap(failure));
	}


	/**
	 * The job's own headers, then the failure's: error, topic and attempts, replacing those of
	 * an earlier move. A job with more than {@code MAX_HEADERS - 3} headers of its own loses
	 * its last ones, to make room.
	 */
	static Map<String, String> headers(ReservedJob job, Throwable failure) {
		Map<String, String> headers = new LinkedHashMap<>(job.headers());
		headers.remove(DelayQueueHeaders.DLT_ERROR);
		headers.remove(DelayQueueHeaders.DLT_ORIGINAL_TOPIC);
		headers.remove(DelayQueueHeaders.DLT_ATTEMPTS);
		List<String> names = new ArrayList<>(headers.keySet());
		while (headers.size() > JobConstraints.MAX_HEADERS - 3) {
			headers.remove(names.remove(names.size() - 1));
		}
		headers.put(DelayQueueHeaders.DLT_ERROR, errorText(DefaultDelayedJobErrorHandler.unwrap(failure)));
		headers.put(DelayQueueHeaders.DLT_ORIGINAL_TOPIC, job.topic());
		headers.put(DelayQueueHeaders.DLT_ATTEMPTS, Integer.toString(job.attempt()));
		return headers;
	}

	/**
	 * The failure as a header value: {@code class: message}, control characters (line
	 * breaks of a multi-line message) as spaces, cut to the longest header value.
	 */
	static String errorText(Throwable failure) {
		String text = String.valueOf(failure);
		StringBuilder clean = new StringBuilder(Math.min(text.length(), JobConstraints.MAX_HEADER_VALUE_LENGTH));
		for (int i = 0; i < text.length() && clean.length() < JobConstraints.MAX_HEADER_VALUE_LENGTH; i++) {
			char c = text.charAt(i);
			clean.append((c < 0x20 || c == 0x7f) ? ' ' : c);
		}
		if (text.length() > JobConstraints.MAX_HEADER_VALUE_LENGTH) {
			clean.setLength(JobConstraints.MAX_HEADER_VALUE_LENGTH - 3);
			clean.append("...");
		}
		return clean.toString();
	}

}
