package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.ReservedJob;

/**
 * Test consumer threads that reserve, record and finish every job of a topic.
 */
final class Consumer implements AutoCloseable {

	private final List<Thread> threads = new CopyOnWriteArrayList<>();

	private volatile boolean running = true;

	final Queue<ReservedJob> delivered = new ConcurrentLinkedQueue<>();

	final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

	final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();

	Consumer(DelayQueueOperations queue, String topic, int threads, int batch) {
		for (int i = 0; i < threads; i++) {
			Thread thread = new Thread(() -> run(queue, topic, batch), "test-consumer-" + topic + "-" + i);
			thread.setDaemon(true);
			this.threads.add(thread);
			thread.start();
		}
	}

	private void run(DelayQueueOperations queue, String topic, int batch) {
		while (this.running) {
			try {
				if (!queue.awaitWork(topic, Duration.ofMillis(200))) {
					continue;
				}
				for (ReservedJob job : queue.reserve(topic, batch, null)) {
					this.delivered.add(job);
					this.deliveries.computeIfAbsent(job.id(), (id) -> new AtomicInteger()).incrementAndGet();
					queue.finish(job);
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (Throwable ex) {
				if (this.running) {
					this.errors.add(ex);
				}
			}
		}
	}

	int distinct() {
		return this.deliveries.size();
	}

	@Override
	public void close() throws InterruptedException {
		this.running = false;
		for (Thread thread : this.threads) {
			thread.interrupt();
			thread.join(5000);
		}
	}

}
