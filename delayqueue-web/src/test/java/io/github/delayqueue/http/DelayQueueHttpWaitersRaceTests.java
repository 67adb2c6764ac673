package io.github.delayqueue.http;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.http.ReserveWaiters.WaitRefusedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReserveWaiters} against a queue stand-in (a pure unit: the HTTP tests run it against
 * Redis): its limits, requests that go away, many waiters for one job, stop, and an answer
 * that breaks.
 */
class DelayQueueHttpWaitersRaceTests {

	private final List<ReserveWaiters> started = new ArrayList<>();

	@AfterEach
	void stopWaiters() {
		for (ReserveWaiters waiters : this.started) {
			waiters.stop();
			waiters.destroy();
		}
	}

	private ReserveWaiters start(ReserveWaiters waiters) {
		waiters.start();
		this.started.add(waiters);
		return waiters;
	}

	/**
	 * A queue stand-in: {@code reserve} takes one job when {@code ready} says so, and
	 * {@code awaitWork} waits for {@code work} (released to wake the waiting threads).
	 */
	static final class Queue {

		final AtomicBoolean alwaysReady = new AtomicBoolean();

		final Semaphore work = new Semaphore(0);

		final AtomicLong tokens = new AtomicLong();

		final AtomicLong released = new AtomicLong();

		/** The threads waiting in {@code awaitWork} now. */
		final AtomicInteger awaiting = new AtomicInteger();

		final DelayQueueOperations operations = (DelayQueueOperations) Proxy.newProxyInstance(
				getClass().getClassLoader(), new Class<?>[] { DelayQueueOperations.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "reserve" -> {
							if (!this.alwaysReady.get() && !this.work.tryAcquire()) {
								return List.of();
							}
							long token = this.tokens.incrementAndGet();
							return List.of(ReservedJob.of((String) args[0], "job-" + token, token, null));
						}
						case "awaitWork" -> {
							Duration timeout = (Duration) args[1];
							this.awaiting.incrementAndGet();
							try {
								if (this.work.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
									this.work.release();
									return true;
								}
								return false;
							}
							finally {
								this.awaiting.decrementAndGet();
							}
						}
						case "release" -> {
							this.released.incrementAndGet();
							return true;
						}
						case "toString" -> {
							return "queue stand-in";
						}
						default -> throw new UnsupportedOperationException(method.getName());
					}
				});

	}

	@Test
	void waitsOnMoreTopicsThanTheLimitAreRefusedAndCountNothing() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100, 2));
		List<Runnable> ends = new ArrayList<>();
		ends.add(waiters.await("a", null, 1, null, Duration.ofSeconds(30), (jobs) -> true, (ex) -> {
		}));
		ends.add(waiters.await("b", null, 1, null, Duration.ofSeconds(30), (jobs) -> true, (ex) -> {
		}));
		assertThatExceptionOfType(WaitRefusedException.class)
			.isThrownBy(() -> waiters.await("c", null, 1, null, Duration.ofSeconds(30), (jobs) -> true, (ex) -> {
			}))
			.withMessageContaining("delayqueue.http.max-topics=2")
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(WaitRefusedException.Reason.TOO_MANY_TOPICS));
		assertThat(waiters.getWaiting()).isEqualTo(2);
		assertThat(waiters.getTopics()).isEqualTo(2);
		// a topic that has waiters takes more
		ends.add(waiters.await("a", null, 1, null, Duration.ofSeconds(30), (jobs) -> true, (ex) -> {
		}));
		assertThat(waiters.getWaiting()).isEqualTo(3);

		ends.forEach(Runnable::run);
		assertThat(waiters.getTopics()).isZero();
		CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
		waiters.await("c", null, 1, null, Duration.ofSeconds(30), answer::complete, answer::completeExceptionally);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.awaiting.get() == 1);
		queue.work.release();
		assertThat(answer.join()).hasSize(1);
	}

	@Test
	void requestsThatGoAwayLeaveNoWaiterAndNoWaitingThread() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100));
		List<Runnable> ends = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			ends.add(waiters.await("gone", "client-" + (i % 2), 1, null, Duration.ofSeconds(30), (jobs) -> true,
					(ex) -> {
					}));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.awaiting.get() == 20);
		ends.forEach(Runnable::run);
		assertThat(waiters.getWaiting()).isZero();
		assertThat(waiters.getTopics()).isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.awaiting.get() == 0);
		// the clients' shares are free again
		for (int i = 0; i < 20; i++) {
			waiters.await("again", "client-" + (i % 2), 1, null, Duration.ofSeconds(30), (jobs) -> true, (ex) -> {
			});
		}
		assertThat(waiters.getWaiting()).isEqualTo(20);
	}

	@Test
	void manyWaitersOfOneTopicAndOneJobOnlyOneGetsIt() throws Exception {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100));
		List<CompletableFuture<List<ReservedJob>>> answers = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
			waiters.await("one-job", null, 1, null, Duration.ofMillis(1500), answer::complete,
					answer::completeExceptionally);
			answers.add(answer);
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.awaiting.get() == 30);
		queue.work.release();
		int jobs = 0;
		for (CompletableFuture<List<ReservedJob>> answer : answers) {
			jobs += answer.get(10, TimeUnit.SECONDS).size();
		}
		assertThat(jobs).isOne();
		assertThat(queue.released.get()).isZero();
		assertThat(waiters.getWaiting()).isZero();
	}

	@Test
	void stopAnswersEveryWaiterAtOnceAndLeavesNoWaitingThread() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100));
		List<CompletableFuture<List<ReservedJob>>> answers = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
			waiters.await("stopping-" + (i % 5), null, 1, null, Duration.ofSeconds(60), answer::complete,
					answer::completeExceptionally);
			answers.add(answer);
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.awaiting.get() == 50);
		long start = System.nanoTime();
		waiters.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
		answers.forEach((answer) -> assertThat(answer).isCompletedWithValue(List.of()));
		assertThat(waiters.getWaiting()).isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.awaiting.get() == 0);
	}

	@Test
	void anAnswerThatBreaksGivesItsJobsBackAndLeavesTheWaitersServed() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100));
		waiters.await("broken", null, 1, null, Duration.ofSeconds(30), (jobs) -> {
			throw new StackOverflowError("an answer that breaks its thread");
		}, (ex) -> {
		});
		queue.work.release();
		// the job reserved for the answer that broke is given back; the Error ends its thread
		// (uncaught, as an Error should be): not this test's failure
		await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(5)).until(() -> queue.released.get() == 1);
		assertThat(waiters.getWaiting()).isZero();
		assertThat(waiters.getTopics()).isZero();
		CompletableFuture<List<ReservedJob>> next = new CompletableFuture<>();
		waiters.await("broken", null, 1, null, Duration.ofSeconds(30), next::complete, next::completeExceptionally);
		queue.work.release();
		assertThat(next.join()).hasSize(1);
	}

}
