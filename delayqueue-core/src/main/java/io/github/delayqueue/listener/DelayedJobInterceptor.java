package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;

/**
 * Hooks around each job a {@code @DelayedListener} runs, on the handler thread, as Spring
 * Kafka's {@code RecordInterceptor} wraps a record: {@link #intercept} before the listener
 * (it may skip the job), then {@link #success} or {@link #failure}, then {@link #afterJob}.
 * Each hook gets the job as it was reserved: id, payload (the stored bytes), attempt and
 * the other metadata.
 *
 * <p>
 * Interceptors compose: every {@code DelayedJobInterceptor} bean runs for every listener of
 * the auto-configured container factory, in {@link org.springframework.core.annotation.Order
 * order}, and a listener's own ({@code @DelayedListener(interceptors = ...)}) run after them.
 * The first {@code intercept} that returns {@code false} skips the job: the interceptors
 * after it are not asked, the listener is not called, and the job is finished (removed from
 * Redis) with its batch, as a job the listener handled. An exception or {@link Error} thrown
 * by {@code intercept} is a failure of the job, as if the listener had thrown it: the
 * {@code failure} hooks hear it and the error handler settles it (by default: retried after
 * the back-off, or recovered, or DEAD). An interceptor whose {@code intercept} was not called
 * (one before it said no or threw) hears nothing more of the job, so that what an
 * {@code intercept} opens (an MDC entry, a span, a permit) its {@code afterJob} can always
 * close. What {@code success}, {@code failure} and {@code afterJob} throw is logged and
 * changes nothing: the job's fate is decided by then, and the other interceptors' hooks are
 * still called.
 *
 * <p>
 * Hooks run on the listener's handler threads, several at once when its concurrency is above
 * one, so an interceptor must be thread-safe. The time they take counts against the job's
 * reservation (TTR), like the listener's.
 */
public interface DelayedJobInterceptor {

	/**
	 * Before the listener is called.
	 * @param job the job, reserved by this consumer
	 * @return {@code false} to skip the job: it is finished without calling the listener
	 * @throws Exception to fail the job, as if the listener had thrown
	 */
	default boolean intercept(ReservedJob job) throws Exception {
		return true;
	}

	/**
	 * After the listener returned; the job is finished in Redis with its batch, shortly after.
	 * @param job the job
	 */
	default void success(ReservedJob job) {
	}

	/**
	 * After the listener (or an {@link #intercept}) threw, before the
	 * {@link DelayedJobErrorHandler} decides what becomes of the job and writes it to Redis.
	 * @param job the job
	 * @param failure what was thrown: the listener's own exception or error, or what reading the
	 * payload or binding a parameter threw
	 */
	default void failure(ReservedJob job, Throwable failure) {
	}

	/**
	 * Last, after {@link #success}, after {@link #failure} and the error handler (which has
	 * settled the failure in Redis, unless it left the job reserved), or after a skip:
	 * whatever happened, once per job whose {@link #intercept} this interceptor ran.
	 * @param job the job
	 */
	default void afterJob(ReservedJob job) {
	}

}
