package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.util.ClassUtils;

/**
 * Redis's {@code WAIT}: blocks until the writes made so far on a connection reached a number
 * of replicas, or a timeout passes. Sent on the connection that wrote, through the driver's
 * own call (Spring Data Redis has no {@code WAIT} and cannot read its integer reply through
 * {@code execute} with Lettuce).
 */
final class ReplicaWait {

	/** The Lettuce type that sends {@code WAIT}, looked for on the class path. */
	static final String LETTUCE_COMMANDS = "io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands";

	/** The Jedis type that sends {@code WAIT}, looked for on the class path. */
	static final String JEDIS_CLIENT = "redis.clients.jedis.Jedis";

	private static final boolean LETTUCE = ClassUtils.isPresent(LETTUCE_COMMANDS, ReplicaWait.class.getClassLoader());

	private static final boolean JEDIS = ClassUtils.isPresent(JEDIS_CLIENT, ReplicaWait.class.getClassLoader());

	private final int replicas;

	private final Duration timeout;

	/**
	 * @param replicas how many replicas must have a write before it is acknowledged (0: none)
	 * @param timeout how long to wait for them
	 */
	ReplicaWait(int replicas, Duration timeout) {
		this.replicas = replicas;
		this.timeout = timeout;
	}

	boolean isOff() {
		return this.replicas == 0;
	}

	/**
	 * Waits for the replicas, when asked for any.
	 * @param connection the connection that wrote
	 * @param what what was written, for the error message
	 * @throws DelayQueueException when fewer replicas acknowledged in time: the write is on
	 * the master and may be lost if it fails over now
	 */
	void await(RedisConnection connection, String what) {
		if (this.replicas == 0) {
			return;
		}
		if (connection instanceof RedisClusterConnection) {
			throw new DelayQueueException("delayqueue.redis.wait-replicas is not supported on a Redis Cluster yet"
					+ " (WAIT must go to the master of each bucket); set it to 0");
		}
		check(replicasReached(connection.getNativeConnection()), what);
	}

	/**
	 * Sends {@code WAIT} inside an open pipeline, after the writes the pipeline holds, on the
	 * connection that sends them; {@link Pending#await} reads its answer once the pipeline is
	 * closed. (With Lettuce a pipeline runs on a connection of its own, and a {@code WAIT} sent
	 * after it closed would go to another connection, whose writes are not the pipeline's.)
	 * @param connection the pipelined connection
	 * @param what what was written, for the error message
	 * @return the answer to wait for
	 */
	Pending send(RedisConnection connection, String what) {
		Object nativeConnection = connection.getNativeConnection();
		if (LETTUCE && Lettuce.accepts(nativeConnection) && !(connection instanceof RedisClusterConnection)) {
			var answer = ((io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands<?, ?>) nativeConnection)
				.waitForReplication(this.replicas, this.timeout.toMillis());
			return (closed) -> check(Lettuce.get(answer, this.timeout), what);
		}
		// Jedis pipelines on the connection itself: WAIT after the pipeline is on the same one
		return (closed) -> await(closed, what);
	}

	/**
	 * A {@code WAIT} sent in a pipeline.
	 */
	@FunctionalInterface
	interface Pending {

		/**
		 * Waits for the answer.
		 * @param connection the connection, its pipeline closed
		 * @throws DelayQueueException when fewer replicas acknowledged in time
		 */
		void await(RedisConnection connection);

	}

	private void check(long acknowledged, String what) {
		if (acknowledged < this.replicas) {
			throw new DelayQueueException("The " + what + " reached " + acknowledged + " of the "
					+ this.replicas + " replicas asked for (delayqueue.redis.wait-replicas) within "
					+ this.timeout.toMillis() + " ms: it is on the master and may be lost if the master fails over"
					+ " before its replicas get it (running it again is safe)");
		}
	}

	private long replicasReached(Object nativeConnection) {
		if (LETTUCE && Lettuce.accepts(nativeConnection)) {
			return Lettuce.await(nativeConnection, this.replicas, this.timeout);
		}
		if (JEDIS && Jedis.accepts(nativeConnection)) {
			return Jedis.await(nativeConnection, this.replicas, this.timeout);
		}
		if (JEDIS && Jedis.isUnified(nativeConnection)) {
			// a pooled client: WAIT could run on another connection than the write and prove nothing
			throw new DelayQueueException("delayqueue.redis.wait-replicas needs one connection per operation:"
					+ " with Jedis, call setUseUnifiedJedis(false) on the JedisConnectionFactory (or use Lettuce)");
		}
		throw new IllegalStateException("delayqueue.redis.wait-replicas needs Lettuce or Jedis, not "
				+ nativeConnection.getClass().getName());
	}

	private static final class Lettuce {

		static boolean accepts(Object connection) {
			return connection instanceof io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands<?, ?>;
		}

		static long await(Object connection, int replicas, Duration timeout) {
			var commands = (io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands<?, ?>) connection;
			return get(commands.waitForReplication(replicas, timeout.toMillis()), timeout);
		}

		static long get(java.util.concurrent.Future<Long> answer, Duration timeout) {
			try {
				return answer.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new DelayQueueException("Interrupted while waiting for replicas", ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new DelayQueueConnectionException("Redis unreachable during WAIT: " + ex.getMessage(), ex);
			}
		}

	}

	private static final class Jedis {

		static boolean accepts(Object connection) {
			return connection instanceof redis.clients.jedis.Jedis;
		}

		static boolean isUnified(Object connection) {
			return connection instanceof redis.clients.jedis.UnifiedJedis;
		}

		static long await(Object connection, int replicas, Duration timeout) {
			try {
				return ((redis.clients.jedis.Jedis) connection).waitReplicas(replicas, timeout.toMillis());
			}
			catch (redis.clients.jedis.exceptions.JedisConnectionException ex) {
				throw new DelayQueueConnectionException("Redis did not answer WAIT (delayqueue.redis.wait-timeout "
						+ timeout.toMillis() + " ms must be shorter than the client's read timeout): " + ex.getMessage(),
						ex);
			}
		}

	}

}
