package io.github.delayqueue.redis;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.NotEnoughReplicasException;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.KillArgs;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.SocketAddressResolver;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@code waitReplicas}: a write (schedule, cancel, reschedule, replay, finish) that does not
 * reach the replicas asked for in time is an error that says what happened (the fail-over case
 * is in RedisSentinelTests).
 */
class RedisDelayQueueReplicaWaitTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void withoutTheReplicasAskedForAScheduleIsNotAcknowledged() {
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.waitReplicas(1).waitTimeout(Duration.ofMillis(100)));
		assertRefused(queue);
	}

	@Test
	void aTriggerWithoutTheReplicasAskedForSaysWhichOccurrenceItMayHaveCreated() {
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.waitReplicas(1).waitTimeout(Duration.ofMillis(100)));
		RecurringJobs recurring = queue.getRecurringJobs();
		assertNotAcknowledged(() -> recurring
			.put(RecurringJob.builder("report").topic("reports").every(Duration.ofHours(1)).payload("r").build()));
		assertThatExceptionOfType(NotEnoughReplicasException.class).isThrownBy(() -> recurring.trigger("report"))
			.withMessageContaining("reached 0 of the 1 replicas")
			.withMessageContaining("triggering again creates another")
			.withMessageNotContaining("running it again is safe")
			.satisfies((ex) -> {
				java.util.regex.Matcher job = java.util.regex.Pattern.compile("created job '([^']+)' of topic 'reports'")
					.matcher(ex.getMessage());
				assertThat(job.find()).isTrue();
				assertThat(queue.find("reports", job.group(1))).isPresent();
			});
	}

	@Test
	void aRateLimitedTakeWithoutTheReplicasAskedForGivesItsPermitsBack() {
		RedisDelayQueue waiting = this.queues
			.start((builder) -> builder.waitReplicas(1).waitTimeout(Duration.ofMillis(100)));
		RateLimit limit = new RateLimit(2, Duration.ofMinutes(10));
		waiting.limitRate("limited", limit);
		for (String id : List.of("a", "b")) {
			assertNotAcknowledged(() -> waiting.schedule(request("limited", id, "x", Duration.ZERO)));
		}
		await().until(() -> waiting.stats().topics().get("limited").ready() == 2);
		assertNotAcknowledged(() -> waiting.reserve("limited", 2, Duration.ofMinutes(1)));
		// the take is on the master, its permits given back: a queue that does not wait takes both jobs
		RedisDelayQueue plain = this.queues.start();
		plain.limitRate("limited", limit);
		assertTakesBoth(plain, "limited");
	}

	@Test
	void aWriteThatChangesNothingAnswersWithoutTheReplicas() {
		RedisDelayQueue plain = this.queues.start();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.waitReplicas(1).waitTimeout(Duration.ofMillis(100)));
		assertThat(queue.cancel("none", "missing")).isFalse();
		assertThat(queue.reschedule("none", "missing", Duration.ofHours(1))).isEqualTo(RescheduleResult.NOT_FOUND);
		assertThat(queue.replayDead("none", "missing")).isFalse();
		// a bulk replay goes past the buckets that have no DEAD job
		String id = IntStream.range(0, 1_000).mapToObj((i) -> "j" + i)
			.filter((candidate) -> plain.bucketOf("dead", candidate) != 0)
			.findFirst()
			.orElseThrow();
		kill(plain, List.of(id));
		assertNotAcknowledged(() -> queue.replayDeadJobs("dead", 10));
		assertThat(plain.find("dead", id).orElseThrow().state()).isEqualTo(JobState.READY);
	}

	@Test
	void aBulkReplayWithoutTheReplicasAskedForSaysHowManyItReplayed() {
		RedisDelayQueue plain = this.queues.start();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.waitReplicas(1).waitTimeout(Duration.ofMillis(100)));
		kill(plain, IntStream.range(0, 1_000).mapToObj((i) -> "j" + i)
			.filter((id) -> plain.bucketOf("dead", id) == 0)
			.limit(3)
			.toList());
		assertThatExceptionOfType(NotEnoughReplicasException.class).isThrownBy(() -> queue.replayDeadJobs("dead", 2))
			.withMessageStartingWith("Replayed 2 of up to 2 DEAD job(s) of topic 'dead' (replaying again replays up to 2 more)")
			.withMessageContaining("reached 0 of the 1 replicas");
		assertThat(plain.stats().topics().get("dead").dead()).isEqualTo(1);
	}

	/** Makes jobs {@code ids} of topic "dead" DEAD. */
	private static void kill(RedisDelayQueue queue, List<String> ids) {
		ids.forEach((id) -> queue.schedule(request("dead", id, "x", Duration.ZERO)));
		await().until(() -> queue.stats().topics().get("dead").ready() == ids.size());
		List<ReservedJob> reserved = queue.reserve("dead", ids.size(), Duration.ofMinutes(1));
		assertThat(reserved).hasSize(ids.size());
		reserved.forEach((job) -> queue.kill(job, "dead on purpose"));
	}

	/** Reserves the topic's two jobs, which takes both permits of its limit (a reserve may find one bucket first). */
	private static void assertTakesBoth(RedisDelayQueue queue, String topic) {
		List<ReservedJob> taken = new java.util.ArrayList<>();
		await(topic).atMost(Duration.ofSeconds(10)).until(() -> {
			taken.addAll(queue.reserve(topic, 2 - taken.size(), Duration.ofMinutes(1)));
			return taken.size() == 2;
		});
	}

	@Test
	void aRateLimitedTakeGivesItsPermitsBackOnAPipelineAndWithJedis() {
		RedisTestServer redis = RedisTestServers.shared();
		LettuceConnectionFactory unshared = TestConnections.lettuce(redis, Duration.ofSeconds(5));
		unshared.setShareNativeConnection(false);
		JedisConnectionFactory jedis = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		jedis.setUseUnifiedJedis(false);
		jedis.afterPropertiesSet();
		jedis.start();
		RedisDelayQueue plain = this.queues.start();
		RateLimit limit = new RateLimit(2, Duration.ofMinutes(10));
		try {
			for (RedisConnectionFactory factory : List.of(unshared, jedis)) {
				String topic = "limited-" + factory.getClass().getSimpleName();
				RedisDelayQueue queue = RedisDelayQueue.builder(factory)
					.namespace(this.queues.namespace)
					.waitReplicas(1)
					.waitTimeout(Duration.ofMillis(100))
					.build();
				queue.start();
				try {
					queue.limitRate(topic, limit);
					plain.schedule(request(topic, "a", "x", Duration.ZERO));
					plain.schedule(request(topic, "b", "x", Duration.ZERO));
					await().until(() -> plain.stats().topics().get(topic).ready() == 2);
					assertNotAcknowledged(() -> queue.reserve(topic, 2, Duration.ofMinutes(1)));
					plain.limitRate(topic, limit);
					assertTakesBoth(plain, topic);
				}
				finally {
					queue.stop();
				}
			}
		}
		finally {
			unshared.destroy();
			jedis.destroy();
		}
	}

	@Test
	void aTriggerWhoseWaitWentOnAnotherConnectionNamesTheOccurrenceItMayHaveCreated() throws Exception {
		alone("reconnect", Duration.ofSeconds(30), true, Duration.ofSeconds(3), (admin, lettuce, queue) -> {
			RecurringJobs recurring = queue.getRecurringJobs();
			assertNotAcknowledged(() -> recurring
				.put(RecurringJob.builder("report").topic("reports").every(Duration.ofHours(1)).payload("r").build()));
			CompletableFuture<Optional<String>> trigger = CompletableFuture.supplyAsync(() -> recurring.trigger("report"));
			// the connection of the trigger's WAIT dropped: Lettuce sends WAIT again on a new one
			await().atMost(Duration.ofSeconds(5)).until(() -> clientIn(admin, "cmd=wait") != null);
			admin.sync().clientKill(KillArgs.Builder.id(Long.parseLong(clientIn(admin, "cmd=wait"))));
			assertThat(trigger).failsWithin(Duration.ofSeconds(30))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(DelayQueueConnectionException.class)
				.withMessageContaining("was replaced between the recurring and its WAIT")
				.withMessageContaining("triggering again creates another")
				.withMessageNotContaining("safe");
			assertThat(queue.stats().topics().get("reports").ready()).as("the occurrence on the master").isEqualTo(1);
		});
	}

	@Test
	void jedisWaitsForReplicasOnItsOwnConnection() {
		withJedis(false, (queue) -> assertRefused(queue));
	}

	@Test
	void jedisWithAPooledClientIsToldToUseOneConnectionPerOperation() {
		withJedis(true, (queue) -> assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.schedule(request("acked", "u", "x", Duration.ofHours(1))))
			.withMessageContaining("setUseUnifiedJedis(false)"));
	}

	private void withJedis(boolean unified, java.util.function.Consumer<RedisDelayQueue> test) {
		RedisTestServer redis = RedisTestServers.shared();
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		factory.setUseUnifiedJedis(unified);
		factory.afterPropertiesSet();
		factory.start();
		RedisDelayQueue queue = RedisDelayQueue.builder(factory)
			.namespace(this.queues.namespace + "-jedis-" + unified)
			.waitReplicas(1)
			.waitTimeout(Duration.ofMillis(100))
			.build();
		try {
			queue.start();
			test.accept(queue);
		}
		finally {
			queue.stop();
			factory.destroy();
		}
	}

	private static void assertRefused(RedisDelayQueue queue) {
		assertThatExceptionOfType(NotEnoughReplicasException.class)
			.isThrownBy(() -> queue.schedule(request("acked", "a", "x", Duration.ofHours(1))))
			.withMessageContaining("reached 0 of the 1 replicas")
			.withMessageContaining("delayqueue.redis.wait-replicas")
			.withMessageContaining("it is on the master");
		// the write itself is on the master
		assertThat(queue.find("acked", "a")).isPresent();
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.scheduleAll(List.of(request("acked", "b", "x", Duration.ofHours(1)))));
		// reads do not wait
		assertThat(queue.stats().topics().get("acked").delayed()).isEqualTo(2);
		// nor does any other write a caller is answered for; each is on the master all the same
		assertNotAcknowledged(() -> queue.reschedule("acked", "b", Duration.ofHours(2)));
		assertThat(queue.find("acked", "b").orElseThrow().dueAt())
			.isAfter(java.time.Instant.now().plus(Duration.ofMinutes(90)));
		assertNotAcknowledged(() -> queue.cancel("acked", "a"));
		assertThat(queue.find("acked", "a")).isEmpty();
		assertNotAcknowledged(() -> queue.schedule(request("acked", "c", "x", Duration.ZERO)));
		ReservedJob reserved = await().until(() -> queue.reserve("acked", 1, Duration.ofMinutes(1)), (jobs) -> !jobs.isEmpty())
			.get(0);
		queue.kill(reserved, "dead on purpose");
		assertNotAcknowledged(() -> queue.replayDead("acked", "c"));
		assertThat(queue.find("acked", "c").orElseThrow().state()).isEqualTo(JobState.READY);
	}

	private static void assertNotAcknowledged(org.assertj.core.api.ThrowableAssert.ThrowingCallable write) {
		assertThatExceptionOfType(NotEnoughReplicasException.class).isThrownBy(write)
			.withMessageContaining("reached 0 of the 1 replicas");
	}

	@Test
	void aWriteWaitingForReplicasHoldsNoOtherCallOfTheInstance() throws Exception {
		// the endurance run's stall: WAIT on Lettuce's shared connection held every call behind it
		try (RedisTestServer redis = RedisTestServers.local().start();
				StatefulRedisConnection<String, String> admin = redis.connect()) {
			LettuceConnectionFactory lettuce = TestConnections.lettuce(redis, Duration.ofSeconds(30));
			RedisDelayQueue queue = RedisDelayQueue.builder(lettuce)
				.namespace(this.queues.namespace + "-held")
				.waitReplicas(1)
				.waitTimeout(Duration.ofSeconds(5))
				.build();
			queue.start();
			try {
				// a job to reserve, written without waiting
				RedisDelayQueue.builder(lettuce).namespace(queue.getNamespace()).build()
					.schedule(request("acked", "read", "x", Duration.ZERO));
				await().atMost(Duration.ofSeconds(10))
					.until(() -> queue.find("acked", "read").orElseThrow().state() == JobState.READY);
				CompletableFuture<Void> writing = CompletableFuture
					.runAsync(() -> queue.scheduleAll(List.of(request("acked", "a", "x", Duration.ofHours(1)),
							request("acked", "b", "x", Duration.ofHours(1)))));
				await().atMost(Duration.ofSeconds(5)).until(() -> clientIn(admin, "cmd=wait") != null);
				// reads, a reservation and a release answer while the WAIT still waits
				assertThat(queue.stats().topics().get("acked").delayed()).isEqualTo(2);
				assertThat(queue.reserve("acked", 1, Duration.ofSeconds(30))).hasSize(1);
				assertThat(clientIn(admin, "cmd=wait")).as("the WAIT, still waiting").isNotNull();
				assertThat(writing).failsWithin(Duration.ofSeconds(20))
					.withThrowableThat()
					.havingRootCause()
					.withMessageContaining("reached 0 of the 1 replicas");
				// stopped, its own connection is closed; started again, it opens another
				queue.stop();
				assertThat(clientIn(admin, "cmd=wait")).isNull();
				queue.start();
				assertScheduleRefused(queue);
			}
			finally {
				queue.stop();
				lettuce.destroy();
			}
			QueueInvariant.assertHolds(redis, queue.getNamespace(), queue.getBuckets());
		}
	}

	@Test
	void theOwnConnectionClosesAfterTheWritesOnItAndFollowsTheFactory() throws Exception {
		alone("own", Duration.ofSeconds(30), true, Duration.ofSeconds(3), (admin, lettuce, queue) -> {
			Pending writing = pending(admin, () -> queue.scheduleAll(List.of(
					request("acked", "a", "x", Duration.ofHours(1)), request("acked", "b", "x", Duration.ofHours(1)))));
			// stopped under a write: the write still gets the replicas' answer, then the connection closes
			queue.stop();
			assertThat(writing.write()).failsWithin(Duration.ofSeconds(20))
				.withThrowableThat()
				.havingRootCause()
				.withMessageContaining("reached 0 of the 1 replicas");
			await().atMost(Duration.ofSeconds(5))
				.until(() -> !admin.sync().clientList().contains("id=" + writing.client() + " "));
			long stopped = clients(admin);
			// a write of a stopped queue opens one again; the next stop closes it
			assertScheduleRefused(queue);
			assertThat(clients(admin)).isEqualTo(stopped + 1);
			queue.stop();
			await().atMost(Duration.ofSeconds(5)).until(() -> clients(admin) == stopped);
			// the factory stopped and started again: its new client opens the next one
			lettuce.stop();
			lettuce.start();
			assertScheduleRefused(queue);
		});
	}

	@Test
	void aConnectionWhoseWaitTimedOutHereIsNotUsedAgain() throws Exception {
		alone("timed-out", Duration.ofSeconds(1), true, Duration.ofSeconds(8), (admin, lettuce, queue) -> {
			Pending timedOut = pending(admin, () -> queue.schedule(request("acked", "a", "x", Duration.ofHours(1))));
			assertThat(timedOut.write()).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(RedisCommandTimeoutException.class);
			// closed with its WAIT, not given to the next write, which would queue behind it
			await().atMost(Duration.ofSeconds(5))
				.until(() -> !admin.sync().clientList().contains("id=" + timedOut.client() + " "));
			CompletableFuture<Void> next = CompletableFuture
				.runAsync(() -> queue.schedule(request("acked", "b", "x", Duration.ofHours(1))));
			await().atMost(Duration.ofSeconds(5)).until(() -> clientIn(admin, "cmd=wait") != null);
			assertThat(next).failsWithin(Duration.ofSeconds(10));
		});
	}

	@Test
	void concurrentWritesThatWaitEachWaitOnAConnectionOfTheirOwn() throws Exception {
		for (boolean shared : List.of(true, false)) {
			alone("concurrent-" + shared, Duration.ofSeconds(30), shared, Duration.ofSeconds(5), (admin, lettuce, queue) -> {
				List<CompletableFuture<Void>> writes = List.of("a", "b", "c")
					.stream()
					.map((id) -> CompletableFuture.runAsync(() -> queue.schedule(
							request("acked", id, "x", Duration.ofHours(1))), Executors.newSingleThreadExecutor()))
					.toList();
				// three WAITs at once, not one behind the other
				await().atMost(Duration.ofSeconds(4))
					.until(() -> admin.sync().clientList().lines().filter((line) -> line.contains(" cmd=wait ")).count() == 3);
				assertThat(queue.stats().topics().get("acked").delayed()).isEqualTo(3);
				writes.forEach((write) -> assertThat(write).failsWithin(Duration.ofSeconds(20))
					.withThrowableThat()
					.havingRootCause()
					.withMessageContaining("reached 0 of the 1 replicas"));
			});
		}
	}

	/** What a test does with a server of its own, which has no replica, and a queue on it whose writes wait. */
	@FunctionalInterface
	private interface Alone {

		void run(StatefulRedisConnection<String, String> admin, LettuceConnectionFactory lettuce, RedisDelayQueue queue)
				throws Exception;

	}

	/** Runs a test on a server of its own with no replica, then stops the queue and checks the invariant. */
	private void alone(String name, Duration commandTimeout, boolean shared, Duration waitTimeout, Alone test)
			throws Exception {
		try (RedisTestServer redis = RedisTestServers.local().start();
				StatefulRedisConnection<String, String> admin = redis.connect()) {
			LettuceConnectionFactory lettuce = TestConnections.lettuce(redis, commandTimeout);
			lettuce.setShareNativeConnection(shared);
			RedisDelayQueue queue = replicated(lettuce, name, waitTimeout);
			try {
				test.run(admin, lettuce, queue);
			}
			finally {
				queue.stop();
				lettuce.destroy();
			}
			QueueInvariant.assertHolds(redis, queue.getNamespace(), queue.getBuckets());
		}
	}

	@Test
	void aStaticMasterReplicaFactoryWaitsOnItsOwnConnections() throws Exception {
		try (RedisTestServer master = RedisTestServers.local().start();
				RedisTestServer replica = RedisTestServers.local()
					.argument("--replicaof", master.host(), String.valueOf(master.port()))
					.start();
				StatefulRedisConnection<String, String> admin = master.connect()) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> admin.sync().info("replication").contains("state=online"));
			RedisStaticMasterReplicaConfiguration configuration = new RedisStaticMasterReplicaConfiguration(
					master.host(), master.port());
			configuration.node(replica.host(), replica.port());
			LettuceConnectionFactory lettuce = new LettuceConnectionFactory(configuration,
					LettuceClientConfiguration.builder().readFrom(ReadFrom.REPLICA_PREFERRED).build());
			lettuce.afterPropertiesSet();
			lettuce.start();
			// not started: Lettuce has no pub/sub on a static master/replica set-up
			RedisDelayQueue queue = RedisDelayQueue.builder(lettuce)
				.namespace(this.queues.namespace + "-static")
				.waitReplicas(1)
				.waitTimeout(Duration.ofSeconds(5))
				.build();
			// more replicas than there are: a WAIT that waits holds no other call
			RedisDelayQueue waiting = RedisDelayQueue.builder(lettuce)
				.namespace(this.queues.namespace + "-alone")
				.waitReplicas(2)
				.waitTimeout(Duration.ofSeconds(5))
				.build();
			try {
				queue.schedule(request("acked", "a", "x", Duration.ofHours(1)));
				assertThat(queue.scheduleAll(List.of(request("acked", "b", "x", Duration.ofHours(1)),
						request("acked", "c", "x", Duration.ofHours(1))))).hasSize(2);
				CompletableFuture<Void> writing = CompletableFuture
					.runAsync(() -> waiting.schedule(request("acked", "d", "x", Duration.ofHours(1))));
				await().atMost(Duration.ofSeconds(5)).until(() -> clientIn(admin, "cmd=wait") != null);
				assertThat(waiting.stats().topics().get("acked").delayed()).isEqualTo(1);
				assertThat(clientIn(admin, "cmd=wait")).as("the WAIT, still waiting").isNotNull();
				assertThat(writing).failsWithin(Duration.ofSeconds(20))
					.withThrowableThat()
					.havingRootCause()
					.withMessageContaining("reached 1 of the 2 replicas");
			}
			finally {
				queue.stop();
				waiting.stop();
				lettuce.destroy();
			}
			QueueInvariant.assertHolds(master, this.queues.namespace + "-static", 1);
			QueueInvariant.assertHolds(master, this.queues.namespace + "-alone", 1);
		}
	}

	private static long clients(StatefulRedisConnection<String, String> admin) {
		return admin.sync().clientList().lines().count();
	}

	/** A write started in the background, once its {@code WAIT} runs in Redis, and that client's id. */
	private static Pending pending(StatefulRedisConnection<String, String> admin, Runnable write) {
		CompletableFuture<Void> started = CompletableFuture.runAsync(write);
		await().atMost(Duration.ofSeconds(5)).until(() -> clientIn(admin, "cmd=wait") != null);
		return new Pending(started, clientIn(admin, "cmd=wait"));
	}

	private record Pending(CompletableFuture<Void> write, String client) {
	}

	/**
	 * Starts {@code DEBUG SLEEP} on a server and waits until it no longer answers a {@code PING}
	 * within 300 ms; the probe connects first (a connection opened while the server sleeps would
	 * wait for the sleep to end).
	 * @return the thread that sleeps, ended when the server wakes
	 */
	private static Thread sleep(RedisTestServer server, int seconds) {
		try (StatefulRedisConnection<String, String> probe = server.connect()) {
			probe.sync().ping();
			probe.setTimeout(Duration.ofMillis(300));
			Thread sleeper = new Thread(() -> {
				try (StatefulRedisConnection<String, String> asleep = server.connect()) {
					asleep.sync()
						.dispatch(CommandType.DEBUG, new StatusOutput<>(StringCodec.UTF8),
								new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add(seconds));
				}
			});
			sleeper.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				try {
					probe.sync().ping();
					return false;
				}
				catch (RedisCommandTimeoutException ex) {
					return true;
				}
			});
			return sleeper;
		}
	}

	private static void assertScheduleRefused(RedisDelayQueue queue) {
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.schedule(request("acked", "again", "x", Duration.ofHours(1))))
			.withMessageContaining("reached 0 of the 1 replicas");
	}

	@Test
	void bulkAndAsyncSchedulesWaitForAReplicaOnTheConnectionThatWrote() throws Exception {
		try (RedisTestServer master = RedisTestServers.local().start();
				RedisTestServer replica = RedisTestServers.local()
					.argument("--replicaof", master.host(), String.valueOf(master.port()))
					.argument(debugCommand(master))
					.start()) {
			LettuceConnectionFactory lettuce = TestConnections.lettuce(master, Duration.ofSeconds(10));
			JedisConnectionFactory jedis = new JedisConnectionFactory(
					new RedisStandaloneConfiguration(master.host(), master.port()));
			jedis.setUseUnifiedJedis(false);
			jedis.afterPropertiesSet();
			jedis.start();
			RedisDelayQueue viaLettuce = replicated(lettuce, "lettuce");
			RedisDelayQueue viaJedis = replicated(jedis, "jedis");
			DelayedJobTemplate template = new DelayedJobTemplate(viaLettuce,
					new JacksonJobPayloadConverter(JsonMapper.builder().build()));
			try (StatefulRedisConnection<String, String> admin = master.connect()) {
				await().atMost(Duration.ofSeconds(20))
					.until(() -> admin.sync().info("replication").contains("state=online"));
				// the replica answers: every kind of schedule is acknowledged
				assertThat(viaLettuce.scheduleAll(List.of(request("acked", "in-sync", "x", Duration.ofHours(1)))))
					.hasSize(1);
				assertThat(viaJedis.scheduleAll(List.of(request("acked", "in-sync", "x", Duration.ofHours(1)))))
					.hasSize(1);
				assertThat(template.job("acked", "async-in-sync").payload("x").delay(Duration.ofHours(1)).scheduleAsync())
					.succeedsWithin(Duration.ofSeconds(10));
				// a write on the shared connection that the replica has: a WAIT sent there later would
				// be answered at once, whatever a pipeline wrote meanwhile
				viaLettuce.schedule(request("acked", "shared", "x", Duration.ofHours(1)));

				// the replica stops applying writes: none of them may be acknowledged
				Thread sleeper = sleep(replica, 15);
				for (RedisDelayQueue queue : List.of(viaLettuce, viaJedis)) {
					assertThatExceptionOfType(DelayQueueException.class)
						.isThrownBy(() -> queue.scheduleAll(List.of(request("acked", "bulk", "x", Duration.ofHours(1)),
								request("acked", "bulk-2", "x", Duration.ZERO))))
						.withMessageContaining("reached 0 of the 1 replicas");
				}
				assertThat(template.job("acked", "async").payload("x").delay(Duration.ofHours(1)).scheduleAsync())
					.failsWithin(Duration.ofSeconds(10))
					.withThrowableThat()
					.havingRootCause()
					.withMessageContaining("reached 0 of the 1 replicas");
				assertThatExceptionOfType(DelayQueueException.class)
					.isThrownBy(() -> viaLettuce.schedule(request("acked", "single", "x", Duration.ofHours(1))))
					.withMessageContaining("reached 0 of the 1 replicas");
				sleeper.join();
			}
			finally {
				template.close();
				viaLettuce.stop();
				viaJedis.stop();
				lettuce.destroy();
				jedis.destroy();
			}
		}
	}

	@Test
	void aScheduleIsNotAcknowledgedByTheReplicasOfAnotherServerAfterAReconnect() throws Exception {
		assertNotAcknowledgedAcrossAFailover(
				(queue) -> queue.schedule(request("acked", "moved", "x", Duration.ofHours(1))));
	}

	@Test
	void aBulkScheduleIsNotAcknowledgedByTheReplicasOfAnotherServerAfterAReconnect() throws Exception {
		assertNotAcknowledgedAcrossAFailover(
				(queue) -> queue.scheduleAll(List.of(request("acked", "moved", "x", Duration.ofHours(1)))));
	}

	/**
	 * A Sentinel fail-over in miniature: the queue writes to a first master, which has no
	 * replica, and waits for one; meanwhile the clients learn that a second master (with a
	 * replica) is the one to use, and the first closes their connections. Lettuce sends the
	 * pending {@code WAIT} again on its new connection to the second master, whose replica
	 * answers it at once: that must not acknowledge a job that only the first one has.
	 */
	private void assertNotAcknowledgedAcrossAFailover(java.util.function.Consumer<RedisDelayQueue> write)
			throws Exception {
		try (RedisTestServer first = RedisTestServers.local().start();
				RedisTestServer second = RedisTestServers.local().start();
				RedisTestServer replica = RedisTestServers.local()
					.argument("--replicaof", second.host(), String.valueOf(second.port()))
					.start()) {
			MovingAddress address = new MovingAddress(first);
			ClientResources resources = DefaultClientResources.builder().socketAddressResolver(address).build();
			LettuceConnectionFactory lettuce = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(first.host(), first.port()),
					LettuceClientConfiguration.builder()
						.clientResources(resources)
						.commandTimeout(Duration.ofSeconds(20))
						.build());
			lettuce.afterPropertiesSet();
			lettuce.start();
			// WAIT blocks long enough to close its connection under it
			RedisDelayQueue queue = replicated(lettuce, "moved", Duration.ofSeconds(10));
			try (StatefulRedisConnection<String, String> onFirst = first.connect();
					StatefulRedisConnection<String, String> onSecond = second.connect()) {
				await().atMost(Duration.ofSeconds(20))
					.until(() -> onSecond.sync().info("replication").contains("state=online"));
				CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> write.accept(queue));
				await().atMost(Duration.ofSeconds(5)).until(() -> clientIn(onFirst, "cmd=wait") != null);
				address.moveTo(second);
				// what a Sentinel does to a master it turns into a replica (sparing this connection)
				onFirst.sync().clientKill(KillArgs.Builder.typeNormal());
				Throwable failure = writing.handle((done, ex) -> ex).get(30, TimeUnit.SECONDS);
				assertThat(failure).as("the outcome of a schedule on the first master, whose WAIT the second answered")
					.isInstanceOf(CompletionException.class)
					.cause()
					.isInstanceOf(DelayQueueConnectionException.class)
					.hasMessageContaining("replaced between the schedule and its WAIT")
					.hasMessageContaining("may be lost if the master fails over");
				// the master the queue uses now does not have the job; running the call again is
				// acknowledged by its replica
				assertThat(queue.find("acked", "moved")).isEmpty();
				write.accept(queue);
				assertThat(queue.find("acked", "moved")).isPresent();
				QueueInvariant.assertHolds(second, queue.getNamespace(), queue.getBuckets());
				QueueInvariant.assertHolds(first, queue.getNamespace(), queue.getBuckets());
			}
			finally {
				queue.stop();
				lettuce.destroy();
				resources.shutdown();
			}
		}
	}

	/** The server Lettuce connects to, which a test moves. */
	private static final class MovingAddress extends SocketAddressResolver {

		private volatile InetSocketAddress address;

		MovingAddress(RedisTestServer server) {
			moveTo(server);
		}

		void moveTo(RedisTestServer server) {
			this.address = new InetSocketAddress(server.host(), server.port());
		}

		@Override
		public SocketAddress resolve(RedisURI redisURI) {
			return this.address;
		}

	}

	/** The id of the first client that {@code CLIENT LIST} shows with a field, or null. */
	private static String clientIn(StatefulRedisConnection<String, String> admin, String field) {
		for (String line : admin.sync().clientList().split("\n")) {
			if (line.contains(" " + field + " ") || line.endsWith(" " + field)) {
				return line.substring(line.indexOf("id=") + 3, line.indexOf(' ', line.indexOf("id=")));
			}
		}
		return null;
	}

	private RedisDelayQueue replicated(RedisConnectionFactory factory, String name) {
		// long enough for a busy machine, shorter than Jedis's 2 s read timeout; the paused
		// replica sleeps longer than all waits together
		return replicated(factory, name, Duration.ofSeconds(1));
	}

	private RedisDelayQueue replicated(RedisConnectionFactory factory, String name, Duration waitTimeout) {
		RedisDelayQueue queue = RedisDelayQueue.builder(factory)
			.namespace(this.queues.namespace + "-" + name)
			// no timer: its heartbeats would write on the shared connection while the replica
			// sleeps, and a WAIT sent there would then wait for them instead of the schedules
			.timerEnabled(false)
			.waitReplicas(1)
			.waitTimeout(waitTimeout)
			.build();
		queue.start();
		return queue;
	}

	/** DEBUG is off by default since Redis 7; the embedded 6.2 does not know the option. */
	private static String[] debugCommand(RedisTestServer server) {
		try (StatefulRedisConnection<String, String> connection = server.connect()) {
			String info = connection.sync().info("server");
			boolean seven = info.contains("redis_version:7") || info.contains("redis_version:8");
			return seven ? new String[] { "--enable-debug-command", "local" } : new String[0];
		}
	}

	@Test
	void aNegativeReplicaCountIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queues.create((builder) -> builder.waitReplicas(-1)))
			.withMessage("waitReplicas must not be negative, was -1");
	}

}
