package io.github.delayqueue.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import io.github.delayqueue.core.BucketCountMismatchException;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.UnsupportedRedisVersionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.util.Version;

/**
 * What the queue checks of Redis before it writes: the bucket count ({@link #resolve} chooses
 * one for a queue built without; another than the namespace's is refused), Redis 6.2 or newer,
 * a {@code maxmemory-policy} that evicts no keys (warned), and how data is persisted (logged).
 * Run at the start or, when Redis was unreachable then, before each call until they pass; a
 * refusal then fails every later call. Thread-safe.
 */
final class StartupChecks {

	/** The bucket count of a new namespace on a Redis Cluster. */
	static final int CLUSTER = 16;

	/** The bucket count of a new namespace on one Redis server. */
	static final int SINGLE_SERVER = 1;

	/** The setting the bucket count is pinned under in the namespace's config hash. */
	static final String PINNED_SETTING = "buckets";

	/** The highest bucket looked at for use on one server. */
	static final int LOOKED_AT = 15;

	private static final LuaScript BUCKETS = LuaScript.of("buckets", 2);

	private static final Log logger = LogFactory.getLog(StartupChecks.class);

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final Origin countOrigin;

	private final Object monitor = new Object();

	/** Whether the checks still have to pass before a call to Redis. */
	private volatile boolean pending = true;

	private volatile @Nullable RuntimeException refusal;

	/** Creates the checks, run through a runner that does not run them itself. */
	StartupChecks(ScriptRunner runner, KeySpace keys, Origin countOrigin) {
		this.runner = runner;
		this.keys = keys;
		this.countOrigin = countOrigin;
	}

	/**
	 * Runs the checks as the queue starts; an unreachable Redis is thrown only when {@code failFast}.
	 * @throws UnsupportedRedisVersionException when a server runs Redis older than 6.2
	 * @throws BucketCountMismatchException when the namespace has another bucket count
	 */
	void atStart(boolean failFast) {
		synchronized (this.monitor) {
			// a start runs the checks again, also after a refusal: Redis may have been fixed since
			this.refusal = null;
			this.pending = true;
		}
		try {
			beforeCall();
		}
		catch (DelayQueueConnectionException ex) {
			if (failFast) {
				throw new DelayQueueConnectionException("delayqueue could not reach Redis at start-up: "
						+ ex.getMessage(), ex);
			}
			logger.warn("delayqueue starts while Redis is unreachable (delayqueue.redis.fail-fast=false): "
					+ ex.getMessage() + "; the start-up checks run before the first call that reaches Redis");
		}
	}

	/**
	 * Runs the checks when they are still to pass.
	 * @throws DelayQueueConnectionException when Redis is still unreachable
	 * @throws UnsupportedRedisVersionException for this call and every later one until a start checks again
	 * @throws BucketCountMismatchException for this call and every later one until a start checks again
	 */
	void beforeCall() {
		if (!this.pending) {
			return;
		}
		synchronized (this.monitor) {
			if (this.refusal != null) {
				throw this.refusal;
			}
			if (!this.pending) {
				return;
			}
			try {
				checkServers();
				checkBucketCount();
			}
			catch (UnsupportedRedisVersionException | BucketCountMismatchException | Refused ex) {
				this.refusal = ex;
				logger.error("delayqueue refuses to work on this Redis; every call fails until the application is"
						+ " restarted with the fix: " + ex.getMessage());
				throw ex;
			}
			this.pending = false;
			logger.info("Redis answers: delayqueue's start-up checks passed");
		}
	}

	private void checkServers() {
		Properties info;
		try {
			info = this.runner.execute("INFO", (connection) -> connection.serverCommands().info());
		}
		catch (DelayQueueConnectionException ex) {
			throw ex;
		}
		catch (DelayQueueException ex) {
			// INFO is in @dangerous: a least-privilege ACL user may not run it
			logger.warn("Could not read Redis's INFO (" + ex.getMessage() + "): the Redis version, maxmemory-policy"
					+ " and persistence are not checked. Allow the command INFO to the Redis user for these checks");
			return;
		}
		if (info == null) {
			return;
		}
		checkVersion(values(info, "redis_version"));
		values(info, "maxmemory_policy").forEach((node, policy) -> {
			if (!"noeviction".equals(policy)) {
				logger.warn("Redis" + (node.isEmpty() ? "" : " " + node) + " has maxmemory-policy '" + policy
						+ "': under memory pressure jobs would be lost without an error. Fix: set"
						+ " 'maxmemory-policy noeviction' in redis.conf (a full Redis then refuses new jobs)");
			}
		});
		logPersistence(values(info, "aof_enabled").containsValue("1"));
	}

	/** The values of an INFO or CONFIG GET field by node ({@code ""} on a single server). */
	private static Map<String, String> values(Properties info, String field) {
		Map<String, String> values = new TreeMap<>();
		for (String name : info.stringPropertyNames()) {
			if (name.equals(field)) {
				values.put("", info.getProperty(name).trim());
			}
			else if (name.endsWith("." + field)) {
				values.put(name.substring(0, name.length() - field.length() - 1), info.getProperty(name).trim());
			}
		}
		return values;
	}

	/** Refuses a version older than {@link UnsupportedRedisVersionException#MINIMUM_VERSION}; an unreadable one passes. */
	static void checkVersion(Map<String, String> versions) {
		Version minimum = Version.parse(UnsupportedRedisVersionException.MINIMUM_VERSION);
		versions.forEach((node, version) -> {
			try {
				// (Spring's parse reads a last part that is no number, "unknown" too, as 0)
				if (version.matches("\\d+(\\.\\d+)*(-.*)?") && Version.parse(version).isLessThan(minimum)) {
					throw new UnsupportedRedisVersionException(node, version);
				}
			}
			catch (IllegalArgumentException ex) {
				// not a version we can read
			}
		});
	}

	/** Logs AOF and RDB snapshots as {@code CONFIG GET} reads them, when it is allowed. */
	private void logPersistence(boolean aof) {
		Map<String, String> config = new TreeMap<>();
		try {
			this.runner.execute("CONFIG GET", (connection) -> {
				for (String name : List.of("save", "appendfsync")) {
					Properties answer = connection.serverCommands().getConfig(name);
					if (answer != null) {
						// a cluster answers per node: "<node>.<name>"
						values(answer, name).values().stream().findFirst().ifPresent((value) -> config.put(name, value));
					}
				}
				return null;
			});
		}
		catch (RuntimeException ex) {
			logger.debug("CONFIG GET is not allowed; persistence settings unknown: " + ex.getMessage());
		}
		String fsync = config.get("appendfsync");
		String save = config.get("save");
		String summary = "Redis persistence: "
				+ (aof ? "AOF on" + ((fsync != null) ? " (appendfsync " + fsync + ")" : "") : "AOF off") + ", "
				+ ((save == null) ? "RDB snapshots unknown (CONFIG GET is not allowed)"
						: save.isBlank() ? "RDB snapshots off" : "RDB snapshots 'save " + save + "'");
		if (!aof && save != null && save.isBlank()) {
			logger.warn(summary + ": a Redis restart loses every job. Turn on 'appendonly yes' (appendfsync "
					+ "everysec may lose the last second of acknowledged changes on a crash; always loses none)");
		}
		else {
			logger.info(summary + (aof ? "" : ": a crash loses the changes since the last snapshot; "
					+ "'appendonly yes' narrows that to at most a second"));
		}
	}

	/** Pins the bucket count in the namespace at its first start, and refuses another one. */
	private void checkBucketCount() {
		boolean chosen = this.countOrigin != Origin.SET;
		if (this.countOrigin == Origin.GUESSED) {
			// chosen without Redis: read now, before this count could be pinned
			int count = read(this.runner, this.keys.namespace());
			if (count != this.keys.buckets()) {
				throw new BucketCountMismatchException(this.keys.namespace(), this.keys.buckets(), count, true);
			}
		}
		String buckets = ScriptReplies.asString(ScriptReplies.list(this.runner.run(BUCKETS,
				QueueScripts.args(List.of(this.keys.config(), this.keys.timers()), "pin", this.keys.buckets()))).get(0));
		Integer pinned = parse(buckets);
		if (pinned == null) {
			throw new Refused("Namespace '" + this.keys.namespace() + "' pins the bucket count '" + buckets
					+ "' in '{" + this.keys.namespace() + "}:config', which is no count: set its field '"
					+ PINNED_SETTING + "' to the count its jobs were scheduled with (1 to "
					+ KeySpace.MAX_BUCKETS + ")");
		}
		if (pinned != this.keys.buckets()) {
			throw new BucketCountMismatchException(this.keys.namespace(), this.keys.buckets(), pinned, chosen);
		}
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
		boolean cluster = runner.cluster("reading the bucket count of namespace '" + namespace + "'");
		List<?> pin = ScriptReplies
			.list(runner.run(BUCKETS, QueueScripts.args(List.of(keys.config(), keys.timers()), "read")));
		String pinned = ScriptReplies.asString(pin.get(0));
		Integer count = parse(pinned);
		if (count != null) {
			logger.debug("Namespace '" + namespace + "' was created with " + count + " bucket(s)");
			return count;
		}
		int chosen = cluster ? CLUSTER : SINGLE_SERVER;
		if (pinned != null && !pinned.isEmpty()) {
			// not a count: the start-up check refuses it by name
			return chosen;
		}
		long timed = ScriptReplies.asLong(pin.get(1));
		if (timed >= chosen) {
			throw inUse(namespace, timed, "a timer was given it", chosen);
		}
		if (timed >= 0 && timed != chosen - 1) {
			// timers run: their highest bucket is the count's last
			throw unpinned(namespace, "timers run its buckets up to " + timed + " only: it was created with another"
					+ " count than " + chosen + " and lost its pinned count", "");
		}
		// on one server, a bucket above 0 that holds anything, the highest first
		List<byte[][]> calls = new ArrayList<>();
		for (int bucket = LOOKED_AT; bucket >= chosen && !cluster; bucket--) {
			calls.add(QueueScripts.args(List.of(keys.jobs(bucket), KeySpace.bytes(keys.prefix(bucket) + "recurring")),
					"used"));
		}
		List<Object> used = runner.runAll(BUCKETS, calls, false);
		for (int i = 0; i < used.size(); i++) {
			if (Long.valueOf(1).equals(ScriptReplies.list(used.get(i)).get(0))) {
				throw inUse(namespace, LOOKED_AT - i, "it holds jobs or recurring jobs", chosen);
			}
		}
		logger.info("New namespace '" + namespace + "': " + chosen + " bucket(s) for this "
				+ (cluster ? "Redis Cluster" : "Redis server") + " (delayqueue.buckets sets another count)");
		return chosen;
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

	/** A pinned bucket count, 1 to {@link KeySpace#MAX_BUCKETS} without a leading zero, else {@code null}. */
	static @Nullable Integer parse(@Nullable String pinned) {
		if (pinned == null || !pinned.matches("[1-9][0-9]{0,4}")) {
			return null;
		}
		int count = Integer.parseInt(pinned);
		return (count <= KeySpace.MAX_BUCKETS) ? count : null;
	}

	private static boolean clusterConfigured(RedisConnectionFactory factory) {
		// a driver's factory class is looked at only when that driver is present
		return (ReplicaWait.LETTUCE && factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware())
				|| (ReplicaWait.JEDIS && factory instanceof JedisConnectionFactory jedis && jedis.isRedisClusterAware());
	}

}
