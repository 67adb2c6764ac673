package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;

/**
 * Hooks around each job a listener runs, on its handler threads (so thread-safe):
 * {@link #intercept} before the listener (it may skip the job), then {@link #success} or
 * {@link #failure}, then {@link #afterJob}. An interceptor whose {@code intercept} was not
 * called hears nothing more of the job; what the later hooks throw is logged and changes
 * nothing.
 */
public interface DelayedJobInterceptor {

	/**
	 * Called before the listener.
	 * @param job the job, reserved by this consumer
	 * @return {@code false} to skip the job: it is finished without calling the listener
	 * @throws Exception to fail the job, as if the listener had thrown
	 */
	default boolean intercept(ReservedJob job) throws Exception {
		return true;
	}

	/** Called after the listener returned. */
	default void success(ReservedJob job) {
	}

	/**
	 * Called after the listener (or an {@link #intercept}) threw, before the error handler.
	 * @param job the job
	 * @param failure what was thrown
	 */
	default void failure(ReservedJob job, Throwable failure) {
	}

	/** Called last, once per job whose {@link #intercept} this interceptor ran. */
	default void afterJob(ReservedJob job) {
	}

}
