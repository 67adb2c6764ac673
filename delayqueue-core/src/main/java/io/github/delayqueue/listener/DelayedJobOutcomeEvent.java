package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * A listener has handled a job, published when {@code delayqueue.listener.outcome-events} is
 * on (off by default: one event per job). The outcome is the one the
 * {@code delayqueue.listener} timer counts: {@code success} (to be finished in Redis with its
 * batch shortly after, unless its reservation is lost meanwhile), {@code skipped} (an
 * interceptor said no; finished likewise), or what the error handler made of a failure
 * ({@code retry}, {@code dead}, {@code recovered}, {@code stale}, {@code left}). Published on
 * the handler thread, in the instance that ran the job, after the timer has measured it.
 */
public class DelayedJobOutcomeEvent extends DelayedListenerContainerEvent {

	private final ReservedJob job;

	private final String outcome;

	private final @Nullable Throwable failure;

	/**
	 * Creates an event.
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

	/**
	 * The job, as it was reserved (id, payload, attempt, times).
	 * @return the job
	 */
	public ReservedJob getJob() {
		return this.job;
	}

	/**
	 * The outcome: {@code success}, {@code skipped}, {@code retry}, {@code dead},
	 * {@code recovered}, {@code stale} or {@code left}.
	 * @return the outcome
	 */
	public String getOutcome() {
		return this.outcome;
	}

	/**
	 * What the listener (or an interceptor's {@code intercept}) threw, without
	 * spring-messaging's wrappers.
	 * @return the failure, or {@code null} on success or skip
	 */
	public @Nullable Throwable getFailure() {
		return this.failure;
	}

	@Override
	public String toString() {
		return "DelayedJobOutcomeEvent[listener=" + getListenerId() + ", job=" + this.job.topic() + ":" + this.job.id()
				+ ", attempt=" + this.job.attempt() + ", outcome=" + this.outcome + "]";
	}

}
