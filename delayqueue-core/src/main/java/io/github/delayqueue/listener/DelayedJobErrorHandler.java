package io.github.delayqueue.listener;

import java.util.Locale;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * Decides and settles in Redis what becomes of a job whose {@code @DelayedListener} (or an
 * interceptor's {@code intercept}) threw, as Spring Kafka's {@code CommonErrorHandler} does
 * for a record. The default, {@link DefaultDelayedJobErrorHandler}, retries after the
 * listener's {@link org.springframework.util.backoff.BackOff back-off}, not for
 * {@code noRetryFor} types, and hands exhausted jobs to the {@link DelayedJobRecoverer} or
 * makes them DEAD. A handler of your own (a bean of this type, or
 * {@code DefaultDelayedListenerContainerFactory.setErrorHandler}) replaces it for every
 * listener of the factory; the factory's and the listeners' back-off and {@code noRetryFor}
 * settings then do not apply, and a listener that sets them fails the start.
 *
 * <p>
 * It runs on the handler thread while the job is still reserved by it, and settles the job
 * through the consumer it is given: {@link DelayQueueConsumer#fail} (DELAYED again after a
 * back-off, or DEAD when the attempts are used up), {@link DelayQueueConsumer#kill} (DEAD),
 * {@link DelayQueueConsumer#finish} (removed) — or none of them, leaving the job reserved:
 * delivered again when its reservation (TTR) runs out, or, on its last attempt, DEAD with the
 * TTR's error text instead of the failure. What it throws (an {@link Error} included) is
 * logged, counted as {@link Outcome#LEFT} and leaves the job as the handler left it. It must
 * not {@link DelayQueueConsumer#release release} the job (the attempt would not count, and a
 * job that always fails would run forever). {@link DelayedListenerContainer#pause()} and
 * {@link DelayedListenerContainer#stop()} are safe (a stop from the container's own thread
 * goes on in the background). Thread-safe, as handlers of several jobs run it at once.
 */
@FunctionalInterface
public interface DelayedJobErrorHandler {

	/**
	 * Settles a failed job.
	 * @param job the job, still reserved by this consumer
	 * @param failure what was thrown: the listener's own exception or error, or what reading the
	 * payload or binding a parameter threw
	 * @param container the listener's container (id, topic)
	 * @param consumer the queue, to settle the job with
	 * @return what became of the job, for the metrics ({@code delayqueue.listener} outcome)
	 * and the {@link io.github.delayqueue.core.DelayQueueObserver}; {@code null} counts as
	 * {@link Outcome#LEFT}
	 */
	@Nullable Outcome handle(ReservedJob job, Throwable failure, DelayedListenerContainer container,
			DelayQueueConsumer consumer);


	/**
	 * What became of a failed job.
	 */
	enum Outcome {

		/** DELAYED again, delivered after the back-off. */
		RETRY,

		/** Handed over (a recoverer returned) and finished. */
		RECOVERED,

		/** DEAD in Redis, replayable. */
		DEAD,

		/** Nothing changed: the reservation was no longer this consumer's. */
		STALE,

		/** Left reserved: delivered again when its TTR runs out. */
		LEFT;

		/**
		 * The outcome of settling a failed job with {@link DelayQueueConsumer#fail} or
		 * {@link DelayQueueConsumer#kill}.
		 * @param result what Redis made of it
		 * @return {@link #RETRY}, {@link #DEAD} or {@link #STALE}
		 */
		public static Outcome of(FailResult result) {
			return switch (result) {
				case RETRYING -> RETRY;
				case DEAD -> DEAD;
				case STALE -> STALE;
			};
		}

		/**
		 * The outcome as the metrics and the observer name it: {@code retry},
		 * {@code recovered}, {@code dead}, {@code stale}, {@code left}.
		 * @return the name
		 */
		public String tag() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
