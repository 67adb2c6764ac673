package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The offers of waiting consumers: registered, delivered to, collected, reclaimed (the steps
 * that reserve for them are covered with a real Redis in {@link RedisDelayQueueReservedAtOnceTests}).
 */
class OffersTests {

	private final ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { false },
			ReadySignals.MAX_IDLE_TOPICS, ReadySignals.IDLE);

	private final Offers offers = new Offers(this.signals, (topic) -> true);

	private static ReservedJob job(String id) {
		Instant now = Instant.now();
		return new ReservedJob("t", id, new byte[0], 1, 3, now, now, now, now.plusSeconds(30), Duration.ofSeconds(30),
				7, Map.of());
	}

	@Test
	void jobsDeliveredForAnOfferGoToItsThreadsNextReserveWithTheSameArgumentsOnlyAndTheRestIsReclaimed()
			throws Exception {
		Offers.Offer offer = new Offers.Offer(2, 0, 0);
		CompletableFuture<List<ReservedJob>> consumer = CompletableFuture.supplyAsync(() -> {
			try {
				assertThat(this.offers.await("t", Duration.ofSeconds(10), offer)).isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			// other arguments than offered: nothing; then the offered ones: the jobs
			assertThat(this.offers.collect("t", 2, 5_000, 0)).isEmpty();
			return this.offers.collect("t", 2, 0, 0);
		});
		List<Offers.Offering> offers = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.offers.idleOffers(10), (found) -> !found.isEmpty());
		Offers.Offering offering = offers.get(0);
		assertThat(offering.offer).isEqualTo(offer);
		assertThat(this.offers.idleConsumers("t")).isOne();
		List<ReservedJob> delivered = List.of(job("a"), job("b"));
		assertThat(offering.deliver(delivered)).isTrue();
		assertThat(consumer.get(5, TimeUnit.SECONDS)).containsExactlyElementsOf(delivered);
		// collected: nothing left to reclaim, and the thread no longer waits: a second delivery
		// to that offer is refused (the caller gives the jobs back)
		assertThat(this.offers.reclaim(offering, delivered)).isEmpty();
		assertThat(offering.deliver(List.of(job("c")))).isFalse();
		assertThat(this.offers.idleOffers(10)).isEmpty();
		assertThat(new Offers(this.signals, (topic) -> false).idleOffers(10)).isEmpty();
	}

	/**
	 * Has the consumer thread wait with an offer, delivers jobs to its offer, and returns once
	 * its wait returned {@code true} for them.
	 */
	private Offers.Offering deliverToWaitingThread(Offers.Offer offer,
			ExecutorService consumer, List<ReservedJob> delivered) throws Exception {
		Future<Boolean> waiter = consumer.submit(() -> this.offers.await("t", Duration.ofSeconds(10), offer));
		Offers.Offering offering = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.offers.idleOffers(10), (found) -> !found.isEmpty())
			.get(0);
		assertThat(offering.deliver(delivered)).isTrue();
		assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
		return offering;
	}

	@Test
	void jobsDeliveredToAThreadThatDoesNotReserveAreReclaimedOnceAndNotHandedOutAfter() throws Exception {
		Offers.Offer offer = new Offers.Offer(4, 0, 0);
		// one thread waits, and later reserves: the consumer's
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			List<ReservedJob> delivered = List.of(job("a"), job("b"));
			Offers.Offering offering = deliverToWaitingThread(offer, consumer, delivered);
			// the thread that waited does not count as idle while its jobs wait for it
			assertThat(this.offers.idleConsumers("t")).isZero();
			// it never reserved: both are reclaimed, once, and its reserve then finds none
			assertThat(this.offers.reclaim(offering, delivered)).containsExactlyElementsOf(delivered);
			assertThat(this.offers.reclaim(offering, delivered)).isEmpty();
			assertThat(consumer.submit(() -> this.offers.collect("t", 4, 0, 0)).get(5, TimeUnit.SECONDS)).isEmpty();
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void jobsARateLimitedReserveRefusedNoLongerEndTheThreadsWaitsAndAreReclaimedAfter() throws Exception {
		Offers.Offer offer = new Offers.Offer(4, 0, 0);
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			List<ReservedJob> delivered = List.of(job("a"));
			Offers.Offering offering = deliverToWaitingThread(offer, consumer, delivered);
			// the topic got a rate limit: the thread's reserve refuses the jobs, and its next wait
			// runs out instead of returning at once for them (no spin until their hand-back)
			consumer.submit(() -> this.offers.refuseDelivered("t")).get(5, TimeUnit.SECONDS);
			assertThat(consumer.submit(() -> this.offers.await("t", Duration.ofMillis(200), offer))
				.get(5, TimeUnit.SECONDS)).isFalse();
			assertThat(consumer.submit(() -> this.offers.collect("t", 4, 0, 0)).get(5, TimeUnit.SECONDS)).isEmpty();
			// they are still there for their hand-back
			assertThat(this.offers.reclaim(offering, delivered)).containsExactlyElementsOf(delivered);
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void aConsumerThatStopsWaitingAsItsJobsAreDeliveredEitherTakesThemOrLeavesThemAllToTheHandBack()
			throws Exception {
		Offers.Offer offer = new Offers.Offer(2, 0, 0);
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			for (int round = 0; round < 200; round++) {
				// a wait of at most 1 ms races the delivery
				Future<List<ReservedJob>> taken = consumer.submit(() -> {
					this.offers.await("t", Duration.ofMillis(1), offer);
					return this.offers.collect("t", 2, 0, 0);
				});
				Offers.Offering offering = null;
				while (offering == null && !taken.isDone()) {
					offering = this.offers.idleOffers(1).stream().findFirst().orElse(null);
				}
				List<ReservedJob> delivered = List.of(job("a" + round), job("b" + round));
				boolean handed = offering != null && offering.deliver(delivered);
				List<ReservedJob> collected = taken.get(5, TimeUnit.SECONDS);
				List<ReservedJob> reclaimed = (offering != null) ? this.offers.reclaim(offering, delivered) : List.of();
				// refused: the step gives them back at once; handed: each is taken or reclaimed, once
				List<ReservedJob> accounted = new ArrayList<>(collected);
				accounted.addAll(reclaimed);
				assertThat(accounted).as("round " + round).containsExactlyInAnyOrderElementsOf(handed ? delivered : List.of());
			}
			assertThat(this.offers.idleOffers(10)).isEmpty();
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void jobsDeliveredToAConsumerWhoseThreadDiesWithAnErrorAreAllReclaimedAndItsOfferIsGone() throws Exception {
		Offers.Offer offer = new Offers.Offer(4, 0, 0);
		AtomicReference<Boolean> woken = new AtomicReference<>();
		Thread handler = new Thread(() -> {
			try {
				woken.set(this.offers.await("t", Duration.ofSeconds(10), offer));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			throw new StackOverflowError("the handler failed before its reserve");
		});
		handler.setUncaughtExceptionHandler((thread, error) -> {
		});
		handler.start();
		Offers.Offering offering = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.offers.idleOffers(10), (found) -> !found.isEmpty())
			.get(0);
		List<ReservedJob> delivered = List.of(job("a"), job("b"));
		assertThat(offering.deliver(delivered)).isTrue();
		handler.join(5_000);
		assertThat(handler.isAlive()).isFalse();
		assertThat(woken).hasValue(true);
		assertThat(this.offers.reclaim(offering, delivered)).containsExactlyElementsOf(delivered);
		// nothing of the dead thread is offered or delivered to again
		assertThat(this.offers.idleOffers(10)).isEmpty();
		assertThat(offering.deliver(List.of(job("c")))).isFalse();
		assertThat(this.offers.idleConsumers("t")).isZero();
	}

	@Test
	void aStepLooksOnlyAtTheTopicsAConsumerWaitsWithAnOffer() throws Exception {
		AtomicInteger looked = new AtomicInteger();
		Offers counted = new Offers(this.signals, (topic) -> looked.incrementAndGet() > 0);
		for (int i = 0; i < 300; i++) {
			this.signals.topic("topic-" + i);
		}
		assertThat(counted.idleOffers(16)).isEmpty();
		assertThat(looked).hasValue(0);
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			Future<Boolean> waiter = consumer.submit(() -> counted.await("topic-150", Duration.ofSeconds(10),
					new Offers.Offer(1, 0, 0)));
			List<Offers.Offering> found = await().atMost(Duration.ofSeconds(5))
				.until(() -> counted.idleOffers(16), (offers) -> !offers.isEmpty());
			assertThat(found).extracting((offering) -> offering.topic).containsExactly("topic-150");
			// one topic looked at per step, not the 300 the instance knows
			looked.set(0);
			assertThat(counted.idleOffers(16)).hasSize(1);
			assertThat(looked).hasValue(1);
			assertThat(this.signals.topics.size()).isEqualTo(300);
			this.signals.markReady("topic-150", 0);
			assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void aThreadHoldingJobsOfOneTopicOffersForAnotherAndCollectsEachFromItsOwnOffering() throws Exception {
		Offers.Offer offer = new Offers.Offer(2, 0, 0);
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			List<ReservedJob> forT = List.of(job("a"));
			deliverToWaitingThread(offer, consumer, forT);
			Future<Boolean> waiter = consumer.submit(() -> this.offers.await("u", Duration.ofSeconds(10), offer));
			Offers.Offering forU = await().atMost(Duration.ofSeconds(5))
				.until(() -> this.offers.idleOffers(10), (found) -> !found.isEmpty())
				.get(0);
			assertThat(forU.topic).isEqualTo("u");
			List<ReservedJob> delivered = List.of(job("b"));
			assertThat(forU.deliver(delivered)).isTrue();
			assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
			assertThat(this.offers.byWaiter.size()).isEqualTo(2);
			assertThat(consumer.submit(() -> this.offers.collect("u", 2, 0, 0)).get(5, TimeUnit.SECONDS))
				.containsExactlyElementsOf(delivered);
			assertThat(consumer.submit(() -> this.offers.collect("t", 2, 0, 0)).get(5, TimeUnit.SECONDS))
				.containsExactlyElementsOf(forT);
			assertThat(this.offers.byWaiter.size()).isZero();
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void aStalePermitDoesNotEndAWaitWithTrue() throws Exception {
		this.signals.topic("t");
		// as a mark or a delivery that came after an earlier wait returned leaves it
		LockSupport.unpark(Thread.currentThread());
		long start = System.nanoTime();
		assertThat(this.offers.await("t", Duration.ofMillis(200), new Offers.Offer(1, 0, 0))).isFalse();
		assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(195));
		assertThat(this.offers.byWaiter.size()).isZero();
	}

	@Test
	void anInterruptBeforeOrDuringTheWaitThrowsAndLeavesNoOffering() throws Exception {
		this.signals.topic("t");
		// a park returns on an interrupt without throwing: the wait throws as Object.wait did, and clears it
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class)
			.isThrownBy(() -> this.offers.await("t", Duration.ofSeconds(5), new Offers.Offer(1, 0, 0)));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		assertThat(this.offers.byWaiter.size()).isZero();
		Thread me = Thread.currentThread();
		CompletableFuture.runAsync(() -> {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
			me.interrupt();
		});
		long start = System.nanoTime();
		assertThatExceptionOfType(InterruptedException.class)
			.isThrownBy(() -> this.offers.await("t", Duration.ofSeconds(5), new Offers.Offer(1, 0, 0)));
		assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
		assertThat(this.offers.byWaiter.size()).isZero();
	}

	@Test
	void aMarkRacingTheWaitIsNeverLost() throws Exception {
		this.signals.topic("t");
		// each round: the topic's marks are cleared, a thread waits, another marks at once
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 2000; round++) {
				ReadySignals.TopicSignal signal = this.signals.topic("t");
				signal.clear(0, signal.generation(0));
				CountDownLatch go = new CountDownLatch(1);
				Future<Boolean> waited = pool.submit(() -> {
					go.await();
					return this.offers.await("t", Duration.ofSeconds(5), new Offers.Offer(1, 0, 0));
				});
				Future<?> marked = pool.submit(() -> {
					go.await();
					this.signals.markReady("t", 0);
					return null;
				});
				go.countDown();
				marked.get(5, TimeUnit.SECONDS);
				long start = System.nanoTime();
				assertThat(waited.get(5, TimeUnit.SECONDS)).as("round " + round).isTrue();
				assertThat(System.nanoTime() - start).as("round " + round).isLessThan(TimeUnit.SECONDS.toNanos(1));
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aDeliveryRacingTheWaitIsNeverLost() throws Exception {
		// each round: a thread waits with an offer, jobs are delivered to it as soon as it is offered
		ReadySignals.TopicSignal signal = this.signals.topic("t");
		signal.clear(0, signal.generation(0));
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			for (int round = 0; round < 2000; round++) {
				Future<List<ReservedJob>> waited = consumer.submit(() -> {
					if (!this.offers.await("t", Duration.ofSeconds(5), new Offers.Offer(1, 0, 0))) {
						return null;
					}
					return this.offers.collect("t", 1, 0, 0);
				});
				Offers.Offering offering = null;
				while (offering == null) {
					offering = this.offers.idleOffers(1).stream().findFirst().orElse(null);
				}
				List<ReservedJob> delivered = List.of(job("a" + round));
				assertThat(offering.deliver(delivered)).isTrue();
				long start = System.nanoTime();
				assertThat(waited.get(5, TimeUnit.SECONDS)).as("round " + round).containsExactlyElementsOf(delivered);
				assertThat(System.nanoTime() - start).as("round " + round).isLessThan(TimeUnit.SECONDS.toNanos(1));
			}
			assertThat(this.offers.byWaiter.size()).isZero();
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void threadsThatWaitOnceAndEndLeaveNoOffering() throws Exception {
		this.signals.topic("t");
		// short-lived threads (virtual threads would be many more), a third of them interrupted
		for (int i = 0; i < 500; i++) {
			Thread thread = new Thread(() -> {
				try {
					this.offers.await("t", Duration.ofMillis(1), new Offers.Offer(1, 0, 0));
				}
				catch (InterruptedException ex) {
					// interrupted: the offering goes all the same
				}
			});
			thread.start();
			if (i % 3 == 0) {
				thread.interrupt();
			}
			thread.join();
		}
		assertThat(this.offers.byWaiter.size()).isZero();
	}

}
