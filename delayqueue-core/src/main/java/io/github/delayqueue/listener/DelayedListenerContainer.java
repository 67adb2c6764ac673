package io.github.delayqueue.listener;

import org.springframework.context.SmartLifecycle;

/**
 * Runs one listener endpoint for one topic: reserves its jobs, runs them on handler threads
 * and settles each in Redis. Made by a
 * {@link io.github.delayqueue.config.DelayedListenerContainerFactory}, managed by the
 * {@link io.github.delayqueue.config.DelayedListenerEndpointRegistry}; not a bean. Running
 * means started, paused or not; {@code autoStartup} is the listener's. A stop ends reserving,
 * waits for running handlers up to the shutdown timeout, gives back the jobs not started, then
 * runs its callback (at once when stopped already); on a container's own thread it returns at
 * once and goes on in the background.
 */
public interface DelayedListenerContainer extends SmartLifecycle {

	/** Return the container's id, unique in the registry. */
	String getId();

	/** Return the topic it consumes. */
	String getTopic();

	/** Return how many handlers may run at once. */
	int getConcurrency();

	/** Return how many handlers run now. */
	int getInFlight();

	/** Stops taking new jobs until {@link #resume()}; running handlers go on. */
	void pause();

	/** Takes jobs again after {@link #pause()}. */
	void resume();

	/**
	 * Whether the container is paused.
	 * @return {@code true} between {@link #pause()} and {@link #resume()}
	 */
	boolean isPaused();

	/**
	 * Return the state as the Actuator support shows it.
	 * @return {@code running}, {@code paused} (running, taking no new jobs) or {@code stopped}
	 */
	default String getState() {
		return !isRunning() ? "stopped" : isPaused() ? "paused" : "running";
	}

	/**
	 * Return when the container last made progress (a consumer round or a handler return).
	 * @return the {@link System#nanoTime()} of it
	 */
	long getLastProgressNanos();

	/**
	 * Return whether the calling thread is one of a listener container's own threads.
	 * @return {@code true} on a container's own thread
	 */
	static boolean isContainerThread() {
		return DefaultDelayedListenerContainer.OWNER.get() != null;
	}

}
