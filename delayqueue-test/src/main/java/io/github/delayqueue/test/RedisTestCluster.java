package io.github.delayqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.lettuce.core.MigrateArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Redis Cluster of masters without replicas: {@code redis-server --cluster-enabled yes}
 * processes on free loopback ports, the 16,384 slots split evenly among them in order, joined
 * with {@code CLUSTER MEET} (no {@code redis-cli} needed, so the embedded binary works too).
 * Owned by the caller, who must close it.
 */
public final class RedisTestCluster implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisTestCluster.class);

	/** The number of hash slots of a Redis Cluster. */
	public static final int SLOTS = 16_384;

	private final List<RedisTestServer> masters;

	/** Slots moved by {@link #migrateSlot}: slot → index of the master that serves it now. */
	private final Map<Integer, Integer> moved = new ConcurrentHashMap<>();

	private RedisTestCluster(List<RedisTestServer> masters) {
		this.masters = masters;
	}

	/**
	 * Starts a cluster and waits until every node reports {@code cluster_state:ok}.
	 * @param masters how many masters (at least 3, as Redis Cluster requires)
	 * @return the running cluster
	 */
	public static RedisTestCluster start(int masters) {
		if (masters < 3) {
			throw new IllegalArgumentException("masters must be at least 3, was " + masters);
		}
		List<RedisTestServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < masters; i++) {
				nodes.add(RedisTestServers.local()
					.argument("--cluster-enabled", "yes", "--cluster-node-timeout", "5000", "--appendonly", "no")
					.start());
			}
			RedisTestCluster cluster = new RedisTestCluster(nodes);
			cluster.form();
			logger.info("Started a Redis Cluster of {} masters: {}", masters, cluster.nodes());
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisTestServer::close);
			throw ex;
		}
	}

	private void form() {
		for (int i = 0; i < this.masters.size(); i++) {
			int epoch = i + 1;
			int[] slots = IntStream.rangeClosed(firstSlot(i), lastSlot(i)).toArray();
			TestRedisClient.call(this.masters.get(i), (commands) -> {
				commands.clusterSetConfigEpoch(epoch);
				return commands.clusterAddSlots(slots);
			});
		}
		for (RedisTestServer node : this.masters.subList(1, this.masters.size())) {
			TestRedisClient.call(this.masters.get(0), (commands) -> commands.clusterMeet(node.host(), node.port()));
		}
		long deadline = System.nanoTime() + 30_000_000_000L;
		for (RedisTestServer node : this.masters) {
			while (!isFormed(node)) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("The cluster did not form within 30 s: "
							+ TestRedisClient.call(node, RedisCommands::clusterInfo));
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
	}

	private boolean isFormed(RedisTestServer node) {
		String info = TestRedisClient.call(node, RedisCommands::clusterInfo);
		return info.contains("cluster_state:ok")
				&& info.contains("cluster_known_nodes:" + this.masters.size() + "\r");
	}

	/**
	 * The masters, in slot order: master {@code i} serves slots {@link #firstSlot(int)} to
	 * {@link #lastSlot(int)}.
	 * @return the masters
	 */
	public List<RedisTestServer> masters() {
		return this.masters;
	}

	/**
	 * The nodes as {@code spring.data.redis.cluster.nodes} takes them.
	 * @return {@code host:port} of every master, comma-separated
	 */
	public String nodes() {
		return this.masters.stream().map((node) -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
	}

	/**
	 * The hash slot of a key, as the cluster computes it.
	 * @param key the key
	 * @return the slot
	 */
	public int slotOf(String key) {
		return TestRedisClient.call(this.masters.get(0), (commands) -> commands.clusterKeyslot(key)).intValue();
	}

	/**
	 * The master that serves a key.
	 * @param key the key
	 * @return the index of its master in {@link #masters()}
	 */
	public int masterOf(String key) {
		return masterOfSlot(slotOf(key));
	}

	/**
	 * The master that serves a slot.
	 * @param slot the slot
	 * @return the index of its master in {@link #masters()}
	 */
	public int masterOfSlot(int slot) {
		Integer movedTo = this.moved.get(slot);
		if (movedTo != null) {
			return movedTo;
		}
		for (int i = 0; i < this.masters.size(); i++) {
			if (slot >= firstSlot(i) && slot <= lastSlot(i)) {
				return i;
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	/**
	 * How many keys a master holds.
	 * @param master the index of the master in {@link #masters()}
	 * @return its {@code DBSIZE}
	 */
	public long keyCount(int master) {
		return TestRedisClient.call(this.masters.get(master), RedisCommands::dbsize);
	}

	/**
	 * Moves a slot to another master the way {@code redis-cli --cluster reshard} does, with a
	 * pause before the keys move and between keys, so that clients meet the slot half-moved:
	 * {@code CLUSTER SETSLOT IMPORTING} on the target, {@code MIGRATING} on the source,
	 * {@code MIGRATE} of each key, then {@code SETSLOT NODE} on every master.
	 * @param slot the slot
	 * @param to the index of the master that serves it afterwards
	 * @param pause the pause before the first key, between keys and before the slot is handed
	 * over
	 * @return how many keys moved
	 */
	public int migrateSlot(int slot, int to, Duration pause) {
		int from = masterOfSlot(slot);
		if (from == to) {
			throw new IllegalArgumentException("slot " + slot + " is on master " + to + " already");
		}
		RedisTestServer target = this.masters.get(to);
		String targetId = TestRedisClient.call(target, RedisCommands::clusterMyId);
		String password = target.password();
		int keys = 0;
		try (StatefulRedisConnection<String, String> connection = this.masters.get(from).connect()) {
			RedisCommands<String, String> source = connection.sync();
			String sourceId = source.clusterMyId();
			TestRedisClient.call(target, (commands) -> commands.clusterSetSlotImporting(slot, sourceId));
			source.clusterSetSlotMigrating(slot, targetId);
			sleep(pause);
			List<String> batch;
			while (!(batch = source.clusterGetKeysInSlot(slot, 1)).isEmpty()) {
				MigrateArgs<String> migrate = MigrateArgs.Builder.keys(batch);
				if (password != null) {
					migrate.auth(password);
				}
				source.migrate(target.host(), target.port(), 0, 10_000, migrate);
				keys++;
				sleep(pause);
			}
			TestRedisClient.call(target, (commands) -> commands.clusterSetSlotNode(slot, targetId));
			source.clusterSetSlotNode(slot, targetId);
			for (int other = 0; other < this.masters.size(); other++) {
				if (other != from && other != to) {
					TestRedisClient.call(this.masters.get(other), (commands) -> commands.clusterSetSlotNode(slot, targetId));
				}
			}
		}
		this.moved.put(slot, to);
		logger.info("Moved slot {} ({} keys) from master {} to master {}", slot, keys, from, to);
		return keys;
	}

	private static void sleep(Duration pause) {
		try {
			Thread.sleep(pause.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private int firstSlot(int master) {
		return master * SLOTS / this.masters.size();
	}

	private int lastSlot(int master) {
		return (master + 1) * SLOTS / this.masters.size() - 1;
	}

	@Override
	public void close() {
		this.masters.forEach(RedisTestServer::close);
	}

}
