package io.github.delayqueue.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.http.ReserveWaiters.WaitRefusedException;
import org.jspecify.annotations.Nullable;

/**
 * The limits of {@link ReserveWaiters}: at most {@code maxWaiting} requests wait at once,
 * a client with at most half of them (at least one), on at most {@code maxTopics} topics.
 * Thread safe.
 */
final class WaitingCounts {

	private final int maxWaiting;

	private final int maxTopics;

	private final AtomicInteger waiting = new AtomicInteger();

	/** The waiting requests of each client, and of each topic, that has any. */
	private final Map<String, Integer> waitingByClient = new ConcurrentHashMap<>();

	private final Map<String, Integer> waitingByTopic = new ConcurrentHashMap<>();

	private final AtomicInteger topicCount = new AtomicInteger();

	WaitingCounts(int maxWaiting, int maxTopics) {
		this.maxWaiting = maxWaiting;
		this.maxTopics = maxTopics;
	}

	/**
	 * Counts a request that waits, or refuses it and counts nothing.
	 * @throws WaitRefusedException when a limit is reached: in all, of this client, or of topics
	 */
	void add(String topic, @Nullable String client) {
		countClient(client);
		if (this.waiting.incrementAndGet() > this.maxWaiting) {
			this.waiting.decrementAndGet();
			uncountClient(client);
			throw new WaitRefusedException(WaitRefusedException.Reason.TOO_MANY_WAITING, this.maxWaiting
					+ " reserve requests wait already, the most allowed (delayqueue.http.max-waiting=" + this.maxWaiting
					+ "); retry later");
		}
		try {
			countTopic(topic);
		}
		catch (WaitRefusedException ex) {
			this.waiting.decrementAndGet();
			uncountClient(client);
			throw ex;
		}
	}

	/** Uncounts a request that {@link #add} counted. */
	void remove(String topic, @Nullable String client) {
		this.waiting.decrementAndGet();
		uncountClient(client);
		this.waitingByTopic.computeIfPresent(topic, (key, count) -> {
			if (count > 1) {
				return count - 1;
			}
			this.topicCount.decrementAndGet();
			return null;
		});
	}

	int waiting() {
		return this.waiting.get();
	}

	int topics() {
		return this.topicCount.get();
	}

	private void countClient(@Nullable String client) {
		if (client == null) {
			return;
		}
		int share = Math.max(1, this.maxWaiting / 2);
		this.waitingByClient.compute(client, (key, count) -> {
			int waiting = (count != null) ? count : 0;
			if (waiting >= share) {
				throw new WaitRefusedException(WaitRefusedException.Reason.TOO_MANY_OF_CLIENT, "this client waits with "
						+ waiting + " reserve requests already, its share: half of delayqueue.http.max-waiting="
						+ this.maxWaiting + "; retry later");
			}
			return waiting + 1;
		});
	}

	private void countTopic(String topic) {
		this.waitingByTopic.compute(topic, (key, count) -> {
			if (count != null) {
				return count + 1;
			}
			if (this.topicCount.incrementAndGet() > this.maxTopics) {
				int topics = this.topicCount.decrementAndGet();
				throw new WaitRefusedException(WaitRefusedException.Reason.TOO_MANY_TOPICS, "reserve requests wait on "
						+ topics + " topics already, the most one instance serves at once (delayqueue.http.max-topics="
						+ this.maxTopics + "); retry later, or reserve without waiting");
			}
			return 1;
		});
	}

	private void uncountClient(@Nullable String client) {
		if (client != null) {
			this.waitingByClient.computeIfPresent(client, (key, count) -> (count > 1) ? count - 1 : null);
		}
	}

}
