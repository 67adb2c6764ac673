package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

import io.github.delayqueue.core.JobConstraints;

/**
 * Names of the Redis keys and channel of one namespace. Every key of bucket {@code b} starts
 * with the hash tag {@code {<namespace>:<b>}}, so each script touches one slot and the
 * buckets spread over a Redis Cluster.
 *
 * <p>
 * A job belongs to bucket {@code crc32(topic + ":" + id) mod buckets} (UTF-8 bytes,
 * IEEE CRC-32 as in {@link CRC32}), the same in every language.
 */
final class KeySpace {

	/** The most buckets a namespace may have: a Redis Cluster's hash slots. */
	static final int MAX_BUCKETS = 16_384;

	private final String namespace;

	private final int buckets;

	private final byte[][] jobsKeys;

	private final byte[][] guardKeys;

	KeySpace(String namespace, int buckets) {
		this.namespace = JobConstraints.namespace(namespace);
		this.buckets = checkBuckets(buckets);
		this.jobsKeys = new byte[buckets][];
		this.guardKeys = new byte[buckets][];
		for (int b = 0; b < buckets; b++) {
			this.jobsKeys[b] = bytes(prefix(b) + "jobs");
			this.guardKeys[b] = bytes(prefix(b) + "guard");
		}
	}

	/**
	 * Checks a bucket count.
	 * @param buckets the count
	 * @return the count
	 * @throws IllegalArgumentException if it is not between 1 and {@link #MAX_BUCKETS}
	 */
	static int checkBuckets(int buckets) {
		if (buckets < 1 || buckets > MAX_BUCKETS) {
			throw new IllegalArgumentException("buckets must be between 1 and " + MAX_BUCKETS + ", was " + buckets);
		}
		return buckets;
	}

	String namespace() {
		return this.namespace;
	}

	int buckets() {
		return this.buckets;
	}

	int bucketOf(String topic, String id) {
		CRC32 crc = new CRC32();
		crc.update(jobKey(topic, id).getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % this.buckets);
	}

	/**
	 * The bucket of a recurring job's definition: {@code crc32(name) mod buckets}. Its
	 * occurrences get ids that put them into the same bucket.
	 * @param name the definition's name
	 * @return the bucket
	 */
	int bucketOfName(String name) {
		CRC32 crc = new CRC32();
		crc.update(name.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % this.buckets);
	}

	/**
	 * The bucket of a job, its topic and id checked first.
	 * @throws IllegalArgumentException for a topic or id that breaks a rule of
	 * {@link JobConstraints}
	 */
	int checkedBucketOf(String topic, String id) {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		return bucketOf(topic, id);
	}

	static String jobKey(String topic, String id) {
		return topic + ":" + id;
	}

	String prefix(int bucket) {
		return "{" + this.namespace + ":" + bucket + "}:";
	}

	/**
	 * The job pool of a bucket: the key every job script gets as {@code KEYS[1]}.
	 * @param bucket the bucket
	 * @return the key
	 */
	byte[] jobs(int bucket) {
		return this.jobsKeys[bucket];
	}

	/**
	 * The ready list of a topic in a bucket.
	 * @param bucket the bucket
	 * @param topic the topic
	 * @return the key
	 */
	byte[] readyList(int bucket, String topic) {
		return bytes(prefix(bucket) + "ready:" + topic);
	}

	/**
	 * The key every job script of a bucket declares as {@code KEYS[2]} and never writes: a
	 * Redis Cluster node refuses a script whose declared keys it does not all hold while their
	 * slot is being migrated, so no script of the bucket runs part-way across a migration.
	 * @param bucket the bucket
	 * @return the key
	 */
	byte[] guard(int bucket) {
		return this.guardKeys[bucket];
	}

	/**
	 * The finished jobs a topic keeps ({@code completed.lua}): a hash of job key to record, in
	 * a slot of the topic's own ({@code {<namespace>/done/<topic>}}), apart from the buckets. A
	 * namespace has no {@code /}, so no other namespace's keys start like these (an ACL pattern
	 * {@code ~{<namespace>/done/*} names them alone).
	 * @param topic the topic
	 * @return the key
	 */
	byte[] completed(String topic) {
		return bytes("{" + this.namespace + "/done/" + topic + "}:completed");
	}

	/**
	 * The order of the finished jobs a topic keeps: job keys scored by their finish time.
	 * @param topic the topic
	 * @return the key
	 */
	byte[] completedOrder(String topic) {
		return bytes("{" + this.namespace + "/done/" + topic + "}:finished");
	}

	/**
	 * The deaths of a topic that limits its DEAD jobs ({@code failed.lua}): job keys scored by
	 * their time of death, in the topic's own slot as {@link #completed}. The DEAD jobs
	 * themselves stay in their buckets.
	 * @param topic the topic
	 * @return the key
	 */
	byte[] deaths(String topic) {
		return bytes("{" + this.namespace + "/done/" + topic + "}:deaths");
	}

	/**
	 * The permits granted under a topic's rate limit ({@code rate.lua}): a zset of one member
	 * per permit, scored by its grant time, in a slot of the topic's own
	 * ({@code {<namespace>/rate/<topic>}}).
	 * @param topic the topic
	 * @return the key
	 */
	byte[] rateGrants(String topic) {
		return bytes("{" + this.namespace + "/rate/" + topic + "}:granted");
	}

	/**
	 * The counter that names the permits of a topic's rate limit.
	 * @param topic the topic
	 * @return the key
	 */
	byte[] rateCounter(String topic) {
		return bytes("{" + this.namespace + "/rate/" + topic + "}:seq");
	}

	/**
	 * The namespace's settings that every instance must share (the bucket count), written at
	 * the first start.
	 * @return the key
	 */
	byte[] config() {
		return config(this.namespace);
	}

	/**
	 * The key of {@link #config()} in a namespace.
	 * @param namespace the namespace (checked)
	 * @return the key
	 */
	static byte[] config(String namespace) {
		return bytes("{" + namespace + "}:config");
	}

	byte[] instances() {
		return bytes("{" + this.namespace + "}:instances");
	}

	byte[] timers() {
		return bytes("{" + this.namespace + "}:timers");
	}

	/**
	 * The pub/sub channel on which scripts announce ready work and new bucket heads.
	 * @return the channel name
	 */
	String channel() {
		return this.namespace + ":events";
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
