package io.github.delayqueue.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a template's {@code delayqueue.template} observation; its carrier collects
 * the trace headers a tracer's propagator writes.
 */
public class DelayedJobSenderContext extends SenderContext<Map<String, String>> {

	private final String operation;

	private final String topic;

	private final Map<String, String> traceHeaders = new LinkedHashMap<>();

	private final @Nullable String jobId;

	private final int jobs;

	private String outcome = "error";

	/**
	 * Creates a context.
	 * @param operation the template's operation, such as {@code schedule}
	 * @param topic the topic; {@code mixed} for a batch of several topics
	 * @param jobId the job's id, or {@code null} for a batch
	 * @param jobs how many jobs the write is for
	 */
	public DelayedJobSenderContext(String operation, String topic, @Nullable String jobId, int jobs) {
		super((carrier, key, value) -> Objects.requireNonNull(carrier).put(key, value));
		setCarrier(this.traceHeaders);
		this.operation = operation;
		this.topic = topic;
		this.jobId = jobId;
		this.jobs = jobs;
		setRemoteServiceName("delayqueue");
	}

	/** The headers the tracer's propagator wrote, empty until the observation started. */
	public Map<String, String> getTraceHeaders() {
		return this.traceHeaders;
	}

	/** The template's operation, such as {@code schedule}. */
	public String getOperation() {
		return this.operation;
	}

	/** The topic, {@code mixed} for a batch of several topics. */
	public String getTopic() {
		return this.topic;
	}

	/** The job's id, or {@code null} for a batch. */
	public @Nullable String getJobId() {
		return this.jobId;
	}

	/** How many jobs the write is for. */
	public int getJobs() {
		return this.jobs;
	}

	/** What the write did; {@code error} until the write returned. */
	public String getOutcome() {
		return this.outcome;
	}

	/** Sets what the write did. */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

}
