package io.github.delayqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Sentinel set-up: a master, a replica and three Sentinels (quorum 2) watching them,
 * all on free loopback ports, with a fast fail-over (by default the master is down after 1 s
 * without answers). {@link #killMaster()} kills the current master's process; the Sentinels
 * promote the replica; {@link #restartOldMasterAsReplica()} brings it back as the new
 * master's replica, so that fail-overs can follow one another. Owned by the caller, who must
 * close it.
 */
public final class RedisTestSentinel implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisTestSentinel.class);

	/** The name the Sentinels know the master by. */
	public static final String MASTER_NAME = "mymaster";

	private static final Pattern MASTER_ADDRESS = Pattern.compile("name=" + MASTER_NAME + ",status=\\w+,address=[^:]+:(\\d+)");

	private final LocalRedisServer master;

	private final LocalRedisServer replica;

	private final List<LocalRedisServer> sentinels;

	private @Nullable LocalRedisServer killed;

	private RedisTestSentinel(LocalRedisServer master, LocalRedisServer replica, List<LocalRedisServer> sentinels) {
		this.master = master;
		this.replica = replica;
		this.sentinels = sentinels;
	}

	/**
	 * Starts the master, the replica (and waits until it is in sync) and the Sentinels (and
	 * waits until each sees the master and the replica), with the master down after 1 s
	 * without answers and no append-only file.
	 * @return the running set-up
	 */
	public static RedisTestSentinel start() {
		return start(Duration.ofSeconds(1), "--appendonly", "no");
	}

	/**
	 * Starts the set-up as {@link #start()} does, with another fail-over delay and
	 * redis-server arguments for both data servers.
	 * @param downAfter how long the master may not answer before the Sentinels fail over
	 * @param dataArguments redis-server command-line arguments of the master and the replica
	 * @return the running set-up
	 */
	public static RedisTestSentinel start(Duration downAfter, String... dataArguments) {
		List<LocalRedisServer> started = new ArrayList<>();
		try {
			LocalRedisServer master = RedisTestServers.newLocal(false, List.of(dataArguments), null, null);
			master.start();
			started.add(master);
			// a replica by command, not by argument: restarted, either server comes back as it was
			LocalRedisServer replica = RedisTestServers.newLocal(false, List.of(dataArguments), null, null);
			replica.start();
			started.add(replica);
			TestRedisClient.call(replica, (commands) -> commands.replicaof(master.host(), master.port()));
			await("the replica to sync", () -> info(replica, "replication").contains("master_link_status:up"));
			String config = "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2\n"
					+ "sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfter.toMillis() + "\n"
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
	 * The data server that is master now, as the Sentinels name it: the first master, or
	 * the replica after a fail-over (and so on, back and forth).
	 * @return the current master
	 */
	public RedisTestServer currentMaster() {
		return dataServer(masterPort());
	}

	/**
	 * The data server that is not the current master.
	 * @return the current replica (it may be down or syncing)
	 */
	public RedisTestServer currentReplica() {
		return (currentMaster() == this.master) ? this.replica : this.master;
	}

	/**
	 * Kills the current master's process ({@code SIGKILL}).
	 */
	public synchronized void killMaster() {
		this.killed = dataServer(masterPort());
		this.killed.kill();
	}

	/**
	 * Starts the killed master again (empty, or with its append-only file when the data
	 * servers keep one); the Sentinels make it a replica of the new master. Waits until it
	 * is in sync.
	 */
	public synchronized void restartOldMasterAsReplica() {
		LocalRedisServer old = this.killed;
		if (old == null) {
			throw new IllegalStateException("No master was killed");
		}
		old.start();
		await("the old master to rejoin as a replica", () -> {
			String replication = info(old, "replication");
			return replication.contains("role:slave") && replication.contains("master_link_status:up");
		});
		this.killed = null;
	}

	/**
	 * Waits until the Sentinels promoted the replica of the killed master.
	 */
	public synchronized void awaitFailover() {
		LocalRedisServer old = this.killed;
		if (old == null) {
			throw new IllegalStateException("No master was killed");
		}
		LocalRedisServer other = (old == this.master) ? this.replica : this.master;
		await("the Sentinels to promote the replica",
				() -> masterPort() == other.port() && info(other, "replication").contains("role:master"));
	}

	/** The port of the master the first Sentinel that answers names, or -1. */
	private int masterPort() {
		for (LocalRedisServer sentinel : this.sentinels) {
			Matcher address = MASTER_ADDRESS.matcher(info(sentinel, "sentinel"));
			if (address.find()) {
				return Integer.parseInt(address.group(1));
			}
		}
		return -1;
	}

	private LocalRedisServer dataServer(int port) {
		if (port == this.replica.port()) {
			return this.replica;
		}
		if (port == this.master.port()) {
			return this.master;
		}
		throw new IllegalStateException("No Sentinel names a master");
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
