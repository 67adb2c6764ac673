package io.github.delayqueue.http;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Reserve requests of the HTTP job API that wait for jobs (long polling), as a listener's
 * consumer does ({@link DelayQueueConsumer#awaitWork}, then a reserve), bounded to
 * {@code maxWaiting} requests at once, half of them per client, and {@code maxTopics} topics.
 * Thread safe.
 */
public class ReserveWaiters implements SmartLifecycle, DisposableBean {

	/**
	 * The lifecycle phase: {@code Integer.MAX_VALUE - 512}.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 512;

	/**
	 * The most topics with waiters at once, unless told otherwise
	 * ({@code delayqueue.http.max-topics}).
	 */
	public static final int DEFAULT_MAX_TOPICS = 100;

	private static final Log logger = LogFactory.getLog(ReserveWaiters.class);

	private final DelayQueueConsumer operations;

	private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();

	private final WaitingCounts counts;

	private final ThreadPoolExecutor threads;

	private volatile boolean running;

	/**
	 * Creates the waiters of one application, with at most {@value #DEFAULT_MAX_TOPICS} topics
	 * with waiters at once.
	 * @param operations the queue
	 * @param maxWaiting the most requests that may wait at once
	 * ({@code delayqueue.http.max-waiting}, at least 1)
	 */
	public ReserveWaiters(DelayQueueConsumer operations, int maxWaiting) {
		this(operations, maxWaiting, DEFAULT_MAX_TOPICS);
	}

	/**
	 * Creates the waiters of one application.
	 * @param operations the queue
	 * @param maxWaiting the most requests that may wait at once
	 * ({@code delayqueue.http.max-waiting}, at least 1)
	 * @param maxTopics the most topics that may have waiters at once
	 * ({@code delayqueue.http.max-topics}, at least 1)
	 */
	public ReserveWaiters(DelayQueueConsumer operations, int maxWaiting, int maxTopics) {
		Assert.notNull(operations, "operations must not be null");
		Assert.isTrue(maxWaiting > 0, () -> "delayqueue.http.max-waiting must be at least 1, was " + maxWaiting);
		Assert.isTrue(maxTopics > 0, () -> "delayqueue.http.max-topics must be at least 1, was " + maxTopics);
		this.operations = operations;
		this.counts = new WaitingCounts(maxWaiting, maxTopics);
		CustomizableThreadFactory factory = new CustomizableThreadFactory("delayqueue-http-");
		factory.setDaemon(true);
		this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(),
				factory);
	}

	/**
	 * Lets a request wait for jobs of a topic. A client waits with at most half of
	 * {@code maxWaiting} requests (at least one), so that one client cannot hold every slot.
	 * @param topic the topic
	 * @param client who waits (a token, a principal), or {@code null} for a caller without a
	 * share of its own
	 * @param max the most jobs to hand over (1 to {@value DelayQueueConsumer#MAX_RESERVE})
	 * @param ttr the time to run, or {@code null} for each job's own
	 * @param wait the longest wait, not negative
	 * @param answer takes the jobs (none on timeout or stop) and returns whether the request
	 * was still there to take them (jobs it did not take are released)
	 * @param failure takes an error of the queue (such as Redis being unreachable)
	 * @return what ends the wait without an answer (the request went away)
	 * @throws WaitRefusedException when the request may not wait: the waiters are stopped, or
	 * a limit is reached (in all, of this client, or of topics); nothing is counted then
	 * @throws IllegalArgumentException when an argument breaks its rule
	 */
	public Runnable await(String topic, @Nullable String client, int max, @Nullable Duration ttr, Duration wait,
			Answer answer, Consumer<RuntimeException> failure) {
		JobConstraints.topic(topic);
		Assert.isTrue(max >= 1 && max <= DelayQueueConsumer.MAX_RESERVE,
				() -> "max must be between 1 and " + DelayQueueConsumer.MAX_RESERVE + ", was " + max);
		Assert.isTrue(wait != null && !wait.isNegative(), () -> "wait must not be negative, was " + wait);
		Assert.notNull(answer, "answer must not be null");
		Assert.notNull(failure, "failure must not be null");
		if (!this.running) {
			throw new WaitRefusedException(WaitRefusedException.Reason.STOPPED,
					"the application is stopping: no reserve request may wait; retry later");
		}
		this.counts.add(topic, client);
		Waiter waiter = new Waiter(topic, client, max, ttr, System.nanoTime() + wait.toNanos(), answer, failure);
		this.waiters.add(waiter);
		try {
			this.threads.execute(waiter::serve);
		}
		catch (RuntimeException | Error ex) {
			waiter.end();
			throw ex;
		}
		if (!this.running) {
			// stop() ran meanwhile and may not have seen this waiter
			waiter.answer(List.of());
		}
		return waiter::end;
	}

	/**
	 * How many requests are waiting now.
	 * @return the count
	 */
	public int getWaiting() {
		return this.counts.waiting();
	}

	/**
	 * How many topics have waiting requests now.
	 * @return the count
	 */
	public int getTopics() {
		return this.counts.topics();
	}

	@Override
	public void start() {
		this.running = true;
	}

	/** Answers every waiting request with no jobs. */
	@Override
	public void stop() {
		this.running = false;
		for (Waiter waiter : this.waiters) {
			waiter.answer(List.of());
		}
	}

	@Override
	public void destroy() {
		this.threads.shutdownNow();
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

	/** Answers a waiting request. */
	@FunctionalInterface
	public interface Answer {

		/**
		 * Hands jobs to the request.
		 * @param jobs the jobs, none when the wait ran out
		 * @return {@code false} when the request was gone (answered, timed out, disconnected)
		 */
		boolean answer(List<ReservedJob> jobs);

	}

	/** A request that may not wait; its message names the limit and its property. */
	public static class WaitRefusedException extends RuntimeException {

		private final Reason reason;

		WaitRefusedException(Reason reason, String message) {
			super(message);
			this.reason = reason;
		}

		/**
		 * Why the request may not wait.
		 * @return the reason
		 */
		public Reason getReason() {
			return this.reason;
		}

		/** Why a request may not wait. */
		public enum Reason {

			/** The waiters are stopped (not started yet, or the application is stopping). */
			STOPPED,

			/** As many requests as allowed are waiting ({@code delayqueue.http.max-waiting}). */
			TOO_MANY_WAITING,

			/** The client waits with its share already: half of {@code delayqueue.http.max-waiting}. */
			TOO_MANY_OF_CLIENT,

			/** As many topics as allowed have waiters ({@code delayqueue.http.max-topics}). */
			TOO_MANY_TOPICS

		}

	}

	/**
	 * One waiting request, served by a thread of its own that is interrupted only while it
	 * waits in {@code awaitWork} (never during a reserve, whose jobs would be lost).
	 */
	private final class Waiter {

		private final String topic;

		private final @Nullable String client;

		private final int max;

		private final @Nullable Duration ttr;

		/** When its wait runs out (System.nanoTime). */
		private final long deadlineNanos;

		private final Answer answer;

		private final Consumer<RuntimeException> failure;

		/** Guarded by this. */
		private boolean done;

		/** The thread while it waits in awaitWork; guarded by this. */
		private @Nullable Thread awaiting;

		Waiter(String topic, @Nullable String client, int max, @Nullable Duration ttr, long deadlineNanos,
				Answer answer, Consumer<RuntimeException> failure) {
			this.topic = topic;
			this.client = client;
			this.max = max;
			this.ttr = ttr;
			this.deadlineNanos = deadlineNanos;
			this.answer = answer;
			this.failure = failure;
		}

		void serve() {
			try {
				List<ReservedJob> jobs = isDone() ? List.of()
						: ReserveWaiters.this.operations.reserve(this.topic, this.max, this.ttr);
				while (jobs.isEmpty()) {
					long left = this.deadlineNanos - System.nanoTime();
					if (left <= 0 || isDone()) {
						answer(List.of());
						return;
					}
					if (awaitWork(Duration.ofNanos(left))) {
						jobs = ReserveWaiters.this.operations.reserve(this.topic, this.max, this.ttr);
					}
				}
				boolean delivered = false;
				try {
					delivered = answer(jobs);
				}
				finally {
					if (!delivered) {
						giveBack(jobs);
					}
				}
			}
			catch (RuntimeException ex) {
				if (!fail(ex)) {
					logger.warn("Could not answer a reserve request of topic " + this.topic, ex);
				}
			}
		}

		private synchronized boolean isDone() {
			return this.done;
		}

		/**
		 * Waits for work; {@code false} when the wait ran out or the request ended meanwhile.
		 */
		private boolean awaitWork(Duration timeout) {
			synchronized (this) {
				if (this.done) {
					return false;
				}
				this.awaiting = Thread.currentThread();
			}
			try {
				return ReserveWaiters.this.operations.awaitWork(this.topic, timeout, this.max, this.ttr, null);
			}
			catch (InterruptedException ex) {
				return false;
			}
			finally {
				synchronized (this) {
					this.awaiting = null;
					// an interrupt that came after the wait returned is for no one
					Thread.interrupted();
				}
			}
		}

		/** Answers once; returns whether the jobs reached the request. */
		boolean answer(List<ReservedJob> jobs) {
			return end() && this.answer.answer(jobs);
		}

		private boolean fail(RuntimeException ex) {
			if (!end()) {
				return false;
			}
			this.failure.accept(ex);
			return true;
		}

		/**
		 * Ends the wait; returns {@code false} when it had ended already.
		 */
		boolean end() {
			synchronized (this) {
				if (this.done) {
					return false;
				}
				this.done = true;
				if (this.awaiting != null) {
					this.awaiting.interrupt();
				}
			}
			ReserveWaiters.this.waiters.remove(this);
			ReserveWaiters.this.counts.remove(this.topic, this.client);
			return true;
		}

		private void giveBack(List<ReservedJob> jobs) {
			try {
				ReserveWaiters.this.operations.release(jobs);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not give back " + jobs.size() + " job(s) of topic " + this.topic
						+ " reserved for a request that is gone; they are delivered again when their TTR runs out", ex);
			}
		}

	}

}
