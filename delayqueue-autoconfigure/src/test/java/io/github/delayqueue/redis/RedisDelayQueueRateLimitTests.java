package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.actuate.DelayQueueMetrics;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Rate limits per topic: permits taken in Redis before jobs are, the jobs over the limit left
 * READY, consumers that wait for the window without commands, permits given back or lost in
 * the safe direction.
 */
class RedisDelayQueueRateLimitTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private final AtomicInteger refused = new AtomicInteger();

	private RedisDelayQueue start(RateLimit limit) {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.timerEnabled(false)
			.observer(new DelayQueueObserver() {

				@Override
				public void rateLimited(String topic) {
					RedisDelayQueueRateLimitTests.this.refused.incrementAndGet();
				}

			}));
		queue.limitRate("limited", limit);
		return queue;
	}

	private static void scheduleReady(RedisDelayQueue queue, int from, int count) {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = from; i < from + count; i++) {
			requests.add(new ScheduleRequest("limited", "j" + i, "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO,
					null, Duration.ofMinutes(5), 3, OnDuplicate.KEEP, Map.of(), null));
		}
		queue.scheduleAll(requests);
		for (int b = 0; b < queue.getBuckets(); b++) {
			TimerSteps.promote(queue, b, false);
		}
	}

	@Test
	void aReserveTakesNoMoreThanThePermitsAndTheRestWaitsReadyForTheWindow() throws InterruptedException {
		RedisDelayQueue queue = start(new RateLimit(5, Duration.ofSeconds(1)));
		scheduleReady(queue, 0, 20);
		List<ReservedJob> first = queue.reserve("limited", 20, null);
		assertThat(first).hasSize(5);
		assertThat(queue.stats().topics().get("limited").ready()).isEqualTo(15);

		// the window is full: no permit is asked for until it opens (no script runs)
		long scripts = scriptCalls();
		assertThat(queue.reserve("limited", 20, null)).isEmpty();
		assertThat(scriptCalls()).isEqualTo(scripts);
		long waitStarted = System.nanoTime();
		assertThat(queue.awaitWork("limited", Duration.ofSeconds(5))).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - waitStarted)).isGreaterThan(Duration.ofMillis(700));
		List<ReservedJob> second = queue.reserve("limited", 20, null);
		assertThat(second).hasSize(5);
		// measured by the deliveries' own Redis times: 5 in any second
		Instant lastOfFirst = first.stream().map(ReservedJob::deliveredAt).max(Instant::compareTo).orElseThrow();
		Instant firstOfSecond = second.stream().map(ReservedJob::deliveredAt).min(Instant::compareTo).orElseThrow();
		Instant earliest = first.stream().map(ReservedJob::deliveredAt).min(Instant::compareTo).orElseThrow();
		assertThat(Duration.between(earliest, firstOfSecond)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(firstOfSecond).isAfter(lastOfFirst);
	}

	private long scriptCalls() {
		try (var connection = this.queues.connectionFactory().getConnection()) {
			Object info = connection.execute("INFO", "commandstats".getBytes(StandardCharsets.UTF_8));
			String stats = (info instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8)
					: String.valueOf(info);
			long calls = 0;
			for (String line : stats.split("\r?\n")) {
				if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
					calls += Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1"));
				}
			}
			return calls;
		}
	}

	@Test
	void permitsThatTookNoJobAreGivenBack() {
		RedisDelayQueue queue = start(new RateLimit(5, Duration.ofMinutes(1)));
		scheduleReady(queue, 0, 2);
		assertThat(queue.reserve("limited", 5, null)).hasSize(2);
		scheduleReady(queue, 2, 10);
		// the three permits the first reserve did not use are there
		assertThat(queue.reserve("limited", 10, null)).hasSize(3);
		// and that reserve filled the window: the next asks Redis nothing
		long scripts = scriptCalls();
		assertThat(queue.reserve("limited", 10, null)).isEmpty();
		assertThat(scriptCalls()).isEqualTo(scripts);
		assertThat(this.refused.get()).isZero();
	}

	@Test
	void permitsTakenByAConsumerThatDiedAreLostUntilTheWindowMovesNeverTwice() {
		RedisDelayQueue queue = start(new RateLimit(5, Duration.ofMinutes(1)));
		RateLimits limits = new RateLimits(new ScriptRunner(this.queues.connectionFactory()),
				new KeySpace(this.queues.namespace, queue.getBuckets()));
		// a consumer took 3 permits and died before it took jobs or gave them back
		assertThat(limits.take("limited", new RateLimit(5, Duration.ofMinutes(1)), 3).granted()).isEqualTo(3);
		scheduleReady(queue, 0, 10);
		assertThat(queue.reserve("limited", 10, null)).hasSize(2);
	}

	@Test
	void aLateGiveBackNeverReturnsTheSameNumbersOfALaterGrant() {
		RedisDelayQueue queue = start(new RateLimit(3, Duration.ofSeconds(1)));
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		RateLimits limits = new RateLimits(new ScriptRunner(this.queues.connectionFactory()), keys);
		RateLimit limit = new RateLimit(3, Duration.ofSeconds(1));
		RateLimits.Grant early = limits.take("limited", limit, 3);
		assertThat(early.granted()).isEqualTo(3);
		// the topic is idle for a window: its keys expire, and the numbering starts again
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			try (var connection = this.queues.connectionFactory().getConnection()) {
				return !connection.keyCommands().exists(keys.rateGrants("limited"));
			}
		});
		RateLimits.Grant later = limits.take("limited", limit, 3);
		assertThat(later.granted()).isEqualTo(3);
		assertThat(later.first()).isEqualTo(early.first());
		// the first consumer's give-back, a window late, returns none of the later grant's
		limits.giveBack("limited", early, 3);
		assertThat(limits.take("limited", limit, 1).granted()).isZero();
	}

	@Test
	void withJedisAGiveBackReadsItsAnswerWithoutFailing() {
		RedisTestServer server = RedisTestServers.shared();
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
		if (server.password() != null) {
			configuration.setPassword(server.password());
		}
		JedisConnectionFactory jedis = new JedisConnectionFactory(configuration);
		jedis.afterPropertiesSet();
		jedis.start();
		// the failure of a give-back is logged at debug only
		Logger logger = (Logger) LoggerFactory.getLogger(RateLimits.class);
		Level level = logger.getLevel();
		ListAppender<ILoggingEvent> lines = new ListAppender<>();
		lines.start();
		logger.addAppender(lines);
		logger.setLevel(Level.DEBUG);
		try {
			RateLimits limits = new RateLimits(new ScriptRunner(jedis), new KeySpace(this.queues.namespace, 1));
			RateLimit limit = new RateLimit(3, Duration.ofMinutes(1));
			limits.giveBack("limited", limits.take("limited", limit, 3), 3);
			assertThat(limits.take("limited", limit, 3).granted()).isEqualTo(3);
			assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).isEmpty();
		}
		finally {
			logger.detachAppender(lines);
			logger.setLevel(level);
			jedis.destroy();
		}
	}

	@Test
	void aTakeAfterThePermitsMarginTakesNothingAndLeavesTheBucketMarked() {
		RedisDelayQueue queue = start(new RateLimit(5, Duration.ofSeconds(1)));
		scheduleReady(queue, 0, 1);
		int bucket = queue.bucketOf("limited", "j0");
		QueueScripts scripts = new QueueScripts(new ScriptRunner(this.queues.connectionFactory()),
				new KeySpace(this.queues.namespace, queue.getBuckets()), "test");
		ScriptReplies.Taken late = scripts.reserve(bucket, "limited", 5, 0, 0, 1);
		assertThat(late.late()).isTrue();
		assertThat(late.jobs()).isEmpty();
		assertThat(queue.stats().topics().get("limited").ready()).isEqualTo(1);
		assertThat(queue.reserve("limited", 5, null)).hasSize(1);
	}

	@Test
	void twoInstancesShareTheLimit() throws InterruptedException {
		RedisDelayQueue a = start(new RateLimit(10, Duration.ofMinutes(1)));
		RedisDelayQueue b = start(new RateLimit(10, Duration.ofMinutes(1)));
		scheduleReady(a, 0, 50);
		List<ReservedJob> taken = java.util.Collections.synchronizedList(new ArrayList<>());
		List<Thread> threads = new ArrayList<>();
		for (RedisDelayQueue queue : List.of(a, b, a, b)) {
			Thread thread = new Thread(() -> {
				for (int i = 0; i < 10; i++) {
					taken.addAll(queue.reserve("limited", 3, null));
				}
			});
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(taken).hasSize(10);
		assertThat(a.stats().topics().get("limited").ready()).isEqualTo(40);
	}

	@Test
	void aReserveThatFindsTheWindowFullIsCounted() {
		RedisDelayQueue a = start(new RateLimit(1, Duration.ofMinutes(1)));
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RedisDelayQueue b = this.queues.start((builder) -> builder.timerEnabled(false)
			.observer(new DelayQueueMetrics(registry, 100)));
		b.limitRate("limited", new RateLimit(1, Duration.ofMinutes(1)));
		scheduleReady(a, 0, 3);
		assertThat(a.reserve("limited", 3, null)).hasSize(1);
		// b does not know the window is full: Redis refuses it, once
		assertThat(b.reserve("limited", 3, null)).isEmpty();
		assertThat(b.reserve("limited", 3, null)).isEmpty();
		assertThat(registry.get("delayqueue.rate.limited").tag("topic", "limited").counter().count()).isEqualTo(1);
		assertThat(this.refused.get()).isZero();
	}

	@Test
	void finishAndReserveOfALimitedTopicTakesItsNextJobsWithPermitsToo() {
		RedisDelayQueue queue = start(new RateLimit(3, Duration.ofMinutes(1)));
		scheduleReady(queue, 0, 10);
		List<ReservedJob> first = queue.reserve("limited", 2, null);
		assertThat(first).hasSize(2);
		var result = queue.finishAndReserve(first, 5, null);
		assertThat(result.stale()).isEmpty();
		assertThat(result.next()).hasSize(1);
	}

	@Test
	void aTopicHasOneLimitAndLimitsAreChecked() {
		RedisDelayQueue queue = start(new RateLimit(5, Duration.ofSeconds(1)));
		queue.limitRate("limited", new RateLimit(5, Duration.ofSeconds(1)));
		assertThatIllegalStateException().isThrownBy(() -> queue.limitRate("limited", RateLimit.parse("6/1s")))
			.withMessage("topic 'limited' has the rate limit 5/PT1S already; it cannot also have 6/PT1S (one limit per"
					+ " topic, the same on every instance)");
		assertThat(queue.rateLimit("limited")).contains(new RateLimit(5, Duration.ofSeconds(1)));
		assertThat(queue.rateLimit("other")).isEmpty();

		assertThat(RateLimit.parse("50/1s")).isEqualTo(new RateLimit(50, Duration.ofSeconds(1)));
		assertThat(RateLimit.parse("100/s")).isEqualTo(new RateLimit(100, Duration.ofSeconds(1)));
		assertThat(RateLimit.parse("600/1m")).isEqualTo(new RateLimit(600, Duration.ofMinutes(1)));
		assertThat(RateLimit.parse(" 1000 / PT1M ")).isEqualTo(new RateLimit(1000, Duration.ofMinutes(1)));
		assertThat(RateLimit.parse("10/m")).isEqualTo(new RateLimit(10, Duration.ofMinutes(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("50"))
			.withMessage("rate limit must be <permits>/<interval> such as 50/1s, 100/s or 600/1m, was '50'");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("0/1s"))
			.withMessage("permits must be between 1 and 100000, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("5/500ms"))
			.withMessage("per must be whole milliseconds between PT1S and P1D, was PT0.5S");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("5/1q"))
			.withMessageContaining("'1q' in '5/1q' is no interval");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(null))
			.withMessage("rate limit must be <permits>/<interval> such as 50/1s, 100/s or 600/1m, was 'null'");
	}

}
