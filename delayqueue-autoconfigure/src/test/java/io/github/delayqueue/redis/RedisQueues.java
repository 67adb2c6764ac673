package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Queues on a real Redis for tests: each with its own namespace, each closed after the test.
 * Register it as an extension ({@code @RegisterExtension}) to have it closed after each test.
 */
final class RedisQueues implements AutoCloseable, AfterEachCallback {

	private final RedisTestServer server;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisDelayQueue> queues = new ArrayList<>();

	final String namespace = "t" + UUID.randomUUID().toString().substring(0, 8);

	Duration commandTimeout = Duration.ofSeconds(5);

	/** The bucket count of the last queues closed, 0 before any. */
	private int lastBuckets;

	RedisQueues(RedisTestServer server) {
		this.server = server;
	}

	/**
	 * Queues on the shared test server.
	 */
	RedisQueues() {
		this(RedisTestServers.shared());
	}

	private String invariantSkipped;

	@Override
	public void afterEach(ExtensionContext context) {
		close();
		if (this.invariantSkipped == null && context.getExecutionException().isEmpty()) {
			assertInvariant();
		}
	}

	/**
	 * Checks the queue's invariant on this namespace (see {@link QueueInvariant}); run after
	 * each test by the extension, with the queues stopped.
	 */
	void assertInvariant() {
		QueueInvariant.assertHolds(this.server, this.namespace, buckets());
	}

	/**
	 * Skips the invariant check after this test, which breaks the namespace on purpose.
	 */
	void skipInvariant(String reason) {
		this.invariantSkipped = reason;
	}

	/**
	 * The bucket count of this namespace: its queues', else the count pinned in it by queues
	 * built elsewhere, else 1 (nothing started on it).
	 */
	private int buckets() {
		if (!this.queues.isEmpty()) {
			return this.queues.get(0).getBuckets();
		}
		if (this.lastBuckets > 0) {
			return this.lastBuckets;
		}
		// the check runs after close(): a factory of its own, not kept
		LettuceConnectionFactory factory = TestConnections.lettuce(this.server, this.commandTimeout);
		try (RedisConnection connection = factory.getConnection()) {
			byte[] pinned = connection.hashCommands()
				.hGet(new KeySpace(this.namespace, 1).config(), KeySpace.bytes(StartupChecks.PINNED_SETTING));
			return (pinned != null) ? Integer.parseInt(new String(pinned, StandardCharsets.UTF_8)) : 1;
		}
		finally {
			factory.destroy();
		}
	}

	LettuceConnectionFactory connectionFactory() {
		LettuceConnectionFactory factory = TestConnections.lettuce(this.server, this.commandTimeout);
		this.factories.add(factory);
		return factory;
	}

	/**
	 * What keys cost in Redis: the sum of their {@code MEMORY USAGE} with every element
	 * sampled, 0 for a key that does not exist.
	 */
	long memoryUsage(List<byte[]> keys) {
		try (RedisConnection connection = connectionFactory().getConnection()) {
			long total = 0;
			for (byte[] key : keys) {
				Long usage = connection.scriptingCommands()
					.eval("return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0') or 0"
						.getBytes(StandardCharsets.UTF_8), ReturnType.INTEGER, 1, key);
				total += (usage != null) ? usage : 0;
			}
			return total;
		}
	}

	/**
	 * A started queue with test-friendly timings on its own connection factory.
	 */
	RedisDelayQueue start(UnaryOperator<RedisDelayQueueBuilder> customizer) {
		RedisDelayQueue queue = create(customizer);
		queue.start();
		return queue;
	}

	RedisDelayQueue start() {
		return start(UnaryOperator.identity());
	}

	/**
	 * A queue with test-friendly timings and 16 buckets (the tests here were written for
	 * several buckets; the count a queue picks itself is {@link #createWithOwnCount}'s).
	 */
	RedisDelayQueue create(UnaryOperator<RedisDelayQueueBuilder> customizer) {
		return createWithOwnCount((builder) -> customizer.apply(builder.buckets(16)));
	}

	/**
	 * A queue with test-friendly timings that picks its bucket count itself ({@link StartupChecks#resolve}),
	 * unless the customizer sets one.
	 */
	RedisDelayQueue createWithOwnCount(UnaryOperator<RedisDelayQueueBuilder> customizer) {
		RedisDelayQueue queue = customizer
			.apply(RedisDelayQueue.builder(connectionFactory())
				.namespace(this.namespace)
				.leaseTtl(Duration.ofSeconds(2))
				.guardInterval(Duration.ofSeconds(5)))
			.build();
		this.queues.add(queue);
		return queue;
	}

	/**
	 * Every key of this namespace with its DUMP: equal snapshots mean nothing changed. A
	 * bucket's stats hash is shown by its non-zero counts (a count at 0 is the same as none,
	 * and a running timer's guard deletes such fields whenever it re-checks the bucket), and
	 * left out when it has none.
	 */
	Map<String, String> snapshot() {
		try (RedisConnection connection = this.factories.get(0).getConnection()) {
			Map<String, String> result = new HashMap<>();
			try (Cursor<byte[]> keys = connection.keyCommands()
				.scan(ScanOptions.scanOptions().match("{" + this.namespace + "*").count(1000).build())) {
				while (keys.hasNext()) {
					byte[] key = keys.next();
					String name = new String(key, StandardCharsets.UTF_8);
					if (name.endsWith("}:stats")) {
						Map<String, String> counts = new java.util.TreeMap<>();
						connection.hashCommands().hGetAll(key).forEach((field, value) -> {
							String count = new String(value, StandardCharsets.UTF_8);
							if (!"0".equals(count)) {
								counts.put(new String(field, StandardCharsets.UTF_8), count);
							}
						});
						if (!counts.isEmpty()) {
							result.put(name, counts.toString());
						}
						continue;
					}
					byte[] dump = connection.keyCommands().dump(key);
					result.put(name, (dump != null) ? java.util.HexFormat.of().formatHex(dump) : "");
				}
			}
			return result;
		}
	}

	/**
	 * The stored record of a job ("topic:id") in whichever bucket holds it, or {@code null}.
	 */
	String jobRecord(String jobKey) {
		try (RedisConnection connection = this.factories.get(0).getConnection()) {
			byte[] jobs = jobsHashHolding(connection, jobKey);
			return (jobs != null)
					? new String(connection.hashCommands().hGet(jobs, jobKey.getBytes(StandardCharsets.UTF_8)),
							StandardCharsets.UTF_8)
					: null;
		}
	}

	/**
	 * Overwrites the stored record of an existing job ("topic:id") as it is, bypassing the
	 * scripts.
	 */
	void overwriteJobRecord(String jobKey, String record) {
		try (RedisConnection connection = this.factories.get(0).getConnection()) {
			byte[] jobs = jobsHashHolding(connection, jobKey);
			if (jobs == null) {
				throw new IllegalStateException("no job " + jobKey);
			}
			connection.hashCommands()
				.hSet(jobs, jobKey.getBytes(StandardCharsets.UTF_8), record.getBytes(StandardCharsets.UTF_8));
		}
	}

	private byte[] jobsHashHolding(RedisConnection connection, String jobKey) {
		byte[] field = jobKey.getBytes(StandardCharsets.UTF_8);
		try (Cursor<byte[]> keys = connection.keyCommands()
			.scan(ScanOptions.scanOptions().match("{" + this.namespace + ":*}:jobs").count(1000).build())) {
			while (keys.hasNext()) {
				byte[] jobs = keys.next();
				if (connection.hashCommands().hExists(jobs, field)) {
					return jobs;
				}
			}
		}
		return null;
	}

	/**
	 * The snapshot of the buckets' keys only (jobs, indexes, stats): without the instances'
	 * heartbeats, which change on their own schedule.
	 */
	Map<String, String> bucketSnapshot() {
		Map<String, String> buckets = new HashMap<>(snapshot());
		buckets.keySet().removeIf((key) -> !key.startsWith("{" + this.namespace + ":"));
		return buckets;
	}

	long keyCount() {
		return snapshot().size();
	}

	@Override
	public void close() {
		for (RedisDelayQueue queue : this.queues) {
			try {
				queue.stop();
			}
			catch (RuntimeException ex) {
				// already broken: the test said so
			}
		}
		for (LettuceConnectionFactory factory : this.factories) {
			factory.destroy();
		}
		if (!this.queues.isEmpty()) {
			this.lastBuckets = this.queues.get(0).getBuckets();
		}
		this.queues.clear();
		this.factories.clear();
	}

}
