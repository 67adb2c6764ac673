package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Names of the Redis keys and channel of one namespace. Every key of bucket {@code b} starts
 * with the hash tag {@code {<namespace>:<b>}}; a job belongs to bucket
 * {@code crc32(topic + ":" + id) mod buckets} (UTF-8 bytes, IEEE CRC-32). The builder checks
 * the namespace and the count.
 */
record KeySpace(String namespace, int buckets) {

	/** The most buckets a namespace may have: a Redis Cluster's hash slots. */
	static final int MAX_BUCKETS = 16_384;

	int bucketOf(String topic, String id) {
		return bucketOfName(jobKey(topic, id));
	}

	/** The bucket of a recurring job's definition: {@code crc32(name) mod buckets}. */
	int bucketOfName(String name) {
		CRC32 crc = new CRC32();
		crc.update(name.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % this.buckets);
	}

	static String jobKey(String topic, String id) {
		return topic + ":" + id;
	}

	String prefix(int bucket) {
		return "{" + this.namespace + ":" + bucket + "}:";
	}

	/** The jobs hash of a bucket: {@code KEYS[1]} of every job script. */
	byte[] jobs(int bucket) {
		return bytes(prefix(bucket) + "jobs");
	}

	byte[] readyList(int bucket, String topic) {
		return bytes(prefix(bucket) + "ready:" + topic);
	}

	/** The guard of a bucket: {@code KEYS[2]} of every job script, never written (see docs/how-it-works.md). */
	byte[] guard(int bucket) {
		return bytes(prefix(bucket) + "guard");
	}

	/** The finished jobs a topic keeps, in the topic's own slot {@code {<namespace>/done/<topic>}}. */
	byte[] completed(String topic) {
		return bytes("{" + this.namespace + "/done/" + topic + "}:completed");
	}

	/** The order of the finished jobs a topic keeps: job keys scored by finish time. */
	byte[] completedOrder(String topic) {
		return bytes("{" + this.namespace + "/done/" + topic + "}:finished");
	}

	/** The deaths of a topic that limits its DEAD jobs: job keys scored by time of death. */
	byte[] deaths(String topic) {
		return bytes("{" + this.namespace + "/done/" + topic + "}:deaths");
	}

	/** The permits granted under a topic's rate limit, in the slot {@code {<namespace>/rate/<topic>}}. */
	byte[] rateGrants(String topic) {
		return bytes("{" + this.namespace + "/rate/" + topic + "}:granted");
	}

	/** The counter that numbers the permits of a topic's rate limit. */
	byte[] rateCounter(String topic) {
		return bytes("{" + this.namespace + "/rate/" + topic + "}:seq");
	}

	/** The namespace's settings every instance must share (the bucket count). */
	byte[] config() {
		return bytes("{" + this.namespace + "}:config");
	}

	byte[] instances() {
		return bytes("{" + this.namespace + "}:instances");
	}

	byte[] timers() {
		return bytes("{" + this.namespace + "}:timers");
	}

	/** The instances by their numbers, which reservations' tokens carry ({@code lib/token.lua}). */
	byte[] numbers() {
		return bytes("{" + this.namespace + "}:numbers");
	}

	/** The pub/sub channel on which scripts announce ready work and new bucket heads. */
	String channel() {
		return this.namespace + ":events";
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
