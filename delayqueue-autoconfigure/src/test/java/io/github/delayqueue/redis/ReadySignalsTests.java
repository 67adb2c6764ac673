package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-topic signals of READY work: a new topic starts with what a probe found, a mark
 * that arrives while the probe runs is kept, and the topics nobody uses are forgotten once
 * there are many (topic names come from callers).
 */
class ReadySignalsTests {

	private static long[] buckets(ReadySignals.TopicSignal signal) {
		long[][] candidates = signal.candidates();
		long[] result = new long[candidates.length];
		for (int i = 0; i < candidates.length; i++) {
			result[i] = candidates[i][0];
		}
		java.util.Arrays.sort(result);
		return result;
	}

	@Test
	void aNewTopicStartsWithTheBucketsTheProbeFoundAndKeepsAMarkThatArrivedMeanwhile() {
		AtomicReference<ReadySignals> signals = new AtomicReference<>();
		signals.set(new ReadySignals(8, (topic) -> {
			// bucket 5 gets a job while the probe reads: it is announced, the probe saw it empty
			signals.get().markReady(topic, 5);
			boolean[] nonEmpty = new boolean[8];
			nonEmpty[2] = true;
			return nonEmpty;
		}, ReadySignals.MAX_IDLE_TOPICS, ReadySignals.IDLE));
		assertThat(buckets(signals.get().topic("orders"))).containsExactly(2, 5);
	}

	@Test
	void aThrottledTopicWaitsForItsTimeEvenWithBucketsMarkedAndAMarkDoesNotEndTheWait() throws InterruptedException {
		ReadySignals signals = new ReadySignals(4, (topic) -> new boolean[] { true, false, false, false },
				ReadySignals.MAX_IDLE_TOPICS, ReadySignals.IDLE);
		ReadySignals.TopicSignal signal = signals.topic("limited");
		assertThat(signal.await(Duration.ZERO)).isTrue();
		signal.throttle(300);
		assertThat(signal.isThrottled()).isTrue();
		// a shorter throttle does not cut a longer one short
		signal.throttle(10);
		long started = System.nanoTime();
		Thread marker = new Thread(() -> signals.markReady("limited", 2));
		marker.start();
		assertThat(signal.await(Duration.ofSeconds(5))).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
		assertThat(signal.isThrottled()).isFalse();
		marker.join();
		// a wait shorter than the throttle ends without work
		signal.throttle(1_000);
		assertThat(signal.await(Duration.ofMillis(50))).isFalse();
	}

	@Test
	void aProbeThatFailsLeavesEveryBucketMarked() {
		ReadySignals signals = new ReadySignals(4, (topic) -> {
			throw new IllegalStateException("Redis down");
		}, ReadySignals.MAX_IDLE_TOPICS, ReadySignals.IDLE);
		assertThat(buckets(signals.topic("orders"))).containsExactly(0, 1, 2, 3);
	}

	@Test
	void idleTopicsAreForgottenOnceThereAreManyAndComeBackWithAProbe() {
		AtomicInteger probes = new AtomicInteger();
		ReadySignals signals = new ReadySignals(4, (topic) -> {
			probes.incrementAndGet();
			return new boolean[4];
		}, 10, Duration.ZERO);
		for (int i = 0; i < 1_000; i++) {
			signals.topic("client-topic-" + i);
		}
		assertThat(signals.topics.size()).isLessThanOrEqualTo(11);
		assertThat(probes).hasValue(1_000);
		signals.topic("client-topic-0");
		assertThat(probes).hasValue(1_001);
	}

	@Test
	void aTopicSomebodyWaitsOnIsNotForgotten() throws Exception {
		ReadySignals signals = new ReadySignals(4, (topic) -> new boolean[4], 1, Duration.ZERO);
		ReadySignals.TopicSignal waited = signals.topic("waited");
		Thread waiter = new Thread(() -> {
			try {
				waited.await(Duration.ofSeconds(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		waiter.start();
		org.awaitility.Awaitility.await().until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
		for (int i = 0; i < 10; i++) {
			signals.topic("other-" + i);
		}
		// the waiter's topic is still the one marks reach
		signals.markReady("waited", 3);
		waiter.join(5_000);
		assertThat(waiter.isAlive()).isFalse();
	}

	@Test
	void aWaitOnASignalForgottenAfterItWasLookedUpReturnsAtOnceAndTheTopicAnswersWithANewOne() throws Exception {
		ReadySignals signals = new ReadySignals(4, (topic) -> new boolean[4], 1, Duration.ZERO);
		// a consumer looked its topic up; another topic's creation forgets it before the consumer waits
		ReadySignals.TopicSignal looked = signals.topic("t");
		signals.topic("u");
		CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
			try {
				return looked.await(Duration.ofSeconds(30));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		// no mark reaches a forgotten signal: its wait must not outlive the lookup
		assertThat(waited.get(10, TimeUnit.SECONDS)).isTrue();
		ReadySignals.TopicSignal again = signals.topic("t");
		assertThat(again).isNotSameAs(looked);
		signals.markReady("t", 2);
		assertThat(buckets(again)).containsExactly(2);
	}

}
