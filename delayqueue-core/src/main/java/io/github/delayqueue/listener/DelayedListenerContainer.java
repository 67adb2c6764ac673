package io.github.delayqueue.listener;

import org.springframework.context.SmartLifecycle;

/**
 * Runs one listener endpoint for one topic: reserves its jobs, runs them on handler threads
 * and settles each in Redis. {@link DefaultDelayedListenerContainer} is the implementation;
 * a {@link io.github.delayqueue.config.DelayedListenerContainerFactory} makes containers and
 * the {@link io.github.delayqueue.config.DelayedListenerEndpointRegistry} manages them: it
 * starts them with the context, stops them first when the context closes, and starts,
 * stops and removes them by id at run time. Containers are not beans. Every container logs
 * under this interface's name.
 */
public interface DelayedListenerContainer extends SmartLifecycle {

	/**
	 * The container's id, unique in the registry.
	 * @return the id
	 */
	String getId();

	/**
	 * The topic it consumes.
	 * @return the topic
	 */
	String getTopic();

	/**
	 * How many handlers may run at once.
	 * @return the concurrency
	 */
	int getConcurrency();

	/**
	 * How many handlers run now.
	 * @return the count
	 */
	int getInFlight();

	/**
	 * Whether the container is started (paused or not).
	 * @return {@code true} from {@link #start()} until a stop begins
	 */
	@Override
	boolean isRunning();

	/**
	 * Whether the registry starts the container with the context.
	 * @return the listener's {@code autoStartup}
	 */
	@Override
	boolean isAutoStartup();

	/**
	 * Stops taking new jobs until {@link #resume()}; running handlers go on.
	 */
	void pause();

	/**
	 * Takes jobs again after {@link #pause()}.
	 */
	void resume();

	/**
	 * Whether the container is paused.
	 * @return {@code true} between {@link #pause()} and {@link #resume()}
	 */
	boolean isPaused();

	/**
	 * The state as the Actuator support shows it.
	 * @return {@code running}, {@code paused} (running, taking no new jobs) or {@code stopped}
	 */
	String getState();

	/**
	 * When the container last made progress, by {@link System#nanoTime()}: health checks
	 * report a container whose progress stands still for long.
	 * @return the nano time
	 */
	long getLastProgressNanos();

	/**
	 * Stops reserving, waits for running handlers up to the shutdown timeout, gives back
	 * jobs that were reserved but not started, then returns. Called on one of the
	 * container's own threads, it returns at once and the stop goes on in the background.
	 */
	@Override
	void stop();

	/**
	 * Stops as {@link #stop()} does, then runs the callback; when a stop is under way
	 * already, the callback runs when it ends; on a stopped container, at once.
	 * @param callback run when stopped
	 */
	@Override
	void stop(Runnable callback);

	/**
	 * Whether the calling thread is a consumer, handler or settler thread of a listener
	 * container (one that must not wait for a container to stop: it would wait for itself).
	 * @return {@code true} on a container's own thread
	 */
	static boolean isContainerThread() {
		return DefaultDelayedListenerContainer.OWNER.get() != null;
	}

}
