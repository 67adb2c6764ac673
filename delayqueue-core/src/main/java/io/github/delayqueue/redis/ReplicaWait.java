package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.NotEnoughReplicasException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Redis's {@code WAIT} for a number of replicas, sent through the driver on the connection
 * that wrote. With Lettuce's shared connection, the writes that wait go on connections of
 * their own, one per write at a time: Redis answers nothing else on a connection while a
 * {@code WAIT} on it waits, and the shared one carries every other call of the instance.
 */
final class ReplicaWait {

	/** The Lettuce type that sends {@code WAIT}. */
	static final String LETTUCE_COMMANDS = "io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands";

	/** The Jedis type that sends {@code WAIT}. */
	static final String JEDIS_CLIENT = "redis.clients.jedis.Jedis";

	static final boolean LETTUCE = ClassUtils.isPresent(LETTUCE_COMMANDS, ReplicaWait.class.getClassLoader());

	static final boolean JEDIS = ClassUtils.isPresent(JEDIS_CLIENT, ReplicaWait.class.getClassLoader());

	private final int replicas;

	private final Duration timeout;

	private final Object monitor = new Object();

	/** With Lettuce, the connections of the writes that wait. */
	private @Nullable Object own;

	ReplicaWait(int replicas, Duration timeout) {
		this.replicas = replicas;
		this.timeout = timeout;
	}

	boolean isOff() {
		return this.replicas == 0;
	}

	/**
	 * A connection for writes whose replicas are awaited: with a Lettuce factory that shares
	 * its connection (not a cluster's), one of this wait's own, opened by the factory's client;
	 * else one of the factory.
	 */
	RedisConnection connection(RedisConnectionFactory factory) {
		if (LETTUCE && factory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection()
				&& !lettuce.isClusterAware()) {
			Object own;
			synchronized (this.monitor) {
				// another client: the factory was restarted
				if (this.own == null || ((Own) this.own).client != lettuce.getNativeClient()) {
					close();
					this.own = new Own(lettuce);
				}
				own = this.own;
			}
			RedisConnection connection = ((Own) own).borrow(lettuce);
			if (connection != null) {
				return connection;
			}
		}
		return factory.getConnection();
	}

	/** Whether the connection is one of this wait's own. */
	boolean owns(RedisConnection connection) {
		return LETTUCE && connection instanceof Own.Borrowed;
	}

	/**
	 * Closes this wait's own connections, each once the write on it is done; the next write
	 * that waits opens another.
	 */
	void close() {
		synchronized (this.monitor) {
			if (this.own != null) {
				((Own) this.own).retire();
				this.own = null;
			}
		}
	}

	/**
	 * Starts writes whose replicas are awaited, before the first of them, on their connection.
	 * The function returned, given what the writes were, sends {@code WAIT} after them (inside an
	 * open pipeline too); the task it returns waits for the answer, outside the pipeline, and
	 * throws {@link DelayQueueException} when fewer replicas acknowledged in time or {@code WAIT}
	 * ran on another connection.
	 * @throws DelayQueueException on a Redis Cluster or with a pooled Jedis client
	 */
	Function<String, Runnable> start(RedisConnection connection) {
		if (connection instanceof RedisClusterConnection) {
			throw new DelayQueueException("delayqueue.redis.wait-replicas is not supported on a Redis Cluster yet"
					+ " (WAIT must go to the master of each bucket); set it to 0");
		}
		Object nativeConnection = connection.getNativeConnection();
		if (LETTUCE && nativeConnection instanceof RedisClusterAsyncCommands<?, ?> commands) {
			// CLIENT INFO before the writes and after WAIT: the same server connection, else not acknowledged
			Future<String> before = commands.clientInfo();
			return (what) -> {
				Future<Long> answer = commands.waitForReplication(this.replicas, this.timeout.toMillis());
				Future<String> after = commands.clientInfo();
				return () -> {
					long acknowledged = get(answer);
					String writer = connectionOf(get(before));
					String waiter = connectionOf(get(after));
					if (owns(connection)) {
						// every call on it answered: the next write that waits may use it
						((Own.Borrowed) connection).reusable = true;
					}
					if (!writer.equals(waiter)) {
						throw new DelayQueueConnectionException("The connection to Redis was replaced between the "
								+ what + " and its WAIT (a reconnect, a fail-over): the replicas' answer is not about"
								+ " the " + what + ", which may be lost if the master fails over",
								new IllegalStateException("The " + what + " ran on " + writer + ", WAIT on " + waiter));
					}
					check(acknowledged, what);
				};
			};
		}
		if (JEDIS && nativeConnection instanceof redis.clients.jedis.Jedis) {
			// Jedis pipelines on the connection itself: WAIT after the pipeline is on the same one
			return (what) -> () -> Jedis.await(this, connection, what);
		}
		if (JEDIS && nativeConnection instanceof redis.clients.jedis.UnifiedJedis) {
			// a pooled client: WAIT could run on another connection than the write and prove nothing
			throw new DelayQueueException("delayqueue.redis.wait-replicas needs one connection per operation:"
					+ " with Jedis, call setUseUnifiedJedis(false) on the JedisConnectionFactory (or use Lettuce)");
		}
		throw new IllegalStateException("delayqueue.redis.wait-replicas needs Lettuce or Jedis, not "
				+ nativeConnection.getClass().getName());
	}

	private void check(long acknowledged, String what) {
		if (acknowledged < this.replicas) {
			throw new NotReplicated("The " + what + " reached " + acknowledged + " of the " + this.replicas
					+ " replicas asked for (delayqueue.redis.wait-replicas) within " + this.timeout.toMillis()
					+ " ms: it is on the master and may be lost if the master fails over before its replicas get it");
		}
	}

	/** A write that is on the master but on fewer replicas than asked for, with its calls' replies. */
	static final class NotReplicated extends NotEnoughReplicasException {

		private List<Object> replies = List.of();

		NotReplicated(String message) {
			super(message);
		}

		/** The replies of the write's calls, which the master applied; empty when not known. */
		List<Object> replies() {
			return this.replies;
		}

		NotReplicated withReplies(List<Object> replies) {
			this.replies = replies;
			return this;
		}

	}

	/** The fields of a {@code CLIENT INFO} line that name the connection: id, addr and laddr. */
	private static String connectionOf(String clientInfo) {
		return Arrays.stream(clientInfo.trim().split(" "))
			.filter((field) -> field.startsWith("id=") || field.startsWith("addr=") || field.startsWith("laddr="))
			.collect(Collectors.joining(" "));
	}

	private <T> T get(Future<T> answer) {
		try {
			return answer.get(this.timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new DelayQueueException("Interrupted while waiting for replicas", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new DelayQueueConnectionException("Redis unreachable during WAIT: " + ex.getMessage(), ex);
		}
	}

	/**
	 * The Lettuce connections of the writes that wait, one per write at a time (a {@code WAIT}
	 * holds its connection), kept for the next: Lettuce's types only in here.
	 */
	private static final class Own {

		private final AbstractRedisClient client;

		private final Deque<StatefulRedisConnection<byte[], byte[]>> idle = new ArrayDeque<>();

		/** The client opens none of its own (a static master/replica factory's has no address). */
		private boolean none;

		private boolean retired;

		Own(LettuceConnectionFactory factory) {
			this.client = factory.getRequiredNativeClient();
		}

		/** An idle connection, or a new one; {@code null} when the client opens none. */
		@Nullable RedisConnection borrow(LettuceConnectionFactory factory) {
			StatefulRedisConnection<byte[], byte[]> connection;
			synchronized (this) {
				if (this.none) {
					return null;
				}
				connection = this.idle.pollFirst();
			}
			if (connection == null) {
				try {
					// the factory's client connects as the factory does: its address, credentials, database
					connection = ((RedisClient) this.client).connect(ByteArrayCodec.INSTANCE);
				}
				catch (IllegalStateException ex) {
					synchronized (this) {
						this.none = true;
					}
					return null;
				}
				catch (RedisException ex) {
					throw new RedisConnectionFailureException("Unable to connect to Redis: " + ex.getMessage(), ex);
				}
			}
			return new Borrowed(this, connection, factory);
		}

		synchronized void retire() {
			this.retired = true;
			this.idle.forEach(StatefulRedisConnection::close);
			this.idle.clear();
		}

		private synchronized void release(StatefulRedisConnection<byte[], byte[]> connection, boolean reusable) {
			// one whose call failed may still run a command (a WAIT that timed out here)
			if (this.retired || !reusable || !connection.isOpen()) {
				connection.close();
			}
			else {
				this.idle.addFirst(connection);
			}
		}

		/** Closing it gives the connection back for the next write that waits, once made reusable. */
		private static final class Borrowed extends LettuceConnection {

			private final Own own;

			private final StatefulRedisConnection<byte[], byte[]> connection;

			private boolean released;

			private boolean reusable;

			Borrowed(Own own, StatefulRedisConnection<byte[], byte[]> connection, LettuceConnectionFactory factory) {
				super(connection, factory.getTimeout(), own.client, factory.getDatabase());
				this.own = own;
				this.connection = connection;
			}

			@Override
			public void close() {
				super.close();
				if (!this.released) {
					this.released = true;
					this.own.release(this.connection, this.reusable);
				}
			}

		}

	}

	/** Jedis's {@code WAIT}, which never sends a command again on another connection. */
	private static final class Jedis {

		static void await(ReplicaWait wait, RedisConnection connection, String what) {
			long acknowledged;
			try {
				acknowledged = ((redis.clients.jedis.Jedis) connection.getNativeConnection()).waitReplicas(wait.replicas,
						wait.timeout.toMillis());
			}
			catch (redis.clients.jedis.exceptions.JedisConnectionException ex) {
				throw new DelayQueueConnectionException("Redis did not answer WAIT (delayqueue.redis.wait-timeout "
						+ wait.timeout.toMillis() + " ms must be shorter than the client's read timeout): "
						+ ex.getMessage(), ex);
			}
			wait.check(acknowledged, what);
		}

	}

}
