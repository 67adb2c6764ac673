package io.github.delayqueue.outbox;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueProducer;
import io.github.delayqueue.core.DelayedJobTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Runs {@link JdbcJobOutbox#recover} on a thread of its own: once at start, then every
 * {@code interval}, until a pass finds nothing more. What a pass throws is logged and the
 * next pass tries again. Every instance runs one; the outbox's claims keep them from
 * relaying a transaction twice.
 */
public class JobOutboxRecovery implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(JobOutboxRecovery.class);

	private final JdbcJobOutbox outbox;

	private final DelayQueueProducer producer;

	private final Duration interval;

	private volatile @Nullable ScheduledExecutorService executor;

	private volatile boolean stopping;

	/**
	 * Creates a recovery.
	 * @param outbox the outbox
	 * @param producer where the recovered writes go
	 * @param interval the time between passes
	 */
	public JobOutboxRecovery(JdbcJobOutbox outbox, DelayQueueProducer producer, Duration interval) {
		Assert.notNull(outbox, "outbox must not be null");
		Assert.notNull(producer, "producer must not be null");
		Assert.isTrue(interval != null && interval.compareTo(Duration.ZERO) > 0, "interval must be positive");
		this.outbox = outbox;
		this.producer = producer;
		this.interval = interval;
	}

	/**
	 * Runs passes until one relays less than a full page.
	 * @return how many transactions were relayed
	 */
	public int recover() {
		int total = 0;
		int relayed;
		do {
			relayed = this.outbox.recover(this.producer);
			total += relayed;
		}
		// a stop waits for the page under way, not for the rest
		while (relayed == JdbcJobOutbox.MAX_TRANSACTIONS_PER_PASS && !this.stopping);
		return total;
	}

	private void recoverQuietly() {
		try {
			recover();
		}
		catch (Throwable ex) {
			// an Error too: a scheduled task that throws is never run again
			logger.warn("Delayed job outbox recovery failed; the next pass in " + this.interval + " tries again", ex);
		}
	}

	@Override
	public void start() {
		if (this.executor != null) {
			return;
		}
		this.stopping = false;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-outbox-");
		threads.setDaemon(true);
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(threads);
		executor.scheduleWithFixedDelay(this::recoverQuietly, 0, this.interval.toMillis(), TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor == null) {
			return;
		}
		this.executor = null;
		this.stopping = true;
		executor.shutdown();
		try {
			// a pass under way finishes its transaction (its claim would hold it otherwise)
			executor.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

	/**
	 * Stops with the template, before the Redis connection factory.
	 */
	@Override
	public int getPhase() {
		return DelayedJobTemplate.PHASE;
	}

}
