package io.github.delayqueue.http;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * The per-topic entries of {@link ReserveWaiters} against a queue stand-in (a pure unit: the
 * HTTP tests run them against Redis): entries end when idle, a waiter that arrives while its
 * topic's entry is being removed is served all the same, the topic limit, and a thread that
 * ends abnormally leaves no waiter unserved.
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
							if (this.work.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
								this.work.release();
								return true;
							}
							return false;
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

	private static long threads(String prefix) {
		return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().startsWith(prefix)).count();
	}

	@Test
	void aWaiterThatArrivesWhileItsTopicsEntryIsRemovedIsServed() throws Exception {
		Queue queue = new Queue();
		queue.alwaysReady.set(true);
		// no idle time: an entry is removed as soon as its queue of waiters is empty
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100, 100, Duration.ZERO));
		Set<Thread> servingThreads = ConcurrentHashMap.newKeySet();
		int rounds = 2_000;
		ExecutorService clients = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int c = 0; c < 4; c++) {
				String topic = "race-" + (c % 2);
				done.add(clients.submit(() -> {
					for (int round = 0; round < rounds; round++) {
						CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
						waiters.await(topic, null, 1, null, Duration.ofSeconds(30), (jobs) -> {
							servingThreads.add(Thread.currentThread());
							return answer.complete(jobs);
						}, answer::completeExceptionally);
						// served by a thread, not answered empty when the wait runs out
						assertThat(answer.get(10, TimeUnit.SECONDS)).as(topic + " round " + round).hasSize(1);
						long spin = System.nanoTime() + ThreadLocalRandom.current().nextLong(50_000);
						while (System.nanoTime() < spin) {
							Thread.onSpinWait();
						}
					}
					return null;
				}));
			}
			for (Future<?> client : done) {
				client.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			clients.shutdownNow();
		}
		System.out.println("8000 waiters served by " + servingThreads.size() + " topic threads");
		// entries were removed and made again many times over, every waiter was served
		assertThat(servingThreads).hasSizeGreaterThan(10);
		assertThat(queue.released.get()).isZero();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(waiters.getTopics()).isZero();
			assertThat(waiters.getWaiting()).isZero();
			assertThat(threads("delayqueue-http-race-")).isZero();
		});
	}

	@Test
	void waitsOnMoreTopicsThanTheLimitAreRefusedAndCountNothing() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100, 2, Duration.ZERO));
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
		assertThat(threads("delayqueue-http-c")).isZero();
		// a topic that has waiters takes more
		ends.add(waiters.await("a", null, 1, null, Duration.ofSeconds(30), (jobs) -> true, (ex) -> {
		}));
		assertThat(waiters.getWaiting()).isEqualTo(3);

		ends.forEach(Runnable::run);
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getTopics() == 0);
		CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
		waiters.await("c", null, 1, null, Duration.ofSeconds(30), answer::complete, answer::completeExceptionally);
		queue.work.release();
		assertThat(answer.join()).hasSize(1);
	}

	@Test
	void aWaiterThatArrivesWhileItsTopicIsIdleIsServedByTheSameThread() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100, 100, Duration.ofSeconds(10)));
		List<Thread> serving = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
			waiters.await("idle", null, 1, null, Duration.ofSeconds(30), (jobs) -> {
				serving.add(Thread.currentThread());
				return answer.complete(jobs);
			}, answer::completeExceptionally);
			queue.work.release();
			assertThat(answer.join()).hasSize(1);
			assertThat(waiters.getTopics()).isEqualTo(1);
		}
		assertThat(serving).hasSize(3).allMatch((thread) -> thread == serving.get(0));
	}

	@Test
	void anInterruptedTopicThreadHandsItsWaitersToANewOne() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100, 100, Duration.ZERO));
		CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
		Set<Thread> serving = ConcurrentHashMap.newKeySet();
		waiters.await("interrupted", null, 1, null, Duration.ofSeconds(30), (jobs) -> {
			serving.add(Thread.currentThread());
			return answer.complete(jobs);
		}, answer::completeExceptionally);
		Thread first = await().atMost(Duration.ofSeconds(5))
			.until(() -> Thread.getAllStackTraces()
				.keySet()
				.stream()
				.filter((thread) -> thread.getName().equals("delayqueue-http-interrupted"))
				.findFirst()
				.orElse(null), (thread) -> thread != null);
		first.interrupt();
		await().atMost(Duration.ofSeconds(5)).until(() -> !first.isAlive());
		assertThat(answer).isNotDone();
		assertThat(waiters.getTopics()).isEqualTo(1);

		queue.work.release();
		assertThat(answer.join()).hasSize(1);
		assertThat(serving).doesNotContain(first);
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getTopics() == 0);
	}

	@Test
	void anErrorInATopicThreadFailsItsOtherWaitersAndRemovesTheEntry() {
		Queue queue = new Queue();
		ReserveWaiters waiters = start(new ReserveWaiters(queue.operations, 100, 100, Duration.ZERO));
		waiters.await("broken", null, 1, null, Duration.ofSeconds(30), (jobs) -> {
			throw new StackOverflowError("an answer that breaks its thread");
		}, (ex) -> {
		});
		CompletableFuture<List<ReservedJob>> second = new CompletableFuture<>();
		waiters.await("broken", null, 1, null, Duration.ofSeconds(30), second::complete, second::completeExceptionally);
		queue.work.release();
		assertThat(second).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.havingCause()
			.withMessageContaining("topic broken failed");
		// the job reserved for the answer that broke is given back
		assertThat(queue.released.get()).isEqualTo(1);
		// the Error ends the topic's thread (uncaught, as an Error should be): not this test's failure
		await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(waiters.getTopics()).isZero();
			assertThat(waiters.getWaiting()).isZero();
		});
	}

}
