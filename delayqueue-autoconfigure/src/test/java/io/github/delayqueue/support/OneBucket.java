package io.github.delayqueue.support;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.redis.RedisDelayQueue;

/**
 * Job ids that share one bucket: priorities order the jobs of a bucket, not of a topic.
 */
public final class OneBucket {

	private OneBucket() {
	}

	/**
	 * The first ids {@code p0}, {@code p1}, ... whose jobs of a topic are in the bucket of
	 * {@code p0}.
	 * @param queue the queue whose bucket count decides
	 * @param topic the topic
	 * @param count how many ids
	 * @return the ids, {@code p0} first
	 */
	public static List<String> ids(RedisDelayQueue queue, String topic, int count) {
		List<String> ids = new ArrayList<>();
		int bucket = queue.bucketOf(topic, "p0");
		for (int i = 0; ids.size() < count; i++) {
			if (queue.bucketOf(topic, "p" + i) == bucket) {
				ids.add("p" + i);
			}
		}
		return ids;
	}

}
