package io.github.delayqueue.listener;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The job outcomes of every instance of a namespace: instances with
 * {@code delayqueue.listener.outcome-stream=true} publish them, any instance subscribes. At
 * most once: use it to watch and to wake up, not as the record of what ran.
 */
public interface JobOutcomeStream {

	/**
	 * Call a consumer with each outcome of a topic, in the order received, on one thread;
	 * returns once Redis has confirmed the subscription.
	 * @param topic the topic, or {@code null} for every topic
	 * @param consumer the consumer; what it throws is logged
	 * @return the subscription; close it to stop
	 * @throws io.github.delayqueue.core.DelayQueueConnectionException when Redis cannot be reached
	 * @throws IllegalStateException when the stream is stopped
	 */
	Subscription subscribe(@Nullable String topic, Consumer<JobOutcome> consumer);

	/**
	 * Return a future of the first final outcome ({@link JobOutcome#isFinal()}) of a job seen
	 * after this call; it fails when the subscription cannot be made or the stream stops.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return the future, without a timeout of its own
	 */
	CompletableFuture<JobOutcome> whenDone(String topic, String id);

	/** A subscription to the stream. */
	interface Subscription extends AutoCloseable {

		/** Stops the consumer's calls; a call under way goes on. */
		@Override
		void close();

	}

}
