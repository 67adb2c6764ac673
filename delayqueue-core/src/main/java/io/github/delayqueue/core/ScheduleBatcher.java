package io.github.delayqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Writes the jobs of {@link JobBuilder#scheduleAsync()} in batches: the requests that arrive
 * while a batch is written form the next one. One thread writes, in submission order.
 */
final class ScheduleBatcher implements AutoCloseable {

	/** The most requests that wait; {@link #submit} blocks beyond it. */
	static final int MAX_PENDING = 10_000;

	/** The most requests written by one {@code scheduleAll} call. */
	static final int MAX_BATCH = 1_000;

	/** How long {@link #flush()} waits. */
	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(ScheduleBatcher.class);

	private final DelayQueueProducer operations;

	private final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>(MAX_PENDING);

	private final ThreadPoolExecutor writer;

	private volatile boolean closed;

	ScheduleBatcher(DelayQueueProducer operations) {
		this.operations = operations;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-schedule-");
		threads.setDaemon(true);
		this.writer = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
		this.writer.allowCoreThreadTimeOut(true);
	}

	/** Throws {@link IllegalStateException} when the template is closed. */
	void checkOpen() {
		if (this.closed) {
			throw new IllegalStateException("DelayedJobTemplate is closed: no more jobs can be scheduled asynchronously");
		}
	}

	/**
	 * Queues a request that passed {@link DelayQueueProducer#check} for the next batch; the
	 * future completes once it is written, or with what writing its batch threw.
	 */
	CompletableFuture<ScheduleResult> submit(ScheduleRequest request) {
		checkOpen();
		Pending entry = new Pending(request, new CompletableFuture<>());
		try {
			this.pending.put(entry);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			entry.result().completeExceptionally(ex);
			return entry.result();
		}
		try {
			this.writer.execute(this::drain);
		}
		catch (RejectedExecutionException ex) {
			// closed meanwhile: whatever is still queued will not be written
			failAll(new IllegalStateException("DelayedJobTemplate is closed: the job was not scheduled"));
		}
		return entry.result();
	}

	/**
	 * Writes the next batch, if any: each submit queues a drain, so the drain after a write
	 * finds what arrived meanwhile; those that then find nothing end at once.
	 */
	private void drain() {
		List<Pending> batch = new ArrayList<>();
		this.pending.drainTo(batch, MAX_BATCH);
		if (batch.isEmpty()) {
			return;
		}
		try {
			List<ScheduleResult> results = this.operations.scheduleAll(batch.stream().map(Pending::request).toList());
			for (int i = 0; i < batch.size(); i++) {
				batch.get(i).result().complete(results.get(i));
			}
		}
		catch (RuntimeException ex) {
			fail(batch, ex);
		}
		catch (Error ex) {
			// no caller is left waiting: the batch fails; what was queued meanwhile has drains of its own,
			// run by the writer's next thread
			fail(batch, ex);
			throw ex;
		}
	}

	private void failAll(Throwable cause) {
		List<Pending> left = new ArrayList<>();
		this.pending.drainTo(left);
		fail(left, cause);
	}

	private static void fail(List<Pending> entries, Throwable cause) {
		entries.forEach((entry) -> entry.result().completeExceptionally(cause));
	}

	/** Waits, up to 30 seconds, until every request queued so far is written or failed. */
	void flush() {
		try {
			// one writer thread: this runs after the drain that writes what is queued so far
			this.writer.submit(() -> {
			}).get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			logger.warn("Asynchronous schedules still being written after " + CLOSE_TIMEOUT.toSeconds() + " s");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | RejectedExecutionException ex) {
			// closed: nothing more is written
		}
	}

	/** Stops taking requests and {@linkplain #flush() waits}; those still queued then fail. */
	@Override
	public void close() {
		this.closed = true;
		flush();
		this.writer.shutdown();
		failAll(new IllegalStateException("DelayedJobTemplate closed before the job was written"));
	}

	private record Pending(ScheduleRequest request, CompletableFuture<ScheduleResult> result) {
	}

}
