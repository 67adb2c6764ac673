package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.RedisSystemException;

import io.github.delayqueue.core.DelayQueueException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The timer loop's back-off after failed steps, on a backend whose promote step fails on
 * chosen calls (a pure unit stand-in for Redis), and what a stop's interruption logs.
 */
class BucketTimerTests {

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aRecurringFiringInterruptedByStopIsNoFailure(CapturedOutput output) throws InterruptedException {
		CountDownLatch firing = new CountDownLatch(1);
		TimerBackend backend = new OwnBucketZeroBackend() {

			@Override
			public Promotion promote(int bucket, boolean guard) {
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

			@Override
			public RecurringStep fireRecurring(int bucket) {
				firing.countDown();
				try {
					Thread.sleep(TimeUnit.MINUTES.toMillis(1));
					return NONE;
				}
				catch (InterruptedException ex) {
					// as a Redis call the stop interrupts fails
					throw ScriptRunner.translate("recurring",
							new RedisSystemException("Command interrupted", ex));
				}
			}

		};
		BucketTimer timer = new BucketTimer(backend, 1, 100, Duration.ofSeconds(30), Duration.ofSeconds(1),
				new RedisClock(System::nanoTime), () -> {
				});
		timer.start();
		assertThat(firing.await(10, TimeUnit.SECONDS)).isTrue();
		timer.stop();
		assertThat(output).doesNotContain("Could not fire the recurring jobs");
	}

	@Test
	void aFailureWithoutAMessageIsNamedByItsType() {
		DelayQueueException failure = ScriptRunner.translate("recurring",
				new RedisSystemException("Command interrupted", new InterruptedException()));
		assertThat(failure).hasMessage("Redis failed during recurring: InterruptedException");
	}

	@Test
	void failedStepsAreRetriedAfterADoublingBackOffThatStartsAgainAfterASuccess() {
		List<Long> promotedAt = new CopyOnWriteArrayList<>();
		TimerBackend backend = new OwnBucketZeroBackend() {

			@Override
			public Promotion promote(int bucket, boolean guard) {
				promotedAt.add(System.nanoTime());
				int call = promotedAt.size();
				// calls 1-4 fail, 5 succeeds; the next guard re-check (call 6) fails twice
				if (call <= 4 || call == 6 || call == 7) {
					throw new IllegalStateException("promote " + call + " failed");
				}
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		};
		BucketTimer timer = new BucketTimer(backend, 1, 100, Duration.ofSeconds(30), Duration.ofSeconds(1),
				new RedisClock(System::nanoTime), () -> {
				});
		timer.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> promotedAt.size() >= 8);
			// call 8 is counted before it returns: the timer clears its error once it has
			await().atMost(Duration.ofSeconds(5)).until(() -> timer.lastError() == null);
			// 100, 200, 400, 800 ms after the first four failures
			assertThat(gapMillis(promotedAt, 0)).isBetween(95L, 1000L);
			assertThat(gapMillis(promotedAt, 1)).isBetween(195L, 1500L);
			assertThat(gapMillis(promotedAt, 2)).isBetween(395L, 2000L);
			assertThat(gapMillis(promotedAt, 3)).isBetween(795L, 3000L);
			// after the success the back-off starts again at 100 ms
			assertThat(gapMillis(promotedAt, 5)).isBetween(95L, 700L);
			assertThat(gapMillis(promotedAt, 6)).isBetween(195L, 1000L);
		}
		finally {
			timer.halt();
		}
	}

	@Test
	void theHeartbeatReadsTheEarliestExpiryOnlyOnceItMayHavePassed() {
		// each read answers that no heartbeat runs out for the next 300 ms; a beat every 20 ms
		record Beat(long nowMillis, boolean read, long earliestBefore) {
		}
		List<Beat> beats = new CopyOnWriteArrayList<>();
		long[] earliest = { 0 };
		TimerBackend backend = new OwnBucketZeroBackend() {

			@Override
			public long renew(long nowMillis, boolean readEarliest) {
				beats.add(new Beat(nowMillis, readEarliest, earliest[0]));
				if (readEarliest) {
					earliest[0] = nowMillis + 300;
					return earliest[0];
				}
				return 0;
			}

			@Override
			public Promotion promote(int bucket, boolean guard) {
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		};
		BucketTimer timer = new BucketTimer(backend, 1, 100, Duration.ofMillis(20), Duration.ofMinutes(10),
				new RedisClock(System::nanoTime), () -> {
				});
		timer.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> beats.stream().filter(Beat::read).count() >= 3);
		}
		finally {
			timer.halt();
		}
		// the first beat after a coordination reads; later ones read exactly when the earliest
		// expiry read before has come
		assertThat(beats.get(0).read()).isTrue();
		assertThat(beats).allSatisfy((beat) -> assertThat(beat.read())
			.as("beat at %d, earliest expiry read before %d", beat.nowMillis(), beat.earliestBefore())
			.isEqualTo(beat.nowMillis() >= beat.earliestBefore()));
		assertThat(beats.stream().filter((beat) -> !beat.read()).count()).isGreaterThan(beats.size() / 2);
	}

	@Test
	void theHeartbeatIsNotShortenedByAConsumersReadingAppliedLate() {
		// the queue's shared clock also takes consumers' replies; one applied late (a big reply,
		// a descheduled thread) pulls it back: the heartbeat's expiry must not follow it
		List<Long> renewals = new CopyOnWriteArrayList<>();
		long[] coordinated = { Long.MAX_VALUE };
		TimerBackend backend = new OwnBucketZeroBackend() {

			@Override
			public Coordination coordinate(boolean leaving) {
				Coordination coordination = super.coordinate(leaving);
				coordinated[0] = Math.min(coordinated[0], coordination.redisMillis());
				return coordination;
			}

			@Override
			public long renew(long nowMillis, boolean readEarliest) {
				renewals.add(nowMillis);
				return 0;
			}

			@Override
			public Promotion promote(int bucket, boolean guard) {
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		};
		RedisClock shared = new RedisClock(System::nanoTime);
		BucketTimer timer = new BucketTimer(backend, 1, 100, Duration.ofMillis(20), Duration.ofMinutes(10), shared,
				() -> {
				});
		timer.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> !renewals.isEmpty());
			shared.update(coordinated[0] - 10_000);
			int before = renewals.size();
			await().atMost(Duration.ofSeconds(10)).until(() -> renewals.size() >= before + 3);
		}
		finally {
			timer.halt();
		}
		assertThat(renewals).allSatisfy((nowMillis) -> assertThat(nowMillis).isGreaterThanOrEqualTo(coordinated[0]));
	}

	@Test
	void aBucketTakenOverIsReCheckedAsByTheGuardAtOnce() {
		// bucket 1 comes with the third coordination (another instance left it); the guard
		// interval is far away, and a coordination every 50 ms
		record Step(int bucket, boolean guard) {
		}
		List<Step> steps = new CopyOnWriteArrayList<>();
		int[] coordinations = { 0 };
		TimerBackend backend = new OwnBucketZeroBackend() {

			@Override
			public Coordination coordinate(boolean leaving) {
				coordinations[0]++;
				int[] owned = (leaving) ? new int[0] : (coordinations[0] < 3) ? new int[] { 0 } : new int[] { 0, 1 };
				return new Coordination(1, System.currentTimeMillis(), "1", 1, owned);
			}

			@Override
			public Promotion promote(int bucket, boolean guard) {
				steps.add(new Step(bucket, guard));
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		};
		BucketTimer timer = new BucketTimer(backend, 2, 100, Duration.ofMillis(50), Duration.ofHours(1),
				new RedisClock(System::nanoTime), () -> {
				});
		timer.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> steps.stream().anyMatch((step) -> step.bucket() == 1));
		}
		finally {
			timer.halt();
		}
		// its first step re-announces what the last owner left to its own consumers
		assertThat(steps.stream().filter((step) -> step.bucket() == 1).findFirst())
			.hasValue(new Step(1, true));
		// and only its own: bucket 0 had its one guard re-check at the start
		assertThat(steps.stream().filter((step) -> step.bucket() == 0 && step.guard())).hasSize(1);
	}

	@Test
	void aThreadAHaltLeftRunningEndsItsLoopOnceTheTimerStartsAgain() throws InterruptedException {
		CountDownLatch stuck = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<Thread> stepping = new CopyOnWriteArrayList<>();
		TimerBackend backend = new OwnBucketZeroBackend() {

			@Override
			public Promotion promote(int bucket, boolean guard) {
				stepping.add(Thread.currentThread());
				if (stuck.getCount() > 0) {
					// a Redis call that outlives the halt's join
					stuck.countDown();
					boolean released = false;
					while (!released) {
						try {
							released = release.await(10, TimeUnit.SECONDS);
						}
						catch (InterruptedException ex) {
							// as a call that does not answer an interrupt
						}
					}
				}
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		};
		BucketTimer timer = new BucketTimer(backend, 1, 100, Duration.ofSeconds(30), Duration.ofMillis(100),
				new RedisClock(System::nanoTime), () -> {
				});
		timer.start();
		try {
			assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();
			Thread first = stepping.get(0);
			// the halt's join ends before the thread does (here interrupted, as a timeout would)
			Thread.currentThread().interrupt();
			timer.halt();
			assertThat(Thread.interrupted()).isTrue();
			assertThat(first.isAlive()).isTrue();
			timer.start();
			release.countDown();
			await().atMost(Duration.ofSeconds(5)).until(() -> !first.isAlive());
			int before = stepping.size();
			await().atMost(Duration.ofSeconds(5)).until(() -> stepping.size() > before);
			assertThat(stepping.subList(before, stepping.size())).doesNotContain(first);
		}
		finally {
			release.countDown();
			timer.halt();
		}
	}

	@Test
	void aTimerStoppedAndStartedAgainOwnsItsBucketsAtOnce() {
		TimerBackend backend = new OwnBucketZeroBackend() {

			@Override
			public Promotion promote(int bucket, boolean guard) {
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		};
		// a heartbeat every 30 s: the start after the stop comes well before the next
		BucketTimer timer = new BucketTimer(backend, 1, 100, Duration.ofSeconds(30), Duration.ofMinutes(10),
				new RedisClock(System::nanoTime), () -> {
				});
		timer.start();
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> timer.ownedBuckets() == 1);
			timer.stop();
			assertThat(timer.ownedBuckets()).isZero();
			timer.start();
			await().atMost(Duration.ofSeconds(5)).until(() -> timer.ownedBuckets() == 1);
		}
		finally {
			timer.stop();
		}
	}

	private static long gapMillis(List<Long> nanos, int index) {
		return TimeUnit.NANOSECONDS.toMillis(nanos.get(index + 1) - nanos.get(index));
	}

}
