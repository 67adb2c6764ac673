package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import io.github.delayqueue.core.BucketCountMismatchException;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.test.util.TestSocketUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The bucket count of a queue built without one ({@link StartupChecks#resolve}): the namespace's own,
 * else 1 on one server and 16 on a cluster (see {@code RedisClusterTests} for a live one).
 */
@ExtendWith(OutputCaptureExtension.class)
class BucketCountTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void aNewNamespaceOnOneServerGetsOneBucketAndPinsIt(CapturedOutput output) {
		RedisDelayQueue queue = start();
		assertThat(queue.getBuckets()).isEqualTo(1);
		assertThat(pinned()).isEqualTo("1");
		assertThat(output).contains("New namespace '" + this.queues.namespace + "': 1 bucket(s) for this Redis server");
		queue.schedule(RedisDelayQueueLifecycleTests.request("one", "a", "{}", Duration.ZERO));
		assertThat(queue.reserve("one", 1, null)).hasSize(1);
	}

	@Test
	void aNamespaceKeepsTheCountItWasCreatedWith() {
		this.queues.start((builder) -> builder.buckets(16)).stop();
		RedisDelayQueue later = start();
		assertThat(later.getBuckets()).isEqualTo(16);
		assertThat(later.isRunning()).isTrue();
		assertThat(pinned()).isEqualTo("16");
	}

	@Test
	void anExplicitCountIsKeptAndChecked() {
		start();
		RedisDelayQueue other = this.queues.create((builder) -> builder.buckets(16));
		assertThat(other.getBuckets()).isEqualTo(16);
		assertThatExceptionOfType(BucketCountMismatchException.class).isThrownBy(other::start)
			.withMessageContaining("was created with a bucket count of 1");
	}

	/**
	 * A pinned value that is no count (written by hand) is not taken: the start-up check
	 * refuses the start and names it.
	 */
	@Test
	void aPinnedValueThatIsNoCountIsLeftToTheStartupCheck() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands()
				.hSet(new KeySpace(this.queues.namespace, 1).config(), KeySpace.bytes("buckets"),
						KeySpace.bytes("sixteen"));
		}
		RedisDelayQueue queue = this.queues.createWithOwnCount(UnaryOperator.identity());
		assertThat(queue.getBuckets()).isEqualTo(1);
		assertThatExceptionOfType(DelayQueueException.class).isThrownBy(queue::start)
			.withMessageContaining("pins the bucket count 'sixteen' in '{" + this.queues.namespace + "}:config'")
			.withMessageContaining("which is no count");
		this.queues.skipInvariant("the namespace's config was written by hand");
	}

	/**
	 * A start refused by the start-up checks is no verdict for the next start: fixed in Redis
	 * meanwhile (here the pinned count), the queue starts.
	 */
	@Test
	void aStartAfterARefusedOneRunsTheChecksAgain() {
		byte[] config = new KeySpace(this.queues.namespace, 1).config();
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands().hSet(config, KeySpace.bytes("buckets"), KeySpace.bytes("sixteen"));
		}
		RedisDelayQueue queue = this.queues.createWithOwnCount(UnaryOperator.identity());
		assertThatExceptionOfType(DelayQueueException.class).isThrownBy(queue::start)
			.withMessageContaining("which is no count");
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands().hSet(config, KeySpace.bytes("buckets"), KeySpace.bytes("1"));
		}
		queue.start();
		assertThat(queue.isRunning()).isTrue();
		assertThat(pinned()).isEqualTo("1");
	}

	@Test
	void unreachableRedisLeavesTheCountToTheConfiguration(CapturedOutput output) {
		int port = TestSocketUtils.findAvailableTcpPort();
		LettuceConnectionFactory lettuce = lettuce(new RedisStandaloneConfiguration("localhost", port));
		JedisConnectionFactory jedis = jedis(new RedisStandaloneConfiguration("localhost", port));
		// (a Jedis cluster factory looks for the cluster's slots as it starts, and fails there)
		LettuceConnectionFactory cluster = lettuce(new RedisClusterConfiguration(List.of("localhost:" + port)));
		try {
			StartupChecks.Resolved guessed = new StartupChecks.Resolved(1, StartupChecks.Origin.GUESSED);
			assertThat(StartupChecks.resolve(lettuce, "unreachable", false)).isEqualTo(guessed);
			assertThat(StartupChecks.resolve(jedis, "unreachable", false)).isEqualTo(guessed);
			assertThat(StartupChecks.resolve(cluster, "unreachable", false))
				.isEqualTo(new StartupChecks.Resolved(16, StartupChecks.Origin.GUESSED));
		}
		finally {
			lettuce.destroy();
			jedis.destroy();
			cluster.destroy();
		}
		assertThat(output).contains("Could not read the bucket count of namespace 'unreachable'")
			.contains("using 1 for this Redis server")
			.contains("using 16 for this Redis Cluster");
	}

	/**
	 * Failing fast, a Redis that cannot be asked fails the build: the start would fail too,
	 * and a guess could be refused later.
	 */
	@Test
	void failingFastUnreachableRedisFailsTheBuild() {
		LettuceConnectionFactory factory = lettuce(
				new RedisStandaloneConfiguration("localhost", TestSocketUtils.findAvailableTcpPort()));
		try {
			assertThatExceptionOfType(DelayQueueConnectionException.class)
				.isThrownBy(() -> RedisDelayQueue.builder(factory).namespace("unreachable").build())
				.withMessageContaining("reading the bucket count of namespace 'unreachable'");
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A namespace whose pinned count is gone (deleted, evicted, or older than the pin) but
	 * whose jobs are in a bucket above 0 is not given one bucket: that would strand them.
	 */
	@Test
	void aNamespaceWithoutItsPinButWithJobsInHigherBucketsIsRefused() {
		RedisDelayQueue sixteen = this.queues.start((builder) -> builder.buckets(16).timerEnabled(false));
		for (int i = 0; i < 20; i++) {
			sixteen.schedule(RedisDelayQueueLifecycleTests.request("kept", "k-" + i, "{}", Duration.ofHours(1)));
		}
		int highest = 0;
		for (int i = 0; i < 20; i++) {
			highest = Math.max(highest, sixteen.bucketOf("kept", "k-" + i));
		}
		sixteen.stop();
		deletePin();
		int inUse = highest;
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.queues.createWithOwnCount(UnaryOperator.identity()))
			.withMessageContaining("Namespace '" + this.queues.namespace + "' has no pinned bucket count")
			.withMessageContaining("its bucket " + inUse + " is in use (it holds jobs or recurring jobs)")
			.withMessageContaining("Set delayqueue.buckets");
		assertThat(pinned()).isEmpty();
	}

	/**
	 * While instances run the timers of buckets above 0, a namespace that lost its pin is not
	 * given one bucket either, even before it holds jobs; nor, where timers run fewer buckets
	 * than a new namespace would get, the new namespace's count. (The timers hash is written
	 * here: a running instance would write the pin back at its next coordination.)
	 */
	@Test
	void aNamespaceWithoutItsPinWhoseTimersRunOtherBucketsIsRefused() {
		this.queues.start((builder) -> builder.buckets(16)).stop();
		deletePin();
		setTimer(15);
		assertThatExceptionOfType(StartupChecks.Refused.class)
			.isThrownBy(() -> this.queues.createWithOwnCount(UnaryOperator.identity()))
			.withMessageContaining("its bucket 15 is in use (a timer was given it)");
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.keyCommands().del(KeySpace.bytes("{" + this.queues.namespace + "}:timers"));
		}
		setTimer(0);
		// one bucket: a timer of bucket 0 alone is what a count of 1 has
		assertThat(this.queues.createWithOwnCount(UnaryOperator.identity()).getBuckets()).isEqualTo(1);
	}

	private void setTimer(int bucket) {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands()
				.hSet(KeySpace.bytes("{" + this.queues.namespace + "}:timers"), KeySpace.bytes(String.valueOf(bucket)),
						KeySpace.bytes("another-instance"));
		}
	}

	/**
	 * Recurring definitions are not jobs until they fire: a bucket that holds only them is in
	 * use all the same.
	 */
	@Test
	void aNamespaceWithoutItsPinButWithRecurringJobsInAHigherBucketIsRefused() {
		RedisDelayQueue sixteen = this.queues.start((builder) -> builder.buckets(16).timerEnabled(false));
		KeySpace keys = new KeySpace(this.queues.namespace, 16);
		String name = IntStream.range(0, 100)
			.mapToObj((i) -> "yearly-" + i)
			.filter((candidate) -> keys.bucketOfName(candidate) > 0)
			.findFirst()
			.orElseThrow();
		sixteen.getRecurringJobs()
			.put(RecurringJob.builder(name).topic("reports").cron("0 0 0 1 1 *", "UTC").payload("{}").build());
		// a definition, not a job yet
		assertThat(sixteen.stats().topics()).isEmpty();
		sixteen.stop();
		deletePin();
		assertThatExceptionOfType(StartupChecks.Refused.class)
			.isThrownBy(() -> this.queues.createWithOwnCount(UnaryOperator.identity()))
			.withMessageContaining("its bucket " + keys.bucketOfName(name) + " is in use");
	}

	/**
	 * Built while Redis was down, without failing fast: the count is a guess, and the start-up
	 * check reads the namespace before it could pin the guess over jobs in higher buckets.
	 */
	@Test
	void aGuessIsNotPinnedOverANamespaceThatLostItsPin() {
		try (RedisTestServer redis = RedisTestServers.local().appendOnly().start();
				RedisQueues local = new RedisQueues(redis)) {
			RedisDelayQueue sixteen = local.start((builder) -> builder.buckets(16).timerEnabled(false));
			for (int i = 0; i < 20; i++) {
				sixteen.schedule(RedisDelayQueueLifecycleTests.request("kept", "k-" + i, "{}", Duration.ofHours(1)));
			}
			sixteen.stop();
			try (RedisConnection connection = local.connectionFactory().getConnection()) {
				connection.keyCommands().del(new KeySpace(local.namespace, 1).config());
			}
			redis.stop();
			RedisDelayQueue guessed = local.createWithOwnCount((builder) -> builder.failFast(false));
			assertThat(guessed.getBuckets()).isEqualTo(1);
			guessed.start();
			redis.start();
			await().atMost(Duration.ofSeconds(20))
				.ignoreExceptionsInstanceOf(DelayQueueConnectionException.class)
				.untilAsserted(() -> assertThatExceptionOfType(StartupChecks.Refused.class)
					.isThrownBy(() -> guessed.find("kept", "k-0"))
					.withMessageContaining("has no pinned bucket count"));
			// refused by every call, and nothing pinned
			assertThatExceptionOfType(StartupChecks.Refused.class).isThrownBy(() -> guessed.find("kept", "k-1"));
			try (RedisConnection connection = local.connectionFactory().getConnection()) {
				assertThat(connection.keyCommands().exists(new KeySpace(local.namespace, 1).config())).isFalse();
			}
			// the jobs are where the count of 16 put them
			local.close();
			local.assertInvariant();
		}
	}

	/**
	 * An instance that runs writes the namespace's count again when it is gone (it is read
	 * only at start-ups, so an evicting Redis would drop it first), at its next coordination.
	 */
	@Test
	void aRunningInstanceWritesALostPinAgain() {
		RedisDelayQueue running = this.queues.start((builder) -> builder.buckets(8));
		await().atMost(Duration.ofSeconds(10)).until(() -> running.getTimer().ownedBuckets() == 8);
		deletePin();
		// a full coordination each guard interval (5 s here)
		await().atMost(Duration.ofSeconds(15)).until(() -> "8".equals(pinned()));
	}

	@Test
	void jedisReadsTheNamespacesCount() {
		this.queues.start((builder) -> builder.buckets(4)).stop();
		RedisTestServer server = RedisTestServers.shared();
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
		if (server.password() != null) {
			configuration.setPassword(server.password());
		}
		JedisConnectionFactory factory = jedis(configuration);
		try {
			assertThat(StartupChecks.resolve(factory, this.queues.namespace, true).count()).isEqualTo(4);
			assertThat(StartupChecks.resolve(factory, this.queues.namespace + "-new", true).count()).isEqualTo(1);
		}
		finally {
			factory.destroy();
		}
	}

	private void deletePin() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.keyCommands().del(new KeySpace(this.queues.namespace, 1).config());
		}
	}

	private RedisDelayQueue start() {
		RedisDelayQueue queue = this.queues.createWithOwnCount(UnaryOperator.identity());
		queue.start();
		return queue;
	}

	private String pinned() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			byte[] value = connection.hashCommands()
				.hGet(new KeySpace(this.queues.namespace, 1).config(), KeySpace.bytes("buckets"));
			return (value != null) ? new String(value, StandardCharsets.UTF_8) : "";
		}
	}

	private static LettuceConnectionFactory lettuce(RedisConfiguration configuration) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static JedisConnectionFactory jedis(RedisStandaloneConfiguration configuration) {
		JedisConnectionFactory factory = new JedisConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
