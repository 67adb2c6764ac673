package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.listener.JobOutcome;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One instance's one pub/sub subscription carries the queue's event channel and the outcome
 * stream's channel ({@link EventSubscriber#listen}): after a Redis restart, a stop and start of
 * the queue, or a stop and start of the stream, each channel is subscribed exactly as long as
 * its owner runs, and both deliver again.
 */
class SharedSubscriptionTests {

	private RedisTestServer redis;

	private RedisQueues queues;

	private RedisJobOutcomeStream stream;

	private final List<JobOutcome> heard = new CopyOnWriteArrayList<>();

	@BeforeEach
	void setUp() {
		this.redis = RedisTestServers.local().start();
		this.queues = new RedisQueues(this.redis);
	}

	@AfterEach
	void tearDown() {
		if (this.stream != null) {
			this.stream.stop();
		}
		this.queues.close();
		this.queues.assertInvariant();
		this.redis.close();
	}

	/** Here: no timer, the stream; another instance runs the timer of the one bucket. */
	private RedisDelayQueue hereWithStream() {
		RedisDelayQueue here = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		this.queues.start((builder) -> builder.buckets(1));
		this.stream = new RedisJobOutcomeStream(here, false);
		this.stream.start();
		this.stream.subscribe(null, this.heard::add);
		return here;
	}

	private String events() {
		return this.queues.namespace + ":events";
	}

	private String outcomes() {
		return this.queues.namespace + ":outcomes";
	}

	private Map<String, Long> subscribers() {
		try (StatefulRedisConnection<String, String> connection = this.redis.connect()) {
			return connection.sync().pubsubNumsub(events(), outcomes());
		}
	}

	private void publishOutcome(String id) {
		JobOutcome outcome = new JobOutcome("shared", id, "success", 1, 3, "l", "i", null,
				Instant.ofEpochMilli(1_700_000_000_000L));
		try (StatefulRedisConnection<String, String> connection = this.redis.connect()) {
			connection.sync().publish(outcomes(), new String(this.stream.encode(outcome)));
		}
	}

	/** A job another instance makes READY wakes a consumer here: the event channel is heard. */
	private void eventsAreHeard(RedisDelayQueue here, String id) throws InterruptedException {
		// a (re)subscription marks every bucket: a reserve that finds nothing clears the marks
		await().atMost(Duration.ofSeconds(5))
			.until(() -> here.reserve("shared", 10, null).isEmpty() && !here.awaitWork("shared", Duration.ZERO));
		RedisDelayQueue other = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		other.schedule(request("shared", id, "x", Duration.ZERO));
		assertThat(here.awaitWork("shared", Duration.ofSeconds(5))).as("woken by the event channel").isTrue();
		assertThat(here.reserve("shared", 10, null)).extracting((job) -> job.id()).containsExactly(id);
	}

	private void outcomesAreHeard(String id) {
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
			publishOutcome(id);
			assertThat(this.heard).extracting(JobOutcome::id).contains(id);
		});
	}

	@Test
	void aRedisRestartSubscribesBothChannelsAgain() throws InterruptedException {
		RedisDelayQueue here = hereWithStream();
		await().atMost(Duration.ofSeconds(5)).until(here::isSubscribed);
		assertThat(subscribers()).containsEntry(events(), 2L).containsEntry(outcomes(), 1L);

		this.redis.stop();
		this.redis.start();

		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(subscribers()).containsEntry(events(), 2L).containsEntry(outcomes(), 1L));
		outcomesAreHeard("after-restart");
		eventsAreHeard(here, "after-restart");
	}

	@Test
	void theQueueStoppedAndStartedUnderARunningStreamCarriesBothChannelsAgain() throws InterruptedException {
		RedisDelayQueue here = hereWithStream();
		await().atMost(Duration.ofSeconds(5)).until(here::isSubscribed);
		here.stop();
		assertThat(subscribers()).containsEntry(events(), 1L).containsEntry(outcomes(), 0L);
		here.start();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(subscribers()).containsEntry(events(), 2L).containsEntry(outcomes(), 1L));
		outcomesAreHeard("after-queue-restart");
		eventsAreHeard(here, "after-queue-restart");
	}

	@Test
	void aStreamStoppedAndStartedLeavesTheEventChannelAndSubscribesItsOwnAgain() throws InterruptedException {
		RedisDelayQueue here = hereWithStream();
		await().atMost(Duration.ofSeconds(5)).until(here::isSubscribed);
		this.stream.stop();
		assertThat(subscribers()).containsEntry(events(), 2L).containsEntry(outcomes(), 0L);
		assertThat(here.isSubscribed()).isTrue();
		eventsAreHeard(here, "stream-stopped");

		this.stream.start();
		this.stream.subscribe(null, this.heard::add);
		// the first subscribe returns once Redis confirmed the channel
		assertThat(subscribers()).containsEntry(events(), 3L).containsEntry(outcomes(), 1L);
		outcomesAreHeard("stream-restarted");
	}

	/** The ids of the server's pub/sub connections. */
	private java.util.Set<String> pubsubClients() {
		try (StatefulRedisConnection<String, String> connection = this.redis.connect()) {
			java.util.Set<String> ids = new java.util.TreeSet<>();
			for (String line : connection.sync().clientList().split("\n")) {
				String id = null;
				boolean subscribed = false;
				for (String field : line.trim().split(" ")) {
					if (field.startsWith("id=")) {
						id = field.substring(3);
					}
					if (field.startsWith("sub=") && !field.equals("sub=0")) {
						subscribed = true;
					}
				}
				if (id != null && subscribed) {
					ids.add(id);
				}
			}
			return ids;
		}
	}

	/**
	 * Redis is down when the queue starts (not failing fast): its subscription is retried in
	 * the background. A stream consumer that subscribes once Redis is back, before that retry,
	 * has its channel from then on: the retry must not drop and re-create the subscription
	 * that now carries the outcome channel (what is published meanwhile would be lost, and a
	 * whenDone waiting for it would wait until the stream stops).
	 */
	@Test
	void aStreamThatSubscribedBeforeTheQueuesRetryKeepsItsSubscription() throws InterruptedException {
		this.redis.stop();
		RedisDelayQueue here = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false).failFast(false));
		this.stream = new RedisJobOutcomeStream(here, false);
		this.stream.start();
		// the retry's back-off has grown to seconds
		Thread.sleep(3_500);
		this.redis.start();
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> this.stream.subscribe(null, this.heard::add) != null);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(subscribers()).containsEntry(events(), 1L).containsEntry(outcomes(), 1L));
		java.util.Set<String> clients = pubsubClients();
		assertThat(clients).hasSize(1);
		// longer than the retry's longest back-off (5 s)
		long end = System.nanoTime() + Duration.ofSeconds(7).toNanos();
		java.util.Set<String> seen = new java.util.TreeSet<>(clients);
		long outcomeChannelLost = 0;
		while (System.nanoTime() < end) {
			seen.addAll(pubsubClients());
			if (subscribers().get(outcomes()) == 0L) {
				outcomeChannelLost++;
			}
			Thread.sleep(20);
		}
		assertThat(outcomeChannelLost).as("polls that found the outcome channel unsubscribed").isZero();
		assertThat(seen).as("pub/sub connections seen").isEqualTo(clients);
		outcomesAreHeard("kept");
		eventsAreHeard(here, "kept");
	}

	/**
	 * Redis goes away under a running queue: a first stream consumer that subscribes then is
	 * refused within the client's timeouts (about 10 s here), and the stream stops after. (Before
	 * the stream shared the queue's subscription, such a subscribe never returned, and the
	 * stream's stop waited for it for ever.)
	 */
	@Test
	void aFirstSubscribeWhileRedisIsDownIsRefusedAndTheStreamStillStops() throws Exception {
		RedisDelayQueue here = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		await().atMost(Duration.ofSeconds(5)).until(here::isSubscribed);
		this.stream = new RedisJobOutcomeStream(here, false);
		this.stream.start();
		this.redis.stop();
		long started = System.nanoTime();
		java.util.concurrent.CompletableFuture<Object> subscribing = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> {
				try {
					return this.stream.subscribe(null, this.heard::add);
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
		Object result = subscribing.get(45, java.util.concurrent.TimeUnit.SECONDS);
		long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
		System.out.println("subscribe while Redis is down: " + result + " after " + millis + " ms");
		assertThat(result).isInstanceOf(io.github.delayqueue.core.DelayQueueConnectionException.class);
		assertThat(millis).as("ms until the subscribe was refused").isLessThan(30_000);
		java.util.concurrent.CompletableFuture<Void> stopping = java.util.concurrent.CompletableFuture
			.runAsync(this.stream::stop);
		stopping.get(10, java.util.concurrent.TimeUnit.SECONDS);
		this.redis.start();
	}

}
