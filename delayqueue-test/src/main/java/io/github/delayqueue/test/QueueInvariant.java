package io.github.delayqueue.test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * The invariant of a delayqueue namespace, checked from the outside against a real Redis:
 * <ul>
 * <li>every job record reads, and is in exactly the index its state names: DELAYED in the
 * bucket's {@code delayed} zset scored by its due time, READY in the ready list of its topic
 * and priority (at least once), RESERVED in the {@code reserved} zset, DEAD in its topic's {@code dead:<topic>}
 * zset;</li>
 * <li>every index entry has a record in that state (a ready-list entry that does not is a
 * tombstone, and the tombstones of a list are counted: the lengths of a topic's lists add up
 * to its READY jobs plus its tombstones, not counting the sentinel);</li>
 * <li>a topic's first ready list starts with the sentinel {@code ^<priorities>} exactly when
 * the lists of other priorities have entries, and it names exactly those;</li>
 * <li>the per-state counts in the {@code stats} hash equal the indexes (a missing field
 * counts 0; a field that fell to 0 may wait for the guard re-check to delete it), with no
 * negative field;</li>
 * <li>errors are kept only for jobs that exist, tokens never run ahead of the bucket's
 * counter, the guard key never exists, no key of the bucket is unknown, and the pinned bucket
 * count is the expected one;</li>
 * <li>recurring jobs: every definition reads and lives in its name's bucket, and the
 * {@code recurring-due} zset holds names of existing definitions that are not paused only;</li>
 * <li>the finished jobs a topic keeps ({@code {<namespace>/done/<topic>}}): the records hash
 * and the order zset hold the same job keys of that topic, each record reads, and its finish
 * time is its score; the deaths of a topic that limits its DEAD jobs ({@code :deaths}) are job
 * keys of that topic, and none names a time of death later than its job's while the job is
 * DEAD; a topic's rate limit has its two keys ({@code {<namespace>/rate/<topic>}}) and no
 * other.</li>
 * </ul>
 * It reads the namespace as it is: run it when nothing changes the namespace (after the test's
 * work, with the queues stopped or idle). It knows the key layout and the job record format of
 * {@code lib/keys.lua} on its own, so that it catches a script that breaks them.
 */
public final class QueueInvariant {

	/** A recurring definition's header: version, gen, paused, counts, last tick, last scheduled, last key. */
	private static final Pattern RECURRING = Pattern
		.compile("^\\d+,\\d+,([01]),\\d+,\\d+,\\d+,-?\\d+,-?\\d+,[^\\n]*\\n");

	/**
	 * A kept finished job's header: priority letter (none for the default), attempt (at least
	 * 1), max attempts, then ttr, created (not 0), due, delivered (0: unknown) and finished in
	 * base 36.
	 */
	private static final Pattern COMPLETED = Pattern
		.compile("^[a-eg-j]?[1-9]\\d*,[1-9]\\d*,[0-9a-z]+,[1-9a-z][0-9a-z]*,[0-9a-z]+,[0-9a-z]+,([0-9a-z]+)$");

	private static final int MAX_SHOWN = 40;

	private final List<RedisCommands<String, String>> nodes;

	final String namespace;

	final int buckets;

	/** The topics with kept finished jobs, found by the scan of the namespace's keys. */
	private final Set<String> completedTopics = new TreeSet<>();

	private final Set<String> deathTopics = new TreeSet<>();

	private QueueInvariant(List<RedisCommands<String, String>> nodes, String namespace, int buckets) {
		this.nodes = nodes;
		this.namespace = namespace;
		this.buckets = buckets;
	}

	/**
	 * Checks a namespace on one server and throws when it does not hold.
	 * @param server the server
	 * @param namespace the namespace
	 * @param buckets its bucket count
	 * @throws AssertionError listing the violations
	 */
	public static void assertHolds(RedisTestServer server, String namespace, int buckets) {
		try (StatefulRedisConnection<String, String> connection = server.connect()) {
			new QueueInvariant(List.of(connection.sync()), namespace, buckets).assertHolds();
		}
	}

	/**
	 * Checks a namespace on one server with the bucket count pinned in it (by the first queue
	 * that started on it) and throws when it does not hold.
	 * @param server the server
	 * @param namespace the namespace
	 * @throws AssertionError listing the violations, or saying that the namespace has no
	 * pinned count (no queue started on it)
	 */
	public static void assertHolds(RedisTestServer server, String namespace) {
		try (StatefulRedisConnection<String, String> connection = server.connect()) {
			String pinned = connection.sync().hget("{" + namespace + "}:config", "buckets");
			if (pinned == null || !pinned.matches("[1-9][0-9]{0,4}")) {
				throw new AssertionError("Namespace '" + namespace + "' has no pinned bucket count (" + pinned
						+ "): no queue started on it; pass the count");
			}
			new QueueInvariant(List.of(connection.sync()), namespace, Integer.parseInt(pinned)).assertHolds();
		}
	}

	/**
	 * Checks a namespace on a cluster and throws when it does not hold.
	 * @param cluster the cluster
	 * @param namespace the namespace
	 * @param buckets its bucket count
	 * @throws AssertionError listing the violations
	 */
	public static void assertHolds(RedisTestCluster cluster, String namespace, int buckets) {
		List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
		try {
			for (RedisTestServer master : cluster.masters()) {
				connections.add(master.connect());
			}
			new QueueInvariant(connections.stream().map(StatefulRedisConnection::sync).toList(), namespace, buckets)
				.assertHolds();
		}
		finally {
			connections.forEach(StatefulRedisConnection::close);
		}
	}

	/**
	 * The violations of a namespace on one server (empty when it holds).
	 * @param server the server
	 * @param namespace the namespace
	 * @param buckets its bucket count
	 * @return the violations, each a sentence
	 */
	public static List<String> violations(RedisTestServer server, String namespace, int buckets) {
		return TestRedisClient.call(server, (redis) -> new QueueInvariant(List.of(redis), namespace, buckets).violations());
	}

	private void assertHolds() {
		List<String> violations = violations();
		if (!violations.isEmpty()) {
			StringBuilder message = new StringBuilder("The invariant of namespace '" + this.namespace + "' does not hold ("
					+ violations.size() + " violations):");
			violations.stream().limit(MAX_SHOWN).forEach((violation) -> message.append("\n  ").append(violation));
			if (violations.size() > MAX_SHOWN) {
				message.append("\n  ...");
			}
			throw new AssertionError(message.toString());
		}
	}

	private List<String> violations() {
		List<String> violations = new ArrayList<>();
		Map<Integer, Set<String>> keysByBucket = keysByBucket(violations);
		String config = "{" + this.namespace + "}:config";
		String pinned = call(config, (redis) -> redis.hget(config, "buckets"));
		if (pinned != null && !pinned.equals(String.valueOf(this.buckets))) {
			violations.add("the namespace's pinned bucket count is " + pinned + ", not " + this.buckets);
		}
		for (int bucket = 0; bucket < this.buckets; bucket++) {
			new BucketInvariant(this, bucket).check(keysByBucket.getOrDefault(bucket, Set.of()), violations);
		}
		this.completedTopics.forEach((topic) -> checkCompleted(topic, violations));
		this.deathTopics.forEach((topic) -> checkDeaths(topic, violations));
		return violations;
	}

	/**
	 * The finished jobs a topic keeps: the same job keys, all of the topic, in the records hash
	 * and the order zset; each record reads and carries its score as its finish time.
	 */
	private void checkCompleted(String topic, List<String> violations) {
		String tag = "{" + this.namespace + "/done/" + topic + "}:";
		String where = "finished jobs of topic " + topic + ": ";
		Map<String, Long> order = new TreeMap<>();
		call(tag, (redis) -> redis.zrangeWithScores(tag + "finished", 0, -1))
			.forEach((entry) -> order.put(entry.getValue(), (long) entry.getScore()));
		Map<String, String> records = call(tag, (redis) -> redis.hgetall(tag + "completed"));
		for (Map.Entry<String, String> entry : records.entrySet()) {
			String jobKey = entry.getKey();
			String record = entry.getValue();
			int newline = record.indexOf('\n');
			Matcher header = COMPLETED.matcher((newline >= 0) ? record.substring(0, newline) : record);
			if (!jobKey.startsWith(topic + ":")) {
				violations.add(where + "job " + jobKey + " is of another topic");
			}
			if (!header.matches()) {
				violations.add(where + "job " + jobKey + " has an unreadable record: " + abbreviate(record));
			}
			else if (!order.containsKey(jobKey)) {
				violations.add(where + "job " + jobKey + " has a record but no place in the order");
			}
			else if (Long.parseLong(header.group(1), 36) != order.get(jobKey)) {
				violations.add(where + "job " + jobKey + " finished at " + Long.parseLong(header.group(1), 36)
						+ " by its record, at " + order.get(jobKey) + " by the order");
			}
		}
		order.keySet()
			.stream()
			.filter((jobKey) -> !records.containsKey(jobKey))
			.forEach((jobKey) -> violations.add(where + "the order holds " + jobKey + ", which has no record"));
	}

	/**
	 * The deaths of a topic that limits its DEAD jobs: job keys of that topic, scored by a time
	 * of death no later than the job's own while it is DEAD (an entry may outlive its job's
	 * death: a replay or a cancel leaves it until it is trimmed).
	 */
	private void checkDeaths(String topic, List<String> violations) {
		String tag = "{" + this.namespace + "/done/" + topic + "}:";
		String where = "deaths of topic " + topic + ": ";
		for (ScoredValue<String> entry : call(tag, (redis) -> redis.zrangeWithScores(tag + "deaths", 0, -1))) {
			String jobKey = entry.getValue();
			long score = (long) entry.getScore();
			if (!jobKey.startsWith(topic + ":")) {
				violations.add(where + "job " + jobKey + " is of another topic");
				continue;
			}
			if (score < 0 || score != entry.getScore()) {
				violations.add(where + "job " + jobKey + " died at " + entry.getScore() + ", not a time in ms");
				continue;
			}
			CRC32 crc = new CRC32();
			crc.update(jobKey.getBytes(StandardCharsets.UTF_8));
			String prefix = "{" + this.namespace + ":" + (crc.getValue() % this.buckets) + "}:";
			String record = call(prefix, (redis) -> redis.hget(prefix + "jobs", jobKey));
			Double died = call(prefix, (redis) -> redis.zscore(prefix + "dead:" + topic, jobKey));
			if (record != null && record.startsWith("X") && died != null && died < score) {
				violations.add(where + "job " + jobKey + " died at " + died.longValue() + ", its entry says " + score);
			}
		}
	}

	private Map<Integer, Set<String>> keysByBucket(List<String> violations) {
		Map<Integer, Set<String>> keys = new TreeMap<>();
		String prefix = "{" + this.namespace + ":";
		String done = "{" + this.namespace + "/done/";
		String rate = "{" + this.namespace + "/rate/";
		ScanArgs match = ScanArgs.Builder.matches("{" + this.namespace + "[:/]*").limit(1000);
		for (RedisCommands<String, String> node : this.nodes) {
			KeyScanCursor<String> page = node.scan(match);
			while (true) {
				for (String key : page.getKeys()) {
					int end = key.indexOf("}:");
					if (key.startsWith(done)) {
						if (end > 0 && (key.endsWith("}:completed") || key.endsWith("}:finished"))) {
							this.completedTopics.add(key.substring(done.length(), end));
						}
						else if (end > 0 && key.endsWith("}:deaths")) {
							this.deathTopics.add(key.substring(done.length(), end));
						}
						else {
							violations.add("key " + key + " is not a key of the finished or dead jobs of a topic");
						}
						continue;
					}
					if (key.startsWith(rate)) {
						if (end < 0 || !(key.endsWith("}:granted") || key.endsWith("}:seq"))) {
							violations.add("key " + key + " is not a key of the rate limit of a topic");
						}
						continue;
					}
					Integer bucket = (end > prefix.length()) ? bucketNumber(key.substring(prefix.length(), end)) : null;
					if (bucket == null || bucket >= this.buckets) {
						violations.add("key " + key + " is not a key of one of the " + this.buckets + " buckets");
					}
					else {
						keys.computeIfAbsent(bucket, (b) -> new TreeSet<>()).add(key.substring(end + 2));
					}
				}
				if (page.isFinished()) {
					break;
				}
				page = node.scan(page, match);
			}
		}
		return keys;
	}

	/**
	 * Recurring jobs: every definition's record reads and lives in bucket
	 * {@code crc32(name) mod buckets}; a definition is in the {@code recurring-due} zset only
	 * while it is not paused, and the zset holds no name without a definition.
	 */
	void checkRecurring(int bucket, String prefix, String where, List<String> violations) {
		Map<String, Boolean> paused = new TreeMap<>();
		Map<String, String> definitions = call(prefix, (redis) -> redis.hgetall(prefix + "recurring"));
		for (Map.Entry<String, String> definition : definitions.entrySet()) {
			String name = definition.getKey();
			Matcher header = RECURRING.matcher(definition.getValue());
			if (!header.lookingAt()) {
				violations.add(where + "recurring job " + name + " has an unreadable record: "
						+ abbreviate(definition.getValue()));
				continue;
			}
			paused.put(name, "1".equals(header.group(1)));
			CRC32 crc = new CRC32();
			crc.update(name.getBytes(StandardCharsets.UTF_8));
			if (crc.getValue() % this.buckets != bucket) {
				violations.add(where + "recurring job " + name + " belongs to bucket " + (crc.getValue() % this.buckets));
			}
		}
		for (String member : call(prefix, (redis) -> redis.zrange(prefix + "recurring-due", 0, -1))) {
			Boolean isPaused = paused.get(member);
			if (isPaused == null) {
				violations.add(where + "recurring-due holds " + member + ", which has no definition");
			}
			else if (isPaused) {
				violations.add(where + "recurring-due holds " + member + ", which is paused");
			}
		}
	}

	private static @Nullable Integer bucketNumber(String text) {
		if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit)) {
			return null;
		}
		return Integer.valueOf(text);
	}

	static String topicOf(String jobKey) {
		int colon = jobKey.indexOf(':');
		return (colon > 0) ? jobKey.substring(0, colon) : "";
	}

	static String abbreviate(String text) {
		return (text.length() > 60) ? text.substring(0, 60) + "..." : text;
	}

	/**
	 * Runs a command about a key on the node that serves it (the first that does not answer
	 * {@code MOVED} or {@code ASK}).
	 */
	<T> T call(String key, Function<RedisCommands<String, String>, T> command) {
		RedisCommandExecutionException moved = null;
		for (RedisCommands<String, String> node : this.nodes) {
			try {
				return command.apply(node);
			}
			catch (RedisCommandExecutionException ex) {
				String message = String.valueOf(ex.getMessage());
				if (!message.startsWith("MOVED") && !message.startsWith("ASK")) {
					throw ex;
				}
				moved = ex;
			}
		}
		throw new IllegalStateException("No node serves " + key + ": " + ((moved != null) ? moved.getMessage() : ""));
	}

}
