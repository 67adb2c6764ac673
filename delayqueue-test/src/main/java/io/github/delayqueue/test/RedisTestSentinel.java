package io.github.delayqueue.test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.lettuce.core.RedisException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Sentinel set-up: a master, a replica and three Sentinels (quorum 2) watching them,
 * all on free loopback ports, with a fast fail-over (the master is down after 1 s without
 * answers). {@link #killMaster()} kills the master's process; the Sentinels promote the
 * replica. Owned by the caller, who must close it.
 */
public final class RedisTestSentinel implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisTestSentinel.class);

	/** The name the Sentinels know the master by. */
	public static final String MASTER_NAME = "mymaster";

	private final LocalRedisServer master;

	private final LocalRedisServer replica;

	private final List<LocalRedisServer> sentinels;

	private RedisTestSentinel(LocalRedisServer master, LocalRedisServer replica, List<LocalRedisServer> sentinels) {
		this.master = master;
		this.replica = replica;
		this.sentinels = sentinels;
	}

	/**
	 * Starts the master, the replica (and waits until it is in sync) and the Sentinels (and
	 * waits until each sees the master and the replica).
	 * @return the running set-up
	 */
	public static RedisTestSentinel start() {
		List<LocalRedisServer> started = new ArrayList<>();
		try {
			LocalRedisServer master = RedisTestServers.newLocal(false, List.of("--appendonly", "no"), null, null);
			master.start();
			started.add(master);
			LocalRedisServer replica = RedisTestServers.newLocal(false,
					List.of("--replicaof", master.host(), String.valueOf(master.port())), null, null);
			replica.start();
			started.add(replica);
			await("the replica to sync", () -> info(replica, "replication").contains("master_link_status:up"));
			String config = "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2\n"
					+ "sentinel down-after-milliseconds " + MASTER_NAME + " 1000\n"
					+ "sentinel failover-timeout " + MASTER_NAME + " 5000\n"
					+ "sentinel parallel-syncs " + MASTER_NAME + " 1\n";
			List<LocalRedisServer> sentinels = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				LocalRedisServer sentinel = RedisTestServers.newLocal(false, List.of(), null, config);
				sentinel.start();
				started.add(sentinel);
				sentinels.add(sentinel);
			}
			RedisTestSentinel setUp = new RedisTestSentinel(master, replica, sentinels);
			for (LocalRedisServer sentinel : sentinels) {
				await("the Sentinels to see the replica and each other", () -> {
					String masters = info(sentinel, "sentinel");
					return masters.contains("slaves=1") && masters.contains("sentinels=3");
				});
			}
			logger.info("Started Sentinel set-up: master {}, replica {}, sentinels {}", master.port(), replica.port(),
					setUp.sentinelNodes());
			return setUp;
		}
		catch (RuntimeException ex) {
			started.forEach(LocalRedisServer::close);
			throw ex;
		}
	}

	/**
	 * The Sentinels as {@code spring.data.redis.sentinel.nodes} takes them.
	 * @return {@code host:port} of every Sentinel, comma-separated
	 */
	public String sentinelNodes() {
		return this.sentinels.stream().map((node) -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
	}

	/**
	 * The first master.
	 * @return the master at start
	 */
	public RedisTestServer master() {
		return this.master;
	}

	/**
	 * The first replica, the master after a fail-over.
	 * @return the replica at start
	 */
	public RedisTestServer replica() {
		return this.replica;
	}

	/**
	 * The data server that is master now: the first master, or the replica after a
	 * fail-over.
	 * @return the current master
	 */
	public RedisTestServer currentMaster() {
		return info(this.replica, "replication").contains("role:master") ? this.replica : this.master;
	}

	/**
	 * Kills the master's process ({@code SIGKILL}).
	 */
	public void killMaster() {
		this.master.kill();
	}

	/**
	 * Starts the killed master again, empty; the Sentinels make it a replica of the new
	 * master. Waits until it is in sync.
	 */
	public void restartOldMasterAsReplica() {
		this.master.start();
		await("the old master to rejoin as a replica", () -> {
			String replication = info(this.master, "replication");
			return replication.contains("role:slave") && replication.contains("master_link_status:up");
		});
	}

	/**
	 * Waits until the Sentinels promoted the replica.
	 */
	public void awaitFailover() {
		await("the Sentinels to promote the replica", () -> info(this.replica, "replication").contains("role:master"));
	}

	/** The INFO section, or "" when a Sentinel reconfiguring the server closed the connection. */
	private static String info(LocalRedisServer server, String section) {
		try {
			return TestRedisClient.call(server, (commands) -> commands.info(section));
		}
		catch (RedisException ex) {
			return "";
		}
	}

	private static void await(String what, java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out after 30 s waiting for " + what);
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	@Override
	public void close() {
		this.sentinels.forEach(LocalRedisServer::close);
		this.replica.close();
		this.master.close();
	}

}
