package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.util.Assert;

/**
 * The {@link DelayedListenerContainer}: runs one listener endpoint for one topic. A consumer
 * thread ({@code ListenerConsumer}) waits for work without polling and reserves jobs; handler
 * threads ({@code BatchRunner}) run them in batches of the same bucket, each finished together
 * with the reservation of the next batch; a {@code JobInvoker} calls the listener. Return →
 * finish; any {@link Throwable} → the {@link DelayedJobErrorHandler} (by default: retry after
 * the back-off, then the {@link DelayedJobRecoverer}), by the job's
 * {@link ReservedJob#maxAttempts()}.
 *
 * <p>
 * The consumer loop outlives any failure of a Redis call and backs off meanwhile
 * ({@link #getLastProgressNanos()} stands still). {@link #stop(Runnable)} stops reserving,
 * lets running handlers finish within the shutdown timeout and gives back the jobs not
 * started (attempt not counted). Not a bean: the
 * {@link io.github.delayqueue.config.DelayedListenerEndpointRegistry} manages containers.
 * Thread-safe.
 */
public class DefaultDelayedListenerContainer implements DelayedListenerContainer {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	private final ContainerProperties properties;

	private final DelayQueueOperations operations;

	private final JobInvoker invoker;

	private final BatchSize batchSize = new BatchSize();

	private final Object pauseMonitor = new Object();

	private volatile boolean running;


	private volatile boolean paused;

	private volatile long lastProgressNanos = System.nanoTime();

	// when the last job started (or the container did), and the last idle event
	private volatile long lastJobNanos = System.nanoTime();

	private volatile long lastIdleEventNanos = System.nanoTime();

	/** The container whose consumer, handler or settler thread this is; unset elsewhere. */
	static final ThreadLocal<DefaultDelayedListenerContainer> OWNER = new ThreadLocal<>();

	// completed when the last stop has ended (completed while none was made)
	private CompletableFuture<Void> stopped = CompletableFuture.completedFuture(null);

	private @Nullable ListenerConsumer consumer;

	/**
	 * Creates a container; a
	 * {@link io.github.delayqueue.config.DelayedListenerContainerFactory} makes them.
	 * @param properties the container's settings
	 * @param operations the queue it reserves from and settles with
	 * @param handler the endpoint's listener
	 */
	public DefaultDelayedListenerContainer(ContainerProperties properties, DelayQueueOperations operations,
			DelayedJobHandler handler) {
		Assert.notNull(properties, "properties must not be null");
		this.properties = properties;
		this.operations = operations;
		this.invoker = new JobInvoker(properties, handler, this, operations);
	}

	/**
	 * The container's id, unique in the registry.
	 * @return the id
	 */
	@Override
	public String getId() {
		return this.properties.getId();
	}

	/**
	 * The topic it consumes.
	 * @return the topic
	 */
	@Override
	public String getTopic() {
		return this.properties.getTopic();
	}

	/**
	 * How many handlers may run at once.
	 * @return the concurrency
	 */
	@Override
	public int getConcurrency() {
		return this.properties.getConcurrency();
	}

	/**
	 * How many handlers run now.
	 * @return the count
	 */
	@Override
	public int getInFlight() {
		return this.invoker.inFlight();
	}

	/**
	 * Whether the container is started (paused or not).
	 * @return {@code true} from {@link #start()} until a stop begins
	 */
	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Whether the registry starts the container with the context.
	 * @return the listener's {@code autoStartup}
	 */
	@Override
	public boolean isAutoStartup() {
		return this.properties.isAutoStartup();
	}

	/**
	 * Whether the container is paused.
	 * @return {@code true} between {@link #pause()} and {@link #resume()}
	 */
	@Override
	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * The state as the Actuator support shows it.
	 * @return {@code running}, {@code paused} (running, taking no new jobs) or {@code stopped}
	 */
	@Override
	public String getState() {
		return !this.running ? "stopped" : this.paused ? "paused" : "running";
	}

	/**
	 * When the container last made progress, by {@link System#nanoTime()}: the consumer
	 * loop completed a round (a reserve, or a wait for work that timed out; about every
	 * {@value ListenerConsumer#WAIT_MILLIS} ms when idle or paused), or a handler returned.
	 * It stands still only while every handler slot is taken by a handler that does not
	 * return, or the loop is stuck or failing (every reserve throws: the loop backs off and
	 * retries, at most {@value ListenerConsumer#ERROR_BACK_OFF_MAX_MILLIS} ms apart).
	 * @return the nano time
	 */
	@Override
	public long getLastProgressNanos() {
		return this.lastProgressNanos;
	}

	/**
	 * Starts the consumer thread and the handler threads; does nothing when started
	 * already.
	 */
	@Override
	public void start() {
		synchronized (this) {
			if (this.running) {
				return;
			}
			this.running = true;
			long now = System.nanoTime();
			this.lastJobNanos = now;
			this.lastIdleEventNanos = now;
			this.consumer = new ListenerConsumer(this, this.operations, this.invoker, this.batchSize);
			this.consumer.start();
		}
		logger.info("Started listener '" + this.properties.getId() + "' on topic '" + this.properties.getTopic()
				+ "' with concurrency " + this.properties.getConcurrency());
		publish(new DelayedListenerContainerStartedEvent(this));
	}

	/**
	 * Stops taking new jobs until {@link #resume()}; running handlers go on. Jobs that a
	 * reserve under way at that moment returns are given back unstarted.
	 */
	@Override
	public void pause() {
		boolean paused;
		synchronized (this.pauseMonitor) {
			paused = !this.paused;
			this.paused = true;
		}
		if (paused) {
			publish(new DelayedListenerContainerPausedEvent(this));
		}
	}

	/**
	 * Takes jobs again after {@link #pause()}.
	 */
	@Override
	public void resume() {
		if (unpause()) {
			publish(new DelayedListenerContainerResumedEvent(this));
		}
	}

	/**
	 * Ends a pause and wakes the consumer thread.
	 * @return whether the container was paused
	 */
	private boolean unpause() {
		synchronized (this.pauseMonitor) {
			boolean paused = this.paused;
			this.paused = false;
			if (paused) {
				// idleness is counted from the end of a pause
				long now = System.nanoTime();
				this.lastJobNanos = now;
				this.lastIdleEventNanos = now;
			}
			this.pauseMonitor.notifyAll();
			return paused;
		}
	}

	/**
	 * Stops as {@link #stop(Runnable)} does, without a callback.
	 */
	@Override
	public void stop() {
		stop(() -> {
		});
	}

	/**
	 * Stops reserving, waits for running handlers up to the shutdown timeout, gives back
	 * jobs that were reserved but not started, then runs the callback. Ends a pause (without
	 * a resumed event). When a stop is under way already, the callback runs when it ends; on
	 * a stopped container, at once. Called on one of this container's own threads (from its
	 * listener, an interceptor, an error handler or an event listener there), it returns at
	 * once and the stop goes on in the background: waiting would wait for the calling thread
	 * itself.
	 * @param callback run when stopped
	 */
	@Override
	@SuppressWarnings("NullAway") // the consumer is set while the container runs
	public void stop(Runnable callback) {

		ListenerConsumer stopped;
		CompletableFuture<Void> done;
		synchronized (this) {
			if (!this.running) {
				done = this.stopped;
				stopped = null;
			}
			else {
				this.running = false;
				stopped = this.consumer;
				stopped.beginStop();
				done = new CompletableFuture<>();
				this.stopped = done;
			}
		}
		done.whenComplete((result, failure) -> callback.run());
		if (stopped == null) {
			return;
		}
		unpause();
		Runnable shutdown = () -> {
			try {
				stopped.shutdown();
				publish(new DelayedListenerContainerStoppedEvent(this));
			}
			finally {
				done.complete(null);
			}
		};
		if (OWNER.get() == this) {
			try {
				new Thread(shutdown, "delayqueue-stop-" + this.properties.getId()).start();
				return;
			}
			catch (Throwable ex) {
				logger.warn("Listener '" + this.properties.getId() + "' could not stop in the background; stopping on the"
						+ " calling thread, which waits for the handlers up to the shutdown timeout", ex);
			}
		}
		shutdown.run();
	}

	/**
	 * The settings the container runs with.
	 * @return its properties
	 */
	public ContainerProperties getContainerProperties() {
		return this.properties;
	}

	/**
	 * Whether new jobs may start: running and not paused.
	 */
	boolean isTaking() {
		return this.running && !this.paused;
	}

	/**
	 * Records that a job starts, for the idle event.
	 * @param nanos the {@link System#nanoTime()} it starts at
	 */
	void jobStarted(long nanos) {
		this.lastJobNanos = nanos;
	}

	/**
	 * Publishes a {@link DelayedListenerIdleEvent} when the container runs, is not paused, has
	 * had no job for its idle event interval (none running now either), and published none
	 * for that long.
	 * @param nanos the {@link System#nanoTime()} now
	 * @param busy whether a job runs now
	 */
	void checkIdle(long nanos, boolean busy) {
		Duration interval = this.properties.getIdleEventInterval();
		if (interval == null || !isTaking()) {
			return;
		}
		if (busy) {
			// a job that runs is no idleness
			this.lastJobNanos = nanos;
			return;
		}
		long idle = nanos - this.lastJobNanos;
		if (idle >= interval.toNanos() && nanos - this.lastIdleEventNanos >= interval.toNanos()) {
			this.lastIdleEventNanos = nanos;
			publish(new DelayedListenerIdleEvent(this, Duration.ofNanos(idle)));
		}
	}

	/**
	 * Publishes an event of this container, when it has a publisher; what a listener of the
	 * event throws, an {@link Error} included, is logged.
	 * @param event the event
	 */
	void publish(DelayedListenerContainerEvent event) {
		ApplicationEventPublisher publisher = this.properties.getEventPublisher();
		if (publisher == null) {
			return;
		}
		try {
			publisher.publishEvent(event);
		}
		catch (Throwable ex) {
			logger.warn("Publishing " + event + " failed; the container goes on", ex);
		}
	}

	/**
	 * Records progress for {@link #getLastProgressNanos()}.
	 * @param nanos the {@link System#nanoTime()} of the progress
	 */
	void progressed(long nanos) {
		this.lastProgressNanos = nanos;
	}

	/**
	 * Blocks while the container is paused and running, recording progress after each wait.
	 * @param wait how long one wait for {@link #resume()} lasts
	 * @param stopped whether the caller's run was stopped (the container may run another)
	 * @throws InterruptedException when the calling thread is interrupted
	 */
	void awaitResume(Duration wait, BooleanSupplier stopped) throws InterruptedException {
		synchronized (this.pauseMonitor) {
			while (this.paused && this.running && !stopped.getAsBoolean()) {
				this.pauseMonitor.wait(wait.toMillis());
				this.lastProgressNanos = System.nanoTime();
			}
		}
	}

	@Override
	public String toString() {
		return "DefaultDelayedListenerContainer[id=" + this.properties.getId() + ", topic=" + this.properties.getTopic() + "]";
	}

}
