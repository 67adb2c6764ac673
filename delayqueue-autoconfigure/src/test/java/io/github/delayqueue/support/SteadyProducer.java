package io.github.delayqueue.support;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayedJobTemplate;

/**
 * A producer that schedules a job every few milliseconds on a thread of its own while a fault
 * test breaks things, and remembers which schedules were acknowledged (returned) and how many
 * were refused (threw). A job's id is also its payload.
 */
public final class SteadyProducer implements AutoCloseable {

	private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();

	private final AtomicInteger refused = new AtomicInteger();

	private final Thread thread;

	private volatile boolean producing = true;

	/**
	 * Starts producing.
	 * @param template the producer API
	 * @param topic the topic
	 * @param maxDelay delays are uniform between zero and this
	 */
	public SteadyProducer(DelayedJobTemplate template, String topic, Duration maxDelay) {
		this.thread = new Thread(() -> {
			int n = 0;
			while (this.producing) {
				String id = "job-" + n++;
				try {
					template.schedule(topic, id, id,
							Duration.ofMillis(ThreadLocalRandom.current().nextLong(maxDelay.toMillis())));
					this.acknowledged.add(id);
				}
				catch (DelayQueueException ex) {
					this.refused.incrementAndGet();
				}
				pause(Duration.ofMillis(5));
			}
		}, "steady-producer");
		this.thread.start();
	}

	/**
	 * The ids of the jobs whose schedule returned.
	 * @return the ids, a live view
	 */
	public Set<String> acknowledged() {
		return this.acknowledged;
	}

	/**
	 * How many schedules threw.
	 * @return the count
	 */
	public int refused() {
		return this.refused.get();
	}

	/**
	 * Stops producing and waits for the thread.
	 */
	@Override
	public void close() throws InterruptedException {
		this.producing = false;
		this.thread.join();
	}

	/**
	 * How many of the delivered ids came more than once.
	 * @param deliveries id → deliveries
	 * @return the count
	 */
	public static long duplicates(Map<String, AtomicInteger> deliveries) {
		return deliveries.values().stream().filter((count) -> count.get() > 1).count();
	}

	/**
	 * Lets time pass while a fault plays out (not to wait for an outcome: tests await those).
	 * @param duration how long
	 */
	public static void pause(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
