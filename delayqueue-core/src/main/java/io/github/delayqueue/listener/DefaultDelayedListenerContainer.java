package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.github.delayqueue.core.DelayQueueOperations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.util.Assert;

/**
 * The default {@link DelayedListenerContainer}: a consumer thread reserves jobs of one topic
 * and handler threads run them; a listener that returns finishes its job, one that throws
 * hands it to the {@link DelayedJobErrorHandler}. Thread-safe.
 */
public class DefaultDelayedListenerContainer implements DelayedListenerContainer {

	private static final Log logger = LogFactory.getLog(DelayedListenerContainer.class);

	private final ContainerProperties properties;

	private final DelayQueueOperations operations;

	private final JobInvoker invoker;

	private final Object pauseMonitor = new Object();

	private volatile boolean running;

	private volatile boolean paused;

	private volatile long lastProgressNanos = System.nanoTime();

	// when the last job started (or the container, or the end of a pause), and the last idle event
	private volatile long lastJobNanos = System.nanoTime();

	private volatile long lastIdleEventNanos = System.nanoTime();

	/** The container whose consumer, handler or settler thread this is; unset elsewhere. */
	static final ThreadLocal<DefaultDelayedListenerContainer> OWNER = new ThreadLocal<>();

	// completed when the last stop has ended (completed while none was made)
	private CompletableFuture<Void> stopped = CompletableFuture.completedFuture(null);

	private @Nullable ListenerConsumer consumer;

	/**
	 * Create a container.
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

	@Override
	public String getId() {
		return this.properties.getId();
	}

	@Override
	public String getTopic() {
		return this.properties.getTopic();
	}

	@Override
	public int getConcurrency() {
		return this.properties.getConcurrency();
	}

	@Override
	public int getInFlight() {
		return this.invoker.inFlight();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public boolean isAutoStartup() {
		return this.properties.isAutoStartup();
	}

	@Override
	public boolean isPaused() {
		return this.paused;
	}

	@Override
	public long getLastProgressNanos() {
		return this.lastProgressNanos;
	}

	@Override
	public void start() {
		synchronized (this) {
			if (this.running) {
				return;
			}
			this.running = true;
			this.lastJobNanos = System.nanoTime();
			this.consumer = new ListenerConsumer(this, this.operations, this.invoker);
			this.consumer.start();
		}
		logger.info("Started listener '" + this.properties.getId() + "' on topic '" + this.properties.getTopic()
				+ "' with concurrency " + this.properties.getConcurrency());
		publish(new DelayedListenerContainerStartedEvent(this));
	}

	@Override
	public void pause() {
		if (setPaused(true)) {
			publish(new DelayedListenerContainerPausedEvent(this));
		}
	}

	@Override
	public void resume() {
		if (setPaused(false)) {
			publish(new DelayedListenerContainerResumedEvent(this));
		}
	}

	/** Pauses or ends a pause, waking the consumer; whether that changed the state. */
	private boolean setPaused(boolean paused) {
		synchronized (this.pauseMonitor) {
			boolean changed = this.paused != paused;
			this.paused = paused;
			if (changed && !paused) {
				this.lastJobNanos = System.nanoTime();
			}
			this.pauseMonitor.notifyAll();
			return changed;
		}
	}

	@Override
	public void stop() {
		stop(() -> {
		});
	}

	@Override
	@SuppressWarnings("NullAway") // the shutdown runs only with a consumer
	public void stop(Runnable callback) {
		ListenerConsumer consumer;
		CompletableFuture<Void> done;
		synchronized (this) {
			consumer = this.running ? this.consumer : null;
			if (consumer != null) {
				this.running = false;
				consumer.beginStop();
				this.stopped = new CompletableFuture<>();
			}
			done = this.stopped;
		}
		done.whenComplete((result, failure) -> callback.run());
		if (consumer == null) {
			return;
		}
		setPaused(false);
		Runnable shutdown = () -> {
			try {
				consumer.shutdown();
				publish(new DelayedListenerContainerStoppedEvent(this));
			}
			finally {
				done.complete(null);
			}
		};
		if (OWNER.get() == this) {
			// a container's own thread must not wait for itself
			new Thread(shutdown, "delayqueue-stop-" + this.properties.getId()).start();
		}
		else {
			shutdown.run();
		}
	}

	/** Return the settings the container runs with. */
	public ContainerProperties getContainerProperties() {
		return this.properties;
	}

	/** Whether new jobs may start: running and not paused. */
	boolean isTaking() {
		return this.running && !this.paused;
	}

	/** Records a busy moment (a job started), or publishes a {@link DelayedListenerIdleEvent} when due. */
	void checkIdle(long nanos, boolean busy) {
		Duration interval = this.properties.getIdleEventInterval();
		if (busy) {
			this.lastJobNanos = nanos;
		}
		else if (interval != null && isTaking() && nanos - this.lastJobNanos >= interval.toNanos()
				&& nanos - this.lastIdleEventNanos >= interval.toNanos()) {
			this.lastIdleEventNanos = nanos;
			publish(new DelayedListenerIdleEvent(this, Duration.ofNanos(nanos - this.lastJobNanos)));
		}
	}

	/** Publishes an event when there is a publisher; what its listeners throw is logged. */
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

	/** Records progress for {@link #getLastProgressNanos()}. */
	void progressed(long nanos) {
		this.lastProgressNanos = nanos;
	}

	/** Blocks while paused and running, recording progress after each wait. */
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
