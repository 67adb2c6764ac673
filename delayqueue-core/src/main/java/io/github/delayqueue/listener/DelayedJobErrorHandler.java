package io.github.delayqueue.listener;

import java.util.Locale;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * Decides and settles in Redis what becomes of a job whose listener threw, on the handler
 * thread while the job is still reserved: {@link DelayQueueConsumer#fail},
 * {@link DelayQueueConsumer#kill}, {@link DelayQueueConsumer#finish}, or nothing (the job is
 * delivered again after its TTR); never {@link DelayQueueConsumer#release release}. What it
 * throws is logged and counted as {@link Outcome#LEFT}. Must be thread-safe.
 */
@FunctionalInterface
public interface DelayedJobErrorHandler {

	/**
	 * Settle a failed job.
	 * @param job the job, still reserved by this consumer
	 * @param failure what was thrown
	 * @param container the listener's container
	 * @param consumer the queue, to settle the job with
	 * @return what became of the job, for the metrics; {@code null} counts as {@link Outcome#LEFT}
	 */
	@Nullable Outcome handle(ReservedJob job, Throwable failure, DelayedListenerContainer container,
			DelayQueueConsumer consumer);

	/** What became of a failed job. */
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
		 * Return the outcome of a {@link DelayQueueConsumer#fail} or {@link DelayQueueConsumer#kill}.
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

		/** Return the outcome as the metrics name it ({@code retry}, {@code dead}, ...). */
		public String tag() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
