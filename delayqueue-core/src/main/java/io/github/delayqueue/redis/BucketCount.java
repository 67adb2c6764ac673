package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The bucket count of a queue built without one: the namespace's pinned count, else
 * {@value #CLUSTER} on a Redis Cluster and {@value #SINGLE_SERVER} on one server, refused when
 * the namespace shows more buckets in use. Unreachable Redis without fail-fast: the connection
 * factory's configuration decides, and the start-up check reads it again.
 */
final class BucketCount {

	/** The count of a new namespace on a Redis Cluster. */
	static final int CLUSTER = 16;

	/** The count of a new namespace on one Redis server. */
	static final int SINGLE_SERVER = 1;

	/** The setting the start-up check pins the count under in the namespace's config hash. */
	static final String PINNED_SETTING = "buckets";

	/** The highest bucket looked at for use on one server. */
	static final int LOOKED_AT = 15;

	private static final LuaScript READ = LuaScript.of("buckets", 2);

	private static final byte[] PIN = KeySpace.bytes("pin");

	private static final byte[] USED = KeySpace.bytes("used");

	private static final Log logger = LogFactory.getLog(BucketCount.class);

	private static final boolean LETTUCE = ClassUtils.isPresent(ReplicaWait.LETTUCE_COMMANDS,
			BucketCount.class.getClassLoader());

	private static final boolean JEDIS = ClassUtils.isPresent(ReplicaWait.JEDIS_CLIENT,
			BucketCount.class.getClassLoader());

	private BucketCount() {
	}

	/** Where a queue's bucket count came from. */
	enum Origin {

		/** Set on the builder. */
		SET,

		/** Read from the namespace, or the default for a new one. */
		CHOSEN,

		/** The connection factory's default, Redis not reached: asked again at start-up. */
		GUESSED

	}

	/** A queue's bucket count and where it came from. */
	record Resolved(int count, Origin origin) {

	}

	/**
	 * The bucket count of a queue built without one; throws {@link Refused} for a namespace
	 * without a pinned count that uses more buckets, and {@link DelayQueueConnectionException}
	 * for an unreachable Redis when {@code failFast}.
	 */
	static Resolved resolve(RedisConnectionFactory connectionFactory, String namespace, boolean failFast) {
		try {
			return new Resolved(read(new ScriptRunner(connectionFactory), namespace), Origin.CHOSEN);
		}
		catch (DelayQueueConnectionException ex) {
			if (failFast) {
				throw ex;
			}
			int count = clusterConfigured(connectionFactory) ? CLUSTER : SINGLE_SERVER;
			logger.warn("Could not read the bucket count of namespace '" + namespace + "' (" + ex.getMessage()
					+ "); using " + count + " for this " + ((count == CLUSTER) ? "Redis Cluster" : "Redis server")
					+ " until Redis answers and it is read again (another count then refuses every call until a restart)");
			return new Resolved(count, Origin.GUESSED);
		}
	}

	/** Reads the pinned bucket count of a namespace, else the server's default; see {@link #resolve}. */
	static int read(ScriptRunner runner, String namespace) {
		KeySpace keys = new KeySpace(namespace, LOOKED_AT + 1);
		return runner.execute("reading the bucket count of namespace '" + namespace + "'", (connection) -> {
			boolean cluster = connection instanceof RedisClusterConnection;
			List<?> pin = reply(keys, eval(connection, PIN, keys.config(), keys.timers()));
			String pinned = (pin.get(0) instanceof byte[] value && value.length > 0)
					? new String(value, StandardCharsets.UTF_8) : null;
			Integer count = parse(pinned);
			if (count != null) {
				logger.debug("Namespace '" + namespace + "' was created with " + count + " bucket(s)");
				return count;
			}
			int chosen = cluster ? CLUSTER : SINGLE_SERVER;
			if (pinned != null) {
				// not a count: the start-up check refuses it by name
				return chosen;
			}
			long timed = (pin.get(1) instanceof Long value) ? value : -1;
			if (timed >= chosen) {
				throw inUse(namespace, timed, "a timer was given it", chosen);
			}
			if (timed >= 0 && timed != chosen - 1) {
				// timers run: their highest bucket is the count's last
				throw unpinned(namespace, "timers run its buckets up to " + timed + " only: it was created with another"
						+ " count than " + chosen + " and lost its pinned count", "");
			}
			// on one server, a bucket above 0 that holds anything (one call per slot)
			for (int bucket = LOOKED_AT; bucket >= chosen && !cluster; bucket--) {
				List<?> used = reply(keys, eval(connection, USED, keys.jobs(bucket),
						KeySpace.bytes(keys.prefix(bucket) + "recurring")));
				if (Long.valueOf(1).equals(used.get(0))) {
					throw inUse(namespace, bucket, "it holds jobs or recurring jobs", chosen);
				}
			}
			logger.info("New namespace '" + namespace + "': " + chosen + " bucket(s) for this "
					+ (cluster ? "Redis Cluster" : "Redis server") + " (delayqueue.buckets sets another count)");
			return chosen;
		});
	}

	/** A namespace whose bucket count the queue cannot use. */
	static final class Refused extends DelayQueueException {

		Refused(String message) {
			super(message);
		}

	}

	private static Refused inUse(String namespace, long bucket, String how, int count) {
		return unpinned(namespace, "its bucket " + bucket + " is in use (" + how + "): it was created with more than "
				+ count + " bucket(s) and lost its pinned count, or predates it",
				" (16 if they were scheduled with the default of delayqueue 0.1.0)");
	}

	private static Refused unpinned(String namespace, String found, String hint) {
		return new Refused("Namespace '" + namespace + "' has no pinned bucket count ('{" + namespace
				+ "}:config' has no field '" + PINNED_SETTING + "'), but " + found
				+ ". Set delayqueue.buckets to the count its jobs were scheduled with" + hint);
	}

	private static @Nullable Object eval(RedisConnection connection, byte[] what, byte[] key, byte[] other) {
		return connection.scriptingCommands().eval(READ.body(), ReturnType.MULTI, 2, key, other, what);
	}

	private static List<?> reply(KeySpace keys, @Nullable Object reply) {
		if (!(reply instanceof List<?> values) || values.isEmpty()) {
			throw new DelayQueueException(
					"Unexpected reply reading the bucket count of namespace '" + keys.namespace() + "': " + reply);
		}
		return values;
	}

	/** A pinned bucket count, 1 to {@link KeySpace#MAX_BUCKETS} without a leading zero, else {@code null}. */
	static @Nullable Integer parse(@Nullable String pinned) {
		if (pinned == null || !pinned.matches("[1-9][0-9]{0,4}")) {
			return null;
		}
		int count = Integer.parseInt(pinned);
		return (count <= KeySpace.MAX_BUCKETS) ? count : null;
	}

	private static boolean clusterConfigured(RedisConnectionFactory connectionFactory) {
		// a driver's factory class is loaded only when that driver is present
		return (LETTUCE && Lettuce.clusterConfigured(connectionFactory))
				|| (JEDIS && Jedis.clusterConfigured(connectionFactory));
	}

	private static final class Lettuce {

		static boolean clusterConfigured(RedisConnectionFactory connectionFactory) {
			return connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
		}

	}

	private static final class Jedis {

		static boolean clusterConfigured(RedisConnectionFactory connectionFactory) {
			return connectionFactory instanceof JedisConnectionFactory jedis && jedis.isRedisClusterAware();
		}

	}

}
