package io.github.delayqueue.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import io.github.delayqueue.listener.DelayedListenerContainer;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Holds every listener container and is their one {@link SmartLifecycle}: containers start
 * after everything else (phase {@value #PHASE}) and stop first, in parallel, each waiting
 * for its running handlers up to its shutdown timeout. At run time it registers endpoints
 * ({@link #registerListenerContainer}), and starts, stops and removes containers by id.
 */
public class DelayedListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

	/** The lifecycle phase: late, like Spring Kafka's listener registry. */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private final Map<String, DelayedListenerContainer> containers = new LinkedHashMap<>();

	private volatile boolean running;

	// set when the registry stops (the context closes), cleared when it starts
	private boolean stopped;

	// the threads starting a container now, once per start under way (a started event's
	// listener may start another on the same thread)
	private final List<Thread> starting = new ArrayList<>();

	/**
	 * Creates and registers the container of an endpoint; starts it when the registry runs and
	 * the container starts by itself ({@code autoStartup}). Works at any time: an endpoint
	 * registered at run time is stopped with the others when the context closes.
	 * @param endpoint the endpoint
	 * @param factory the factory that makes its container
	 * @return the container
	 * @throws InvalidDelayedListenerException when another container has the endpoint's id,
	 * or the factory cannot run the endpoint; nothing is registered then
	 */
	public DelayedListenerContainer registerListenerContainer(DelayedListenerEndpoint endpoint,
			DelayedListenerContainerFactory factory) {
		Assert.notNull(endpoint, "endpoint must not be null");
		Assert.notNull(factory, "factory must not be null");
		DelayedListenerContainer container;
		boolean start;
		synchronized (this) {
			if (this.containers.containsKey(endpoint.id())) {
				throw new InvalidDelayedListenerException(endpoint.describe(),
						"uses id '" + endpoint.id() + "', which another listener has already",
						"give each listener its own id", null);
			}
			container = factory.createContainer(endpoint);
			Assert.state(container != null && endpoint.id().equals(container.getId()),
					() -> "The container factory made no container with id '" + endpoint.id() + "'");
			this.containers.put(endpoint.id(), container);
			start = this.running && container.isAutoStartup();
		}
		if (start) {
			startChecked(container);
		}
		return container;
	}

	/**
	 * Starts a container without holding this registry's lock (listeners of its started
	 * event may call the registry); when the registry stopped meanwhile, or the container
	 * was unregistered, stops it again, so that no container outlives the registry's stop or
	 * runs unregistered.
	 */
	private void startChecked(DelayedListenerContainer container) {
		Thread self = Thread.currentThread();
		synchronized (this) {
			this.starting.add(self);
		}
		boolean stopped;
		try {
			container.start();
		}
		finally {
			synchronized (this) {
				this.starting.remove(self);
				notifyAll();
				stopped = this.stopped || this.containers.get(container.getId()) != container;
			}
		}
		if (stopped) {
			container.stop();
		}
	}

	/**
	 * The container with an id.
	 * @param id the id
	 * @return the container, or {@code null}
	 */
	public synchronized DelayedListenerContainer getListenerContainer(String id) {
		return this.containers.get(id);
	}

	/**
	 * Starts the container with an id: one whose listener does not start with the context
	 * ({@code autoStartup = "false"}), or one stopped before. Does nothing when it runs.
	 * Called before the context has started its listeners, it starts the container at once.
	 * (A direct {@link DelayedListenerContainer#start()} is not checked like this.)
	 * @param id the container's id
	 * @throws IllegalArgumentException when no container has the id
	 * @throws IllegalStateException once the registry has stopped (the context was stopped or
	 * is closing): a container started then would outlive it
	 */
	public void startListenerContainer(String id) {
		DelayedListenerContainer container;
		synchronized (this) {
			container = container(id);
			if (this.stopped) {
				throw new IllegalStateException("Listener container '" + id + "' is not started: the listener"
						+ " containers are stopped (the context was stopped or is closing); start the context first");
			}
		}
		startChecked(container);
	}

	/**
	 * Stops the container with an id and waits until it has stopped (its running handlers
	 * end, up to its shutdown timeout); on one of the container's own threads it does not
	 * wait. It stays registered: {@link #startListenerContainer(String)} starts it again.
	 * Does nothing when it is stopped.
	 * @param id the container's id
	 * @throws IllegalArgumentException when no container has the id
	 */
	public void stopListenerContainer(String id) {
		stopAndWait(container(id));
	}

	/**
	 * Stops the container with an id as {@link #stopListenerContainer(String)} does and
	 * removes it: its id may be registered again. Jobs it had reserved but not started are
	 * given back; jobs whose handler outlived the shutdown timeout are redelivered after
	 * their TTR, as after any stop.
	 * @param id the container's id
	 * @return the container, stopped, or {@code null} when no container has the id
	 */
	public DelayedListenerContainer unregisterListenerContainer(String id) {
		DelayedListenerContainer container;
		synchronized (this) {
			container = this.containers.remove(id);
		}
		if (container != null) {
			stopAndWait(container);
		}
		return container;
	}

	private synchronized DelayedListenerContainer container(String id) {
		DelayedListenerContainer container = this.containers.get(id);
		if (container == null) {
			throw new IllegalArgumentException(
					"No listener container has id '" + id + "' (registered: " + this.containers.keySet() + ")");
		}
		return container;
	}

	/**
	 * Stops a container and waits for it, unless on a listener container's own thread.
	 */
	private static void stopAndWait(DelayedListenerContainer container) {
		if (DelayedListenerContainer.isContainerThread()) {
			container.stop(() -> {
			});
			return;
		}
		CountDownLatch done = new CountDownLatch(1);
		container.stop(done::countDown);
		await(done);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Every registered container.
	 * @return a snapshot of the containers
	 */
	public synchronized Collection<DelayedListenerContainer> getListenerContainers() {
		return Collections.unmodifiableCollection(new ArrayList<>(this.containers.values()));
	}

	@Override
	public void start() {
		List<DelayedListenerContainer> starting;
		synchronized (this) {
			this.stopped = false;
			this.running = true;
			starting = this.containers.values().stream().filter(DelayedListenerContainer::isAutoStartup).toList();
		}
		starting.forEach(this::startChecked);
	}

	/**
	 * Stops every container and waits until they have stopped; on a thread of a listener
	 * container it does not wait (it would wait for itself).
	 */
	@Override
	public void stop() {
		if (DelayedListenerContainer.isContainerThread()) {
			stop(() -> {
			});
			return;
		}
		CountDownLatch done = new CountDownLatch(1);
		stop(done::countDown);
		await(done);
	}

	/**
	 * Stops every container, also those whose stop is under way already, and runs the
	 * callback when all have stopped (each waits for its running handlers up to its shutdown
	 * timeout). Starts under way on other threads end first: a container they start is
	 * stopped with the others.
	 */
	@Override
	public void stop(Runnable callback) {
		Collection<DelayedListenerContainer> running;
		synchronized (this) {
			this.running = false;
			this.stopped = true;
			Thread self = Thread.currentThread();
			while (this.starting.stream().anyMatch((thread) -> thread != self)) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			running = List.copyOf(this.containers.values());
		}
		if (running.isEmpty()) {
			callback.run();
			return;
		}
		CountDownLatch remaining = new CountDownLatch(running.size());
		for (DelayedListenerContainer container : running) {
			Thread stopper = new Thread(() -> container.stop(remaining::countDown), "delayqueue-stop-" + container.getId());
			stopper.start();
		}
		Thread waiter = new Thread(() -> {
			await(remaining);
			callback.run();
		}, "delayqueue-stop");
		waiter.start();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public void destroy() {
		// also the containers started by id after the registry stopped, or before it started
		stop();
	}

}
