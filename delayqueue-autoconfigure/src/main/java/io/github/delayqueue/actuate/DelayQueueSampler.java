package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.QueueStats;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Reads the queue's figures ({@link DelayQueueAdmin#stats()}) on its own thread every
 * interval and keeps the latest reading for the gauges and the health indicator. A failed
 * reading keeps the last one. Readings run one at a time, each applied before the next starts,
 * so an earlier reading never replaces a later one. Thread-safe.
 */
public class DelayQueueSampler implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(DelayQueueSampler.class);

	private final DelayQueueAdmin operations;

	private final Duration interval;

	private final List<Consumer<QueueStats>> listeners = new CopyOnWriteArrayList<>();

	private final Object reading = new Object();

	private volatile @Nullable QueueStats latest;

	private volatile boolean failing;

	private volatile boolean stopped;

	private @Nullable ScheduledExecutorService executor;

	/** Creates a sampler of the queue, reading every {@code interval}; {@link #start()} starts its thread. */
	public DelayQueueSampler(DelayQueueAdmin operations, Duration interval) {
		this.operations = operations;
		this.interval = interval;
	}

	/** The latest reading, or {@code null} before the first successful one. */
	public @Nullable QueueStats getLatest() {
		return this.latest;
	}

	/** Adds a fast callback told of each successful reading; what it throws is logged. */
	public void addListener(Consumer<QueueStats> listener) {
		this.listeners.add(listener);
	}

	/** Reads the figures now, after a reading in flight. */
	public void sample() {
		synchronized (this.reading) {
			QueueStats stats;
			try {
				stats = this.operations.stats();
			}
			catch (RuntimeException ex) {
				if (this.stopped) {
					// stop() interrupts a reading in flight: that is no failure to report
					return;
				}
				if (!this.failing) {
					logger.warn("delayqueue sampler could not read the figures from Redis (keeping the last reading): "
							+ ex.getMessage());
					this.failing = true;
				}
				return;
			}
			if (this.failing) {
				logger.info("delayqueue sampler reads the figures from Redis again");
				this.failing = false;
			}
			this.latest = stats;
			for (Consumer<QueueStats> listener : this.listeners) {
				try {
					listener.accept(stats);
				}
				catch (RuntimeException ex) {
					logger.warn("delayqueue sampler listener failed", ex);
				}
			}
		}
	}

	@Override
	public synchronized void start() {
		if (this.executor == null) {
			CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-sampler-");
			threads.setDaemon(true);
			this.stopped = false;
			this.executor = Executors.newSingleThreadScheduledExecutor(threads);
			this.executor.scheduleWithFixedDelay(this::sample, 0, this.interval.toMillis(), TimeUnit.MILLISECONDS);
		}
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.stopped = true;
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
