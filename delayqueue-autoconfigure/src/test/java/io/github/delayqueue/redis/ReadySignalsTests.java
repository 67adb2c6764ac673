package io.github.delayqueue.redis;

import java.time.Duration;
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
		}));
		assertThat(buckets(signals.get().topic("orders"))).containsExactly(2, 5);
	}

	@Test
	void aThrottledTopicWaitsForItsTimeEvenWithBucketsMarkedAndAMarkDoesNotEndTheWait() throws InterruptedException {
		ReadySignals signals = new ReadySignals(4, (topic) -> new boolean[] { true, false, false, false });
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
		});
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
		assertThat(signals.size()).isLessThanOrEqualTo(11);
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


	private static io.github.delayqueue.core.ReservedJob job(String id) {
		java.time.Instant now = java.time.Instant.now();
		return new io.github.delayqueue.core.ReservedJob("t", id, new byte[0], 1, 3, now, now, now,
				now.plusSeconds(30), Duration.ofSeconds(30), 7, java.util.Map.of());
	}

	@Test
	void jobsDeliveredForAnOfferGoToItsThreadsNextReserveWithTheSameArgumentsOnlyAndTheRestIsReclaimed()
			throws Exception {
		ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { false });
		ReadySignals.TopicSignal signal = signals.topic("t");
		ReadySignals.Offer offer = new ReadySignals.Offer(2, 0, 0);
		java.util.concurrent.CompletableFuture<java.util.List<io.github.delayqueue.core.ReservedJob>> consumer = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> {
				try {
					assertThat(signal.await(Duration.ofSeconds(10), offer)).isTrue();
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
				// other arguments than offered: nothing; then the offered ones: the jobs
				assertThat(signal.collect(2, 5_000, 0)).isEmpty();
				return signal.collect(2, 0, 0);
			});
		java.util.List<ReadySignals.Offering> offers = org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.until(() -> signals.idleOffers(10, (topic) -> true), (found) -> !found.isEmpty());
		ReadySignals.Offering offering = offers.get(0);
		assertThat(offering.offer()).isEqualTo(offer);
		assertThat(signal.idle()).isOne();
		java.util.List<io.github.delayqueue.core.ReservedJob> delivered = java.util.List.of(job("a"), job("b"));
		assertThat(signals.deliver(offering, delivered)).isTrue();
		assertThat(consumer.get(5, java.util.concurrent.TimeUnit.SECONDS)).containsExactlyElementsOf(delivered);
		// collected: nothing left to reclaim, and the thread no longer waits: a second delivery
		// to that offer is refused (the caller gives the jobs back)
		assertThat(signals.reclaim(offering, delivered)).isEmpty();
		assertThat(signals.deliver(offering, java.util.List.of(job("c")))).isFalse();
		assertThat(signals.idleOffers(10, (topic) -> true)).isEmpty();
		assertThat(signals.idleOffers(10, (topic) -> false)).isEmpty();
	}

	/**
	 * Has the consumer thread wait with an offer, delivers jobs to its offer, and returns once
	 * its wait returned {@code true} for them.
	 */
	private static ReadySignals.Offering deliverToWaitingThread(ReadySignals signals, ReadySignals.TopicSignal signal,
			ReadySignals.Offer offer, java.util.concurrent.ExecutorService consumer,
			java.util.List<io.github.delayqueue.core.ReservedJob> delivered) throws Exception {
		java.util.concurrent.Future<Boolean> waiter = consumer.submit(() -> signal.await(Duration.ofSeconds(10), offer));
		ReadySignals.Offering offering = org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.until(() -> signals.idleOffers(10, (topic) -> true), (found) -> !found.isEmpty())
			.get(0);
		assertThat(signals.deliver(offering, delivered)).isTrue();
		assertThat(waiter.get(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
		return offering;
	}

	@Test
	void jobsDeliveredToAThreadThatDoesNotReserveAreReclaimedOnceAndNotHandedOutAfter() throws Exception {
		ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { false });
		ReadySignals.TopicSignal signal = signals.topic("t");
		ReadySignals.Offer offer = new ReadySignals.Offer(4, 0, 0);
		// one thread waits, and later reserves: the consumer's
		java.util.concurrent.ExecutorService consumer = java.util.concurrent.Executors.newSingleThreadExecutor();
		try {
			java.util.List<io.github.delayqueue.core.ReservedJob> delivered = java.util.List.of(job("a"), job("b"));
			ReadySignals.Offering offering = deliverToWaitingThread(signals, signal, offer, consumer, delivered);
			// the thread that waited does not count as idle while its jobs wait for it
			assertThat(signal.idle()).isZero();
			// it never reserved: both are reclaimed, once, and its reserve then finds none
			assertThat(signals.reclaim(offering, delivered)).containsExactlyElementsOf(delivered);
			assertThat(signals.reclaim(offering, delivered)).isEmpty();
			assertThat(consumer.submit(() -> signal.collect(4, 0, 0)).get(5, java.util.concurrent.TimeUnit.SECONDS))
				.isEmpty();
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void jobsARateLimitedReserveRefusedNoLongerEndTheThreadsWaitsAndAreReclaimedAfter() throws Exception {
		ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { false });
		ReadySignals.TopicSignal signal = signals.topic("t");
		ReadySignals.Offer offer = new ReadySignals.Offer(4, 0, 0);
		java.util.concurrent.ExecutorService consumer = java.util.concurrent.Executors.newSingleThreadExecutor();
		try {
			java.util.List<io.github.delayqueue.core.ReservedJob> delivered = java.util.List.of(job("a"));
			ReadySignals.Offering offering = deliverToWaitingThread(signals, signal, offer, consumer, delivered);
			// the topic got a rate limit: the thread's reserve refuses the jobs, and its next wait
			// runs out instead of returning at once for them (no spin until their hand-back)
			consumer.submit(signal::refuseDelivered).get(5, java.util.concurrent.TimeUnit.SECONDS);
			assertThat(consumer.submit(() -> signal.await(Duration.ofMillis(200), offer))
				.get(5, java.util.concurrent.TimeUnit.SECONDS)).isFalse();
			assertThat(consumer.submit(() -> signal.collect(4, 0, 0)).get(5, java.util.concurrent.TimeUnit.SECONDS))
				.isEmpty();
			// they are still there for their hand-back
			assertThat(signals.reclaim(offering, delivered)).containsExactlyElementsOf(delivered);
		}
		finally {
			consumer.shutdownNow();
		}
	}

}
