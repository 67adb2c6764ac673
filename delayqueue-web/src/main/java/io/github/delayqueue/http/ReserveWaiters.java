package io.github.delayqueue.http;

import java.time.Duration;
import java.util.ArrayList;
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
import java.util.concurrent.locks.LockSupport;
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
 * Reserve requests of the HTTP job API that wait for jobs (long polling), without a thread
 * or a Redis command per waiting request.
 *
 * <p>
 * Waiters of a topic queue up in arrival order and are served by one thread of the topic,
 * which reserves for the first waiter and otherwise waits in
 * {@link DelayQueueConsumer#awaitWork} with that waiter's reserve as its offer. A waiter whose
 * wait runs out is answered with no jobs; jobs reserved for a waiter that is gone are released
 * (READY again at once, the attempt not counted) or go to the next waiter with the same
 * {@code ttr}.
 *
 * <p>
 * The state per topic is bounded, as clients choose topic names: a topic's entry and thread
 * end after {@link #IDLE_TIMEOUT} without waiters, and at most {@code maxTopics} topics have
 * waiters at once (a wait on one more is refused). An entry is added, joined and removed only
 * under the lock of its topic's mapping, so a waiter always joins an entry whose thread serves
 * it. Thread-safe.
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

	/**
	 * How long a topic's entry and thread stay after its last waiter went: 1 second.
	 */
	public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(ReserveWaiters.class);

	/** How long a topic's thread sleeps at most before it looks whether it still has waiters. */
	private static final Duration IDLE_CHECK = Duration.ofSeconds(1);

	private final DelayQueueConsumer operations;

	private final int maxWaiting;

	private final int maxTopics;

	private final long idleTimeoutNanos;

	private final ConcurrentMap<String, TopicWaiters> topics = new ConcurrentHashMap<>();

	/** The entries in {@link #topics}; changed only under the lock of the entry's mapping. */
	private final AtomicInteger topicCount = new AtomicInteger();

	private final AtomicInteger waiting = new AtomicInteger();

	/** The waiting requests of each client that has any; changed under its mapping's lock. */
	private final ConcurrentMap<String, Integer> waitingByClient = new ConcurrentHashMap<>();

	private final CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-http-");

	private final ScheduledThreadPoolExecutor timeouts;

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
		this(operations, maxWaiting, maxTopics, IDLE_TIMEOUT);
	}

	ReserveWaiters(DelayQueueConsumer operations, int maxWaiting, int maxTopics, Duration idleTimeout) {
		Assert.notNull(operations, "operations must not be null");
		Assert.isTrue(maxWaiting > 0, () -> "delayqueue.http.max-waiting must be at least 1, was " + maxWaiting);
		Assert.isTrue(maxTopics > 0, () -> "delayqueue.http.max-topics must be at least 1, was " + maxTopics);
		Assert.isTrue(idleTimeout != null && !idleTimeout.isNegative(), "idleTimeout must not be negative");
		this.operations = operations;
		this.maxWaiting = maxWaiting;
		this.maxTopics = maxTopics;
		this.idleTimeoutNanos = idleTimeout.toNanos();
		this.threads.setDaemon(true);
		this.timeouts = new ScheduledThreadPoolExecutor(1, new CustomizableThreadFactory("delayqueue-http-timeout-"));
		this.timeouts.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Queues a request that waits for jobs of a topic. A client waits with at most half of
	 * {@code maxWaiting} requests (at least one), so that one client cannot hold every slot.
	 * @param topic the topic
	 * @param client who waits (a token, a principal), or {@code null} for a caller without a
	 * share of its own
	 * @param max the most jobs to hand over (1 to {@value DelayQueueConsumer#MAX_RESERVE})
	 * @param ttr the time to run, or {@code null} for each job's own
	 * @param wait the longest wait, not negative
	 * @param answer takes the jobs (none on timeout) and returns whether the request was still
	 * there to take them
	 * @param failure takes an error of the queue (such as Redis being unreachable)
	 * @return what ends the wait without an answer (the request went away)
	 * @throws WaitRefusedException when the request was not queued: the waiters are stopped,
	 * as many requests as allowed are waiting already (in all, or of this client), or as many topics as allowed have
	 * waiters already and this topic has none; nothing is queued or counted then
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
		countClient(client);
		if (this.waiting.incrementAndGet() > this.maxWaiting) {
			this.waiting.decrementAndGet();
			uncountClient(client);
			throw new WaitRefusedException(WaitRefusedException.Reason.TOO_MANY_WAITING, this.maxWaiting
					+ " reserve requests wait already, the most allowed (delayqueue.http.max-waiting=" + this.maxWaiting
					+ "); retry later");
		}
		Waiter waiter = new Waiter(client, max, ttr, System.nanoTime() + wait.toNanos(), answer, failure);
		waiter.timeout = this.timeouts.schedule(() -> waiter.answer(List.of()), wait.toNanos(), TimeUnit.NANOSECONDS);
		try {
			join(topic, waiter);
		}
		catch (RuntimeException | Error ex) {
			waiter.end();
			throw ex;
		}
		if (!this.running) {
			// stop() ran meanwhile and may have drained the queue before this waiter was in it
			waiter.answer(List.of());
		}
		return waiter::end;
	}

	/**
	 * Adds a waiter to its topic's entry, or to a new entry with a thread of its own when the
	 * topic has none.
	 */
	private void join(String topic, Waiter waiter) {
		TopicWaiters joined = this.topics.compute(topic, (key, entry) -> {
			if (entry != null) {
				entry.queue.add(waiter);
				return entry;
			}
			TopicWaiters created = new TopicWaiters(key);
			created.queue.add(waiter);
			countTopic();
			try {
				created.startThread();
			}
			catch (RuntimeException | Error ex) {
				this.topicCount.decrementAndGet();
				throw ex;
			}
			return created;
		});
		// wakes the thread when it lingers without waiters
		joined.wake();
	}

	private void countClient(@Nullable String client) {
		if (client == null) {
			return;
		}
		int share = Math.max(1, this.maxWaiting / 2);
		this.waitingByClient.compute(client, (key, count) -> {
			int waiting = (count != null) ? count : 0;
			if (waiting >= share) {
				throw new WaitRefusedException(WaitRefusedException.Reason.TOO_MANY_OF_CLIENT, "this client waits with "
						+ waiting + " reserve requests already, its share: half of delayqueue.http.max-waiting="
						+ this.maxWaiting + "; retry later");
			}
			return waiting + 1;
		});
	}

	private void uncountClient(@Nullable String client) {
		if (client != null) {
			this.waitingByClient.computeIfPresent(client, (key, count) -> (count > 1) ? count - 1 : null);
		}
	}

	private void countTopic() {
		while (true) {
			int count = this.topicCount.get();
			if (count >= this.maxTopics) {
				throw new WaitRefusedException(WaitRefusedException.Reason.TOO_MANY_TOPICS, "reserve requests wait on "
						+ count + " topics already, the most one instance serves at once (delayqueue.http.max-topics="
						+ this.maxTopics + "); retry later, or reserve without waiting");
			}
			if (this.topicCount.compareAndSet(count, count + 1)) {
				return;
			}
		}
	}

	/**
	 * How many requests are waiting now.
	 * @return the count
	 */
	public int getWaiting() {
		return this.waiting.get();
	}

	/**
	 * How many topics have an entry now: waiters, or a thread that ends unless one comes
	 * within {@link #IDLE_TIMEOUT}.
	 * @return the count
	 */
	public int getTopics() {
		return this.topicCount.get();
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
			topic.wake();
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

	/**
	 * A request that may not wait; its message names the limit and its property.
	 */
	public static class WaitRefusedException extends RuntimeException {

		/** Why the request may not wait. */
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

		/**
		 * Why a request may not wait.
		 */
		public enum Reason {

			/** The waiters are stopped (not started yet, or the application is stopping). */
			STOPPED,

			/** As many requests as allowed are waiting ({@code delayqueue.http.max-waiting}). */
			TOO_MANY_WAITING,

			/**
			 * The request's client waits with its share already: half of
			 * {@code delayqueue.http.max-waiting}.
			 */
			TOO_MANY_OF_CLIENT,

			/**
			 * As many topics as allowed have waiters, and the request's topic has none
			 * ({@code delayqueue.http.max-topics}).
			 */
			TOO_MANY_TOPICS

		}

	}

	private final class Waiter {

		private final @Nullable String client;

		final int max;

		final @Nullable Duration ttr;

		/** When its wait runs out (System.nanoTime). */
		final long deadlineNanos;

		private final Answer answer;

		private final Consumer<RuntimeException> failure;

		private final AtomicBoolean done = new AtomicBoolean();

		volatile @Nullable ScheduledFuture<?> timeout;

		Waiter(@Nullable String client, int max, @Nullable Duration ttr, long deadlineNanos, Answer answer,
				Consumer<RuntimeException> failure) {
			this.client = client;
			this.max = max;
			this.ttr = ttr;
			this.deadlineNanos = deadlineNanos;
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
			uncountClient(this.client);
			ScheduledFuture<?> timeout = this.timeout;
			if (timeout != null) {
				timeout.cancel(false);
			}
			return true;
		}

	}

	/**
	 * The waiters of one topic and the thread that serves them. The entry is in
	 * {@link ReserveWaiters#topics} exactly while its thread runs: the thread is started when
	 * the entry is put there and removes it, under the lock of its mapping, when it ends.
	 */
	private final class TopicWaiters implements Runnable {

		private final String topic;

		final Queue<Waiter> queue = new ConcurrentLinkedQueue<>();

		private volatile @Nullable Thread thread;

		TopicWaiters(String topic) {
			this.topic = topic;
		}

		/**
		 * Starts the thread; called under the lock of the entry's mapping.
		 */
		void startThread() {
			Thread thread = ReserveWaiters.this.threads.newThread(this);
			thread.setName("delayqueue-http-" + this.topic);
			this.thread = thread;
			thread.start();
		}

		void wake() {
			Thread thread = this.thread;
			if (thread != null) {
				LockSupport.unpark(thread);
			}
		}

		@Override
		public void run() {
			boolean removed = false;
			Throwable failure = null;
			try {
				removed = serve();
			}
			catch (InterruptedException ex) {
				// only the waiting is interrupted: another thread serves whoever waits
				Thread.currentThread().interrupt();
			}
			catch (RuntimeException | Error ex) {
				failure = ex;
				throw ex;
			}
			finally {
				if (!removed) {
					handOver(failure);
				}
			}
		}

		/**
		 * Serves the waiters until the topic has had none for the idle timeout (or the
		 * waiters are stopped) and the entry is removed.
		 * @return {@code true} once the entry is removed
		 */
		private boolean serve() throws InterruptedException {
			long idleSince = 0;
			while (true) {
				Waiter first = firstWaiter();
				if (first != null) {
					idleSince = 0;
					try {
						serve(first);
					}
					catch (RuntimeException ex) {
						// an answer that could not be written must not end the serving of the others
						logger.warn("Could not answer a reserve request of topic " + this.topic, ex);
					}
					continue;
				}
				long now = System.nanoTime();
				if (idleSince == 0) {
					idleSince = now;
				}
				long idleLeft = ReserveWaiters.this.idleTimeoutNanos - (now - idleSince);
				if (idleLeft > 0 && ReserveWaiters.this.running) {
					// a waiter that joins wakes this thread up
					LockSupport.parkNanos(this, idleLeft);
					if (Thread.interrupted()) {
						throw new InterruptedException();
					}
					continue;
				}
				if (remove()) {
					return true;
				}
				idleSince = 0;
			}
		}

		/**
		 * The first waiter whose wait did not end, dropping those before it.
		 */
		private @Nullable Waiter firstWaiter() {
			Waiter first;
			while ((first = this.queue.peek()) != null && first.isDone()) {
				this.queue.remove(first);
			}
			return first;
		}

		/**
		 * Removes the entry unless a waiter joined meanwhile: a waiter that joins under the
		 * same lock before is seen here; one that joins after makes a new entry.
		 * @return whether the entry was removed
		 */
		private boolean remove() {
			AtomicBoolean removed = new AtomicBoolean();
			ReserveWaiters.this.topics.computeIfPresent(this.topic, (key, entry) -> {
				if (entry != this || hasWaiters()) {
					return entry;
				}
				removed.set(true);
				ReserveWaiters.this.topicCount.decrementAndGet();
				return null;
			});
			return removed.get() || ReserveWaiters.this.topics.get(this.topic) != this;
		}

		private boolean hasWaiters() {
			this.queue.removeIf(Waiter::isDone);
			return !this.queue.isEmpty();
		}

		/**
		 * Ends this thread, which did not end by removing the entry: the waiters are handed
		 * to a new thread after an interrupt, answered with the error after an error (a new
		 * thread would likely meet it again), and the entry is removed when none is left.
		 * Waiters are answered out of the mapping's lock, as answers run the caller's code.
		 */
		private void handOver(@Nullable Throwable failure) {
			List<Waiter> left = new ArrayList<>();
			ReserveWaiters.this.topics.computeIfPresent(this.topic, (key, entry) -> {
				if (entry != this) {
					return entry;
				}
				if (failure == null && hasWaiters() && ReserveWaiters.this.running) {
					try {
						startThread();
						return this;
					}
					catch (RuntimeException | Error ex) {
						logger.warn("Could not start a thread to serve reserve requests of topic " + this.topic, ex);
					}
				}
				Waiter waiter;
				while ((waiter = this.queue.poll()) != null) {
					left.add(waiter);
				}
				ReserveWaiters.this.topicCount.decrementAndGet();
				return null;
			});
			for (Waiter waiter : left) {
				if (failure != null) {
					waiter.fail(new IllegalStateException(
							"The thread serving reserve requests of topic " + this.topic + " failed", failure));
				}
				else {
					waiter.answer(List.of());
				}
			}
		}

		private void serve(Waiter waiter) throws InterruptedException {
			if (waiter.deadlineNanos - System.nanoTime() <= 0) {
				// its wait ran out (the timer answers it too; the first answer counts)
				this.queue.remove(waiter);
				waiter.answer(List.of());
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
				long left = Math.max(1, waiter.deadlineNanos - System.nanoTime());
				// with the waiter's reserve as the offer, for no longer than the waiter waits: a
				// timer step of this instance that makes a job of the topic due meanwhile
				// reserves it for the reserve above, run again next (jobs it does not collect,
				// the waiter gone, are given back)
				Duration waitFor = Duration.ofNanos(Math.min(left, IDLE_CHECK.toNanos()));
				ReserveWaiters.this.operations.awaitWork(this.topic, waitFor, waiter.max, waiter.ttr, null);
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
