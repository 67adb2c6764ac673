package io.github.delayqueue.micrometer;

import io.github.delayqueue.core.ReservedJob;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * The context of a {@link DelayQueueObservation#LISTENER} observation; its carrier is the job.
 */
public class DelayedJobReceiverContext extends ReceiverContext<ReservedJob> {

	private final String listenerId;

	private final ReservedJob job;

	private String outcome = "error";

	/** Creates the context of the listener container {@code listenerId} handling {@code job}. */
	public DelayedJobReceiverContext(String listenerId, ReservedJob job) {
		super((carrier, key) -> (carrier != null) ? carrier.headers().get(key) : null);
		setCarrier(job);
		this.listenerId = listenerId;
		this.job = job;
		setRemoteServiceName("delayqueue");
	}

	/** The listener container's id. */
	public String getListenerId() {
		return this.listenerId;
	}

	/** The job being handled. */
	public ReservedJob getJob() {
		return this.job;
	}

	/** What became of the job, once handled; {@code error} until set. */
	public String getOutcome() {
		return this.outcome;
	}

	/** Sets what became of the job. */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

}
