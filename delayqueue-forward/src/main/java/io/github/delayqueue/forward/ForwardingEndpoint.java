package io.github.delayqueue.forward;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.config.DelayedListenerEndpoint;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobHandler;

import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.Assert;

/**
 * The listener endpoint of a forwarded topic: its handler sends each job with a
 * {@link JobForwarder}, so a job is finished only once the broker acknowledged it. Its
 * reservations last twice the send timeout plus a second.
 */
public final class ForwardingEndpoint implements DelayedListenerEndpoint {

	/** The prefix of a forwarding container's id. */
	public static final String ID_PREFIX = "delayqueue-forward-";

	/**
	 * The bean name of the container factory forwarders run in, without the application's
	 * interceptors, error handler or recoverer.
	 */
	public static final String CONTAINER_FACTORY_BEAN_NAME = "delayQueueForwardingContainerFactory";

	private final String topic;

	private final JobForwarder forwarder;

	private final int concurrency;

	private final Duration ttr;

	/**
	 * Creates the endpoint.
	 * @param topic the forwarded topic
	 * @param forwarder sends its jobs
	 * @param concurrency sends at once
	 * @param sendTimeout how long one send may wait for its acknowledgement
	 */
	public ForwardingEndpoint(String topic, JobForwarder forwarder, int concurrency, Duration sendTimeout) {
		Assert.notNull(forwarder, "forwarder must not be null");
		this.topic = JobConstraints.topic(topic);
		this.forwarder = forwarder;
		this.concurrency = JobConstraints.concurrency(concurrency);
		Duration ttr = JobConstraints.positive("sendTimeout", sendTimeout, JobConstraints.MAX_TTR)
			.multipliedBy(2)
			.plusSeconds(1);
		this.ttr = (ttr.compareTo(JobConstraints.MAX_TTR) > 0) ? JobConstraints.MAX_TTR : ttr;
	}

	@Override
	public DelayedJobHandler createHandler(MessageHandlerMethodFactory methodFactory, DelayedJobArgumentResolver jobs) {
		return (message) -> {
			ReservedJob job = message.getHeaders().get(DelayedJobArgumentResolver.JOB_HEADER, ReservedJob.class);
			Assert.state(job != null, "The message carries no job");
			this.forwarder.forward(job);
		};
	}

	@Override
	public String id() {
		return ID_PREFIX + this.topic;
	}

	@Override
	public String topic() {
		return this.topic;
	}

	@Override
	public String describe() {
		return "Forwarding of topic '" + this.topic + "' to " + this.forwarder.destination();
	}

	@Override
	public Integer concurrency() {
		return this.concurrency;
	}

	@Override
	public Duration ttr() {
		return this.ttr;
	}

	/** A forwarded topic's jobs are for the broker only. */
	@Override
	public boolean exclusive() {
		return true;
	}

	@Override
	public String containerFactory() {
		return CONTAINER_FACTORY_BEAN_NAME;
	}

	@Override
	public List<Class<? extends Throwable>> noRetryFor() {
		return List.of(UnforwardableJobException.class);
	}

}
