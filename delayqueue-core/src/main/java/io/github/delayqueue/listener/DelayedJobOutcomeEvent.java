package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * A listener has handled a job, published on the handler thread when outcome events are on;
 * the outcome is the one the {@code delayqueue.listener} timer counts.
 */
public class DelayedJobOutcomeEvent extends DelayedListenerContainerEvent {

	private final ReservedJob job;

	private final String outcome;

	private final @Nullable Throwable failure;

	/**
	 * Create an event.
	 * @param container the container
	 * @param job the job, as it was reserved
	 * @param outcome the outcome
	 * @param failure what the listener threw, or {@code null}
	 */
	public DelayedJobOutcomeEvent(DelayedListenerContainer container, ReservedJob job, String outcome,
			@Nullable Throwable failure) {
		super(container);
		this.job = job;
		this.outcome = outcome;
		this.failure = failure;
	}

	/** Return the job, as it was reserved. */
	public ReservedJob getJob() {
		return this.job;
	}

	/**
	 * Return the outcome: {@code success}, {@code skipped}, {@code retry}, {@code dead},
	 * {@code recovered}, {@code stale} or {@code left}.
	 * @return the outcome
	 */
	public String getOutcome() {
		return this.outcome;
	}

	/**
	 * Return what the listener (or an interceptor) threw, without spring-messaging's wrappers.
	 * @return the failure, or {@code null} on success or skip
	 */
	public @Nullable Throwable getFailure() {
		return this.failure;
	}

}
