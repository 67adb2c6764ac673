package io.github.delayqueue.listener;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The job outcomes of every instance of a namespace, Bull-style: instances with
 * {@code delayqueue.listener.outcome-stream=true} publish how their listeners handled each
 * job to a Redis pub/sub channel ({@code <namespace>:outcomes}), and any instance, one that
 * consumes the topic or not, subscribes here. Pub/sub is at most once: an outcome published
 * while no subscriber of this instance was connected (before {@link #subscribe} returned,
 * while Redis was unreachable) is not seen, and an outcome is lost when the instance that ran
 * the job stops before publishing it. Use it to watch and to wake up, not as the record of
 * what ran; {@link io.github.delayqueue.core.DelayedJobTemplate#find} tells whether a job is
 * still there. Anyone who may publish on the channel can send outcomes: use them to notify,
 * not to decide.
 */
public interface JobOutcomeStream {

	/**
	 * Calls a consumer with each outcome of a topic, in the order received, on one thread of
	 * this stream; what it throws is logged. The instance subscribes once, at its first
	 * subscription, which returns when Redis has confirmed it; later ones share it (while its
	 * connection recovers after a loss, outcomes are missed).
	 * @param topic the topic, or {@code null} for every topic
	 * @param consumer the consumer
	 * @return the subscription; close it to stop
	 * @throws io.github.delayqueue.core.DelayQueueConnectionException when Redis cannot be
	 * reached to subscribe
	 * @throws IllegalStateException when the stream is stopped (the context is not running)
	 */
	Subscription subscribe(@Nullable String topic, Consumer<JobOutcome> consumer);

	/**
	 * Completes with the first final outcome ({@link JobOutcome#isFinal()}) of a job seen
	 * after this call: subscribe, then schedule, to hear of a job that may run at once.
	 * Cancelling the future ends the wait; it does not time out by itself
	 * ({@link CompletableFuture#orTimeout}). It completes exceptionally when the subscription
	 * cannot be made, or when the stream stops (the context closes).
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return the future
	 */
	CompletableFuture<JobOutcome> whenDone(String topic, String id);

	/**
	 * A subscription to the stream.
	 */
	interface Subscription extends AutoCloseable {

		/**
		 * Stops the consumer's calls; a call under way goes on (close does not wait for it).
		 */
		@Override
		void close();

	}

}
