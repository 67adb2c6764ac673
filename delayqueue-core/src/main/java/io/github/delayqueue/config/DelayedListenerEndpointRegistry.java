package io.github.delayqueue.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.listener.DelayedListenerContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Holds every listener container and is their one {@link SmartLifecycle}: containers start
 * after everything else (phase {@value #PHASE}) and stop first, in parallel. Containers can be
 * registered, started, stopped and removed by id at run time.
 */
public class DelayedListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

	/** The lifecycle phase, late. */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private final Map<String, Registered> containers = new LinkedHashMap<>();

	private volatile boolean running;

	// set by stop, cleared by start
	private boolean stopped;

	// starts under way, each entered while holding the lock that decided it
	private final List<Start> starting = new ArrayList<>();

	// unregistered containers still stopping; the registry's stop waits for them
	private final Set<DelayedListenerContainer> unregistering = ConcurrentHashMap.newKeySet();

	private record Start(Thread thread, DelayedListenerContainer container) {
	}

	private record Registered(DelayedListenerEndpoint endpoint, DelayedListenerContainer container) {
	}

	/**
	 * Create and register an endpoint's container; it starts when the registry runs and the
	 * container starts by itself.
	 * @param endpoint the endpoint
	 * @param factory the factory of its container
	 * @return the container
	 * @throws InvalidDelayedListenerException when the endpoint is invalid, its id is taken or
	 * its topic exclusive; nothing is registered then
	 */
	public DelayedListenerContainer registerListenerContainer(DelayedListenerEndpoint endpoint,
			DelayedListenerContainerFactory factory) {
		Assert.notNull(endpoint, "endpoint must not be null");
		Assert.notNull(factory, "factory must not be null");
		String id = endpoint.id();
		if (!StringUtils.hasText(id)) {
			throw new InvalidDelayedListenerException(endpoint.describe(), "has no id", "give it an id", null);
		}
		try {
			JobConstraints.topic(endpoint.topic());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidDelayedListenerException(endpoint.describe(),
					"has an invalid topic (" + ex.getMessage() + ")", "fix the topic", ex);
		}
		checkFree(endpoint);
		// made outside the lock: the factory runs foreign code
		DelayedListenerContainer container = factory.createContainer(endpoint);
		if (container == null || !id.equals(container.getId())) {
			throw new InvalidDelayedListenerException(endpoint.describe(),
					"got no container with its id '" + id + "' from " + factory.getClass().getName(),
					"have the factory return a container with the endpoint's id", null);
		}
		Registered registered = new Registered(endpoint, container);
		Start start = null;
		synchronized (this) {
			checkFree(endpoint);
			this.containers.put(id, registered);
			if (this.running && container.isAutoStartup()) {
				start = beginStart(container);
			}
		}
		if (start != null) {
			try {
				finishStart(start);
			}
			catch (RuntimeException | Error ex) {
				// a container that could not start is not kept: its id stays free
				synchronized (this) {
					this.containers.remove(id, registered);
				}
				throw ex;
			}
		}
		return container;
	}

	private synchronized void checkFree(DelayedListenerEndpoint endpoint) {
		if (this.containers.containsKey(endpoint.id())) {
			throw new InvalidDelayedListenerException(endpoint.describe(),
					"uses id '" + endpoint.id() + "', which another listener has already",
					"give each listener its own id", null);
		}
		for (Registered registered : this.containers.values()) {
			DelayedListenerEndpoint other = registered.endpoint();
			if (other.topic().equals(endpoint.topic()) && (endpoint.exclusive() || other.exclusive())) {
				DelayedListenerEndpoint alone = endpoint.exclusive() ? endpoint : other;
				throw new InvalidDelayedListenerException(endpoint.describe(),
						"shares topic '" + endpoint.topic() + "' with " + other.describe() + ", and "
								+ ((alone == endpoint) ? "it" : "that one") + " must be the topic's only listener",
						"give one of them another topic", null);
			}
		}
	}

	/** Enters a start: a stop or unregister meanwhile waits for it. */
	private Start beginStart(DelayedListenerContainer container) {
		Start start = new Start(Thread.currentThread(), container);
		this.starting.add(start);
		return start;
	}

	/** Starts outside the lock; stops again when the registry stopped or it was unregistered meanwhile. */
	private void finishStart(Start start) {
		DelayedListenerContainer container = start.container();
		boolean stop;
		try {
			container.start();
		}
		finally {
			synchronized (this) {
				this.starting.remove(start);
				notifyAll();
				stop = this.stopped || getListenerContainer(container.getId()) != container;
			}
		}
		if (stop) {
			container.stop();
		}
	}

	/** Waits, holding the lock, until no other thread starts a matching container. */
	private void awaitStarts(Predicate<Start> matching) {
		Thread self = Thread.currentThread();
		while (this.starting.stream().anyMatch((start) -> start.thread() != self && matching.test(start))) {
			try {
				wait();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * Return the container with an id.
	 * @param id the id
	 * @return the container, or {@code null}
	 */
	public synchronized @Nullable DelayedListenerContainer getListenerContainer(String id) {
		Registered registered = this.containers.get(id);
		return (registered != null) ? registered.container() : null;
	}

	/**
	 * Start the container with an id; does nothing when it runs.
	 * @param id the container's id
	 * @throws IllegalArgumentException when no container has the id
	 * @throws IllegalStateException once the registry has stopped
	 */
	public void startListenerContainer(String id) {
		Start start;
		synchronized (this) {
			DelayedListenerContainer container = container(id);
			if (this.stopped) {
				throw new IllegalStateException("Listener container '" + id + "' is not started: the listener"
						+ " containers are stopped (the context was stopped or is closing); start the context first");
			}
			start = beginStart(container);
		}
		finishStart(start);
	}

	/**
	 * Stop the container with an id, waiting for it unless on a container's own thread; it
	 * stays registered.
	 * @param id the container's id
	 * @throws IllegalArgumentException when no container has the id
	 */
	public void stopListenerContainer(String id) {
		stopAndWait(container(id)::stop, () -> {
		});
	}

	/**
	 * Remove the container with an id and stop it as {@link #stopListenerContainer(String)}
	 * does; the id is free again at once.
	 * @param id the container's id
	 * @return the container, or {@code null} when no container has the id
	 */
	public @Nullable DelayedListenerContainer unregisterListenerContainer(String id) {
		Registered registered;
		synchronized (this) {
			registered = this.containers.get(id);
			if (registered == null) {
				return null;
			}
			awaitStarts((start) -> start.container() == registered.container());
			if (!this.containers.remove(id, registered)) {
				// unregistered by another thread meanwhile
				return null;
			}
			this.unregistering.add(registered.container());
		}
		DelayedListenerContainer container = registered.container();
		stopAndWait(container::stop, () -> this.unregistering.remove(container));
		return container;
	}

	private synchronized DelayedListenerContainer container(String id) {
		DelayedListenerContainer container = getListenerContainer(id);
		if (container == null) {
			throw new IllegalArgumentException(
					"No listener container has id '" + id + "' (registered: " + this.containers.keySet() + ")");
		}
		return container;
	}

	/** Stops and waits for it, unless on a container's own thread; then runs the callback. */
	private static void stopAndWait(Consumer<Runnable> stop, Runnable callback) {
		if (DelayedListenerContainer.isContainerThread()) {
			stop.accept(callback);
			return;
		}
		CountDownLatch done = new CountDownLatch(1);
		stop.accept(() -> {
			try {
				callback.run();
			}
			finally {
				done.countDown();
			}
		});
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

	/** Return a snapshot of every registered container. */
	public synchronized Collection<DelayedListenerContainer> getListenerContainers() {
		return this.containers.values().stream().map(Registered::container).toList();
	}

	@Override
	public void start() {
		List<Start> starts;
		synchronized (this) {
			this.stopped = false;
			this.running = true;
			starts = getListenerContainers().stream()
				.filter(DelayedListenerContainer::isAutoStartup)
				.map(this::beginStart)
				.toList();
		}
		for (int i = 0; i < starts.size(); i++) {
			try {
				finishStart(starts.get(i));
			}
			catch (RuntimeException | Error ex) {
				// the starts not made are no longer under way
				synchronized (this) {
					this.starting.removeAll(starts.subList(i + 1, starts.size()));
					notifyAll();
				}
				throw ex;
			}
		}
	}

	/** Stops every container and waits for them, unless on a container's own thread. */
	@Override
	public void stop() {
		stopAndWait(this::stop, () -> {
		});
	}

	/** Stops every container, unregistered ones still stopping included; the callback runs when all stopped. */
	@Override
	public void stop(Runnable callback) {
		Collection<DelayedListenerContainer> running;
		synchronized (this) {
			this.running = false;
			this.stopped = true;
			awaitStarts((start) -> true);
			Set<DelayedListenerContainer> all = new LinkedHashSet<>(getListenerContainers());
			all.addAll(this.unregistering);
			running = List.copyOf(all);
		}
		if (running.isEmpty()) {
			callback.run();
			return;
		}
		CountDownLatch remaining = new CountDownLatch(running.size());
		for (DelayedListenerContainer container : running) {
			new Thread(() -> container.stop(remaining::countDown), "delayqueue-stop-" + container.getId()).start();
		}
		new Thread(() -> {
			await(remaining);
			callback.run();
		}, "delayqueue-stop").start();
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
		// also containers started by id before the registry started
		stop();
	}

}
