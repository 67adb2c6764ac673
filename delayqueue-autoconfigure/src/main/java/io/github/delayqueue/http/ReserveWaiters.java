package io.github.delayqueue.http;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Reserve requests of the HTTP job API that wait for jobs (long polling), without a thread
 * or a Redis command per waiting request.
 *
 * <p>
 * Waiters of a topic queue up in arrival order. While a topic has waiters, one thread of its
 * own serves them: it reserves for the first waiter and, when nothing is READY, sleeps in
 * {@link DelayQueueOperations#awaitWork} until the queue announces jobs of the topic (a
 * promotion, a schedule, a retry, from any instance). A waiter whose wait runs out is
 * answered with no jobs by a timer. Jobs reserved for a waiter that is gone by then (timed
 * out, client disconnected) are released: READY again at once, the attempt not counted.
 */
public class ReserveWaiters implements SmartLifecycle, DisposableBean {

	/**
	 * The lifecycle phase: {@code Integer.MAX_VALUE - 512}.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 512;

	private static final Log logger = LogFactory.getLog(ReserveWaiters.class);

	/** How long a topic's thread sleeps at most before it looks whether it still has waiters. */
	private static final Duration IDLE_CHECK = Duration.ofSeconds(1);

	private final DelayQueueOperations operations;

	private final int maxWaiting;

	private final ConcurrentMap<String, TopicWaiters> topics = new ConcurrentHashMap<>();

	private final AtomicInteger waiting = new AtomicInteger();

	private final CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-http-");

	private final ScheduledThreadPoolExecutor timeouts;

	private volatile boolean running;

	/**
	 * Creates the waiters of one application.
	 * @param operations the queue
	 * @param maxWaiting the most requests that may wait at once
	 * ({@code delayqueue.http.max-waiting}, at least 1)
	 */
	public ReserveWaiters(DelayQueueOperations operations, int maxWaiting) {
		Assert.notNull(operations, "operations must not be null");
		Assert.isTrue(maxWaiting > 0,
				() -> "delayqueue.http.max-waiting must be at least 1, was " + maxWaiting);
		this.operations = operations;
		this.maxWaiting = maxWaiting;
		this.threads.setDaemon(true);
		this.timeouts = new ScheduledThreadPoolExecutor(1, new CustomizableThreadFactory("delayqueue-http-timeout-"));
		this.timeouts.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Queues a request that waits for jobs of a topic.
	 * @param topic the topic
	 * @param max the most jobs to hand over
	 * @param ttr the time to run, or {@code null} for each job's own
	 * @param wait the longest wait
	 * @param answer takes the jobs (none on timeout) and returns whether the request was still
	 * there to take them
	 * @param failure takes an error of the queue (such as Redis being unreachable)
	 * @return what ends the wait without an answer (the request went away), or {@code null}
	 * when the request was not queued: as many requests as allowed are waiting already, or
	 * the waiters are stopped
	 */
	public @Nullable Runnable await(String topic, int max, @Nullable Duration ttr, Duration wait, Answer answer,
			Consumer<RuntimeException> failure) {
		if (!this.running) {
			return null;
		}
		if (this.waiting.incrementAndGet() > this.maxWaiting) {
			this.waiting.decrementAndGet();
			return null;
		}
		Waiter waiter = new Waiter(max, ttr, answer, failure);
		waiter.timeout = this.timeouts.schedule(() -> waiter.answer(List.of()), wait.toNanos(), TimeUnit.NANOSECONDS);
		this.topics.computeIfAbsent(topic, TopicWaiters::new).add(waiter);
		if (!this.running) {
			// stop() ran meanwhile and may have drained the queue before this waiter was in it
			waiter.answer(List.of());
		}
		return waiter::end;
	}

	/**
	 * How many requests are waiting now.
	 * @return the count
	 */
	public int getWaiting() {
		return this.waiting.get();
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Answers every waiting request with no jobs; the topics' threads end within
	 * {@link #IDLE_CHECK}.
	 */
	@Override
	public void stop() {
		this.running = false;
		for (TopicWaiters topic : this.topics.values()) {
			Waiter waiter;
			while ((waiter = topic.queue.poll()) != null) {
				waiter.answer(List.of());
			}
		}
	}

	@Override
	public void destroy() {
		this.timeouts.shutdownNow();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Stops before the web server's graceful shutdown (which waits for requests in progress)
	 * and before the queue; starts after the queue.
	 */
	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Answers a waiting request.
	 */
	@FunctionalInterface
	public interface Answer {

		/**
		 * Hands jobs to the request.
		 * @param jobs the jobs, none when the wait ran out
		 * @return {@code false} when the request was gone (answered, timed out, disconnected)
		 */
		boolean answer(List<ReservedJob> jobs);

	}

	private final class Waiter {

		final int max;

		final @Nullable Duration ttr;

		private final Answer answer;

		private final Consumer<RuntimeException> failure;

		private final AtomicBoolean done = new AtomicBoolean();

		volatile @Nullable ScheduledFuture<?> timeout;

		Waiter(int max, @Nullable Duration ttr, Answer answer, Consumer<RuntimeException> failure) {
			this.max = max;
			this.ttr = ttr;
			this.answer = answer;
			this.failure = failure;
		}

		boolean isDone() {
			return this.done.get();
		}

		/**
		 * Answers once; returns whether the jobs reached the request.
		 */
		boolean answer(List<ReservedJob> jobs) {
			return end() && this.answer.answer(jobs);
		}

		void fail(RuntimeException ex) {
			if (end()) {
				this.failure.accept(ex);
			}
		}

		/**
		 * Ends the wait; returns {@code false} when it had ended already.
		 */
		boolean end() {
			if (!this.done.compareAndSet(false, true)) {
				return false;
			}
			ReserveWaiters.this.waiting.decrementAndGet();
			ScheduledFuture<?> timeout = this.timeout;
			if (timeout != null) {
				timeout.cancel(false);
			}
			return true;
		}

	}

	/**
	 * The waiters of one topic and the thread that serves them while there are any.
	 */
	private final class TopicWaiters implements Runnable {

		private final String topic;

		final Queue<Waiter> queue = new ConcurrentLinkedQueue<>();

		private final AtomicBoolean serving = new AtomicBoolean();

		TopicWaiters(String topic) {
			this.topic = topic;
		}

		void add(Waiter waiter) {
			this.queue.add(waiter);
			if (this.serving.compareAndSet(false, true)) {
				ReserveWaiters.this.threads.newThread(this).start();
			}
		}

		@Override
		public void run() {
			Thread.currentThread().setName("delayqueue-http-" + this.topic);
			try {
				while (hasWaiters()) {
					try {
						serveFirst();
					}
					catch (RuntimeException ex) {
						// an answer that could not be written must not end the serving of the others
						logger.warn("Could not answer a reserve request of topic " + this.topic, ex);
					}
				}
			}
			catch (InterruptedException ex) {
				// only the waiting is interrupted: let a new thread serve whoever comes next
				this.serving.set(false);
				Thread.currentThread().interrupt();
			}
		}

		/**
		 * Whether a waiter is queued; when none is, the thread ends unless one came in the
		 * meantime and found the thread still serving.
		 */
		private boolean hasWaiters() {
			while (true) {
				Waiter first = this.queue.peek();
				if (first != null && first.isDone()) {
					this.queue.remove(first);
					continue;
				}
				if (first != null) {
					return true;
				}
				this.serving.set(false);
				if (this.queue.isEmpty() || !this.serving.compareAndSet(false, true)) {
					return false;
				}
			}
		}

		private void serveFirst() throws InterruptedException {
			Waiter waiter = this.queue.peek();
			if (waiter == null) {
				return;
			}
			List<ReservedJob> jobs;
			try {
				jobs = ReserveWaiters.this.operations.reserve(this.topic, waiter.max, waiter.ttr);
			}
			catch (RuntimeException ex) {
				this.queue.remove(waiter);
				waiter.fail(ex);
				return;
			}
			if (jobs.isEmpty()) {
				ReserveWaiters.this.operations.awaitWork(this.topic, IDLE_CHECK);
				return;
			}
			this.queue.remove(waiter);
			boolean delivered = false;
			try {
				delivered = waiter.answer(jobs);
			}
			finally {
				if (!delivered) {
					giveBack(jobs);
				}
			}
		}

		private void giveBack(List<ReservedJob> jobs) {
			for (ReservedJob job : jobs) {
				try {
					ReserveWaiters.this.operations.release(job);
				}
				catch (RuntimeException ex) {
					logger.warn("Could not give back job " + job.id() + " of topic " + this.topic
							+ " reserved for a request that is gone; it is delivered again when its TTR runs out", ex);
				}
			}
		}

	}

}
