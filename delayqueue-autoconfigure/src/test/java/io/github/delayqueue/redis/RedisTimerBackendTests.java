package io.github.delayqueue.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The offers of waiting consumers (registered in {@link ReadySignals}, delivered to, collected,
 * reclaimed) and what an announcement Redis does not take does (the steps themselves are
 * covered with a real Redis in {@link RedisDelayQueueWakeUpTests} and
 * {@link RedisDelayQueueReservedAtOnceTests}).
 */
class RedisTimerBackendTests {

	private final ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { false });

	private static RedisTimerBackend backend(ReadySignals signals, QueueScripts scripts, Runnable recheck) {
		return new RedisTimerBackend(scripts, signals, "test", Duration.ofSeconds(5), 100,
				DelayQueueObserver.composite(List.of()), null, null, recheck, (topic) -> true);
	}

	@Test
	void anAnnouncementThatFailsAsksTheTimerToReCheckEveryBucket() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
		factory.afterPropertiesSet();
		factory.start();
		try {
			AtomicInteger rechecks = new AtomicInteger();
			ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { true });
			signals.topic("t");
			RedisTimerBackend backend = backend(signals,
					new QueueScripts(new ScriptRunner(factory), new KeySpace("announcer", 1), "test"), rechecks::incrementAndGet);
			backend.start();
			try {
				// no consumer waits here: announced at once, on a connection nobody answers
				backend.unannounced("t", 0, 1);
				assertThat(rechecks).hasValue(1);
			}
			finally {
				backend.stop(RedisTimerBackend.STOP_WAIT);
			}
		}
		finally {
			factory.destroy();
		}
	}

	private static ReservedJob job(String id) {
		Instant now = Instant.now();
		return new ReservedJob("t", id, new byte[0], 1, 3, now, now, now, now.plusSeconds(30), Duration.ofSeconds(30),
				7, Map.of());
	}

	@Test
	void jobsDeliveredForAnOfferGoToItsThreadsNextReserveWithTheSameArgumentsOnlyAndTheRestIsReclaimed()
			throws Exception {
		RedisTimerBackend backend = backend(this.signals, null, () -> {
		});
		ReadySignals.TopicSignal signal = this.signals.topic("t");
		RedisTimerBackend.Offer offer = new RedisTimerBackend.Offer(2, 0, 0);
		CompletableFuture<List<ReservedJob>> consumer = CompletableFuture.supplyAsync(() -> {
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
		List<RedisTimerBackend.Offering> offers = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.signals.idleOffers(10, (topic) -> true), (found) -> !found.isEmpty());
		RedisTimerBackend.Offering offering = offers.get(0);
		assertThat(offering.offer()).isEqualTo(offer);
		assertThat(backend.idleConsumers("t")).isOne();
		List<ReservedJob> delivered = List.of(job("a"), job("b"));
		assertThat(backend.deliver(offering, delivered)).isTrue();
		assertThat(consumer.get(5, TimeUnit.SECONDS)).containsExactlyElementsOf(delivered);
		// collected: nothing left to reclaim, and the thread no longer waits: a second delivery
		// to that offer is refused (the caller gives the jobs back)
		assertThat(backend.reclaim(offering, delivered)).isEmpty();
		assertThat(backend.deliver(offering, List.of(job("c")))).isFalse();
		assertThat(this.signals.idleOffers(10, (topic) -> true)).isEmpty();
		assertThat(this.signals.idleOffers(10, (topic) -> false)).isEmpty();
	}

	/**
	 * Has the consumer thread wait with an offer, delivers jobs to its offer, and returns once
	 * its wait returned {@code true} for them.
	 */
	private RedisTimerBackend.Offering deliverToWaitingThread(RedisTimerBackend backend, RedisTimerBackend.Offer offer,
			ExecutorService consumer, List<ReservedJob> delivered) throws Exception {
		ReadySignals.TopicSignal signal = this.signals.topic("t");
		Future<Boolean> waiter = consumer.submit(() -> signal.await(Duration.ofSeconds(10), offer));
		RedisTimerBackend.Offering offering = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.signals.idleOffers(10, (topic) -> true), (found) -> !found.isEmpty())
			.get(0);
		assertThat(backend.deliver(offering, delivered)).isTrue();
		assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
		return offering;
	}

	@Test
	void jobsDeliveredToAThreadThatDoesNotReserveAreReclaimedOnceAndNotHandedOutAfter() throws Exception {
		RedisTimerBackend backend = backend(this.signals, null, () -> {
		});
		RedisTimerBackend.Offer offer = new RedisTimerBackend.Offer(4, 0, 0);
		// one thread waits, and later reserves: the consumer's
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			List<ReservedJob> delivered = List.of(job("a"), job("b"));
			RedisTimerBackend.Offering offering = deliverToWaitingThread(backend, offer, consumer, delivered);
			// the thread that waited does not count as idle while its jobs wait for it
			assertThat(backend.idleConsumers("t")).isZero();
			// it never reserved: both are reclaimed, once, and its reserve then finds none
			assertThat(backend.reclaim(offering, delivered)).containsExactlyElementsOf(delivered);
			assertThat(backend.reclaim(offering, delivered)).isEmpty();
			ReadySignals.TopicSignal signal = this.signals.topic("t");
			assertThat(consumer.submit(() -> signal.collect(4, 0, 0)).get(5, TimeUnit.SECONDS)).isEmpty();
		}
		finally {
			consumer.shutdownNow();
		}
	}

	@Test
	void jobsARateLimitedReserveRefusedNoLongerEndTheThreadsWaitsAndAreReclaimedAfter() throws Exception {
		RedisTimerBackend backend = backend(this.signals, null, () -> {
		});
		RedisTimerBackend.Offer offer = new RedisTimerBackend.Offer(4, 0, 0);
		ExecutorService consumer = Executors.newSingleThreadExecutor();
		try {
			List<ReservedJob> delivered = List.of(job("a"));
			RedisTimerBackend.Offering offering = deliverToWaitingThread(backend, offer, consumer, delivered);
			// the topic got a rate limit: the thread's reserve refuses the jobs, and its next wait
			// runs out instead of returning at once for them (no spin until their hand-back)
			ReadySignals.TopicSignal signal = this.signals.topic("t");
			consumer.submit(() -> signal.refuseDelivered()).get(5, TimeUnit.SECONDS);
			assertThat(consumer.submit(() -> signal.await(Duration.ofMillis(200), offer))
				.get(5, TimeUnit.SECONDS)).isFalse();
			assertThat(consumer.submit(() -> signal.collect(4, 0, 0)).get(5, TimeUnit.SECONDS)).isEmpty();
			// they are still there for their hand-back
			assertThat(backend.reclaim(offering, delivered)).containsExactlyElementsOf(delivered);
		}
		finally {
			consumer.shutdownNow();
		}
	}

}
