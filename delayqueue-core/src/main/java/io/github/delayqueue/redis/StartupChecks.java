package io.github.delayqueue.redis;

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

/**
 * What the queue checks of Redis before it writes: refuses Redis older than 6.2 and another
 * bucket count than the namespace's, warns when keys may be evicted, and logs how data is
 * persisted. Run at the start or, when Redis was unreachable then, before each call until they
 * pass; a refusal then fails every later call. Thread-safe.
 */
final class StartupChecks {

	private static final Log logger = LogFactory.getLog(StartupChecks.class);

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final BucketCount.Origin countOrigin;

	private final Object monitor = new Object();

	/** Whether the checks still have to pass before a call to Redis. */
	private volatile boolean pending = true;

	private volatile @Nullable RuntimeException refusal;

	/** Creates the checks, run through a runner that does not run them itself. */
	StartupChecks(ScriptRunner runner, KeySpace keys, BucketCount.Origin countOrigin) {
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
			try {
				checkServers();
				checkBucketCount();
				this.pending = false;
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
	}

	/**
	 * Runs the checks when they are still to pass.
	 * @throws DelayQueueConnectionException when Redis is still unreachable
	 * @throws UnsupportedRedisVersionException for this call and every later one
	 * @throws BucketCountMismatchException for this call and every later one
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
			catch (UnsupportedRedisVersionException | BucketCountMismatchException | BucketCount.Refused ex) {
				this.refusal = ex;
				logger.error("delayqueue refuses to work on this Redis, which answers now; every call fails until the"
						+ " application is restarted with the fix: " + ex.getMessage());
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
		logPersistence(values(info, "aof_enabled").containsValue("1"), persistenceConfig());
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

	/** Refuses a version older than 6.2; an unreadable one passes. */
	static void checkVersion(Map<String, String> versions) {
		versions.forEach((node, version) -> {
			String[] parts = version.split("\\.");
			try {
				int major = Integer.parseInt(parts[0]);
				int minor = (parts.length > 1) ? Integer.parseInt(parts[1]) : 0;
				if (major < 6 || (major == 6 && minor < 2)) {
					throw new UnsupportedRedisVersionException(node, version);
				}
			}
			catch (NumberFormatException ex) {
				// not a version we can read
			}
		});
	}

	private static void logPersistence(boolean aof, Map<String, String> config) {
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

	private Map<String, String> persistenceConfig() {
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
		return config;
	}

	/** Pins the bucket count in the namespace at its first start, and refuses another one. */
	private void checkBucketCount() {
		boolean chosen = this.countOrigin != BucketCount.Origin.SET;
		if (this.countOrigin == BucketCount.Origin.GUESSED) {
			// chosen without Redis: read now, before this count could be pinned
			int count = BucketCount.read(this.runner, this.keys.namespace());
			if (count != this.keys.buckets()) {
				throw new BucketCountMismatchException(this.keys.namespace(), this.keys.buckets(), count, true);
			}
		}
		String configured = String.valueOf(this.keys.buckets());
		String buckets = QueueScripts.pin(this.runner, this.keys, BucketCount.PINNED_SETTING, configured);
		Integer pinned = BucketCount.parse(buckets);
		if (pinned == null) {
			throw new BucketCount.Refused("Namespace '" + this.keys.namespace() + "' pins the bucket count '" + buckets
					+ "' in '{" + this.keys.namespace() + "}:config', which is no count: set its field '"
					+ BucketCount.PINNED_SETTING + "' to the count its jobs were scheduled with (1 to "
					+ KeySpace.MAX_BUCKETS + ")");
		}
		if (pinned != this.keys.buckets()) {
			throw new BucketCountMismatchException(this.keys.namespace(), this.keys.buckets(), pinned, chosen);
		}
	}

}
