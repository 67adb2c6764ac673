package io.github.delayqueue.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.annotation.DelayedListener;

/**
 * Counts the deliveries of each job id (the payload is the id) on the topic named by the
 * {@code delivery-counter.topic} property, with 4 handlers: for the fault and scale tests,
 * which check that every acknowledged job arrived and count the ones that came twice.
 */
public class DeliveryCounter {

	/** Job id → deliveries. */
	public final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();

	@DelayedListener(topic = "${delivery-counter.topic}", concurrency = "4")
	void handle(String id) {
		this.received.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
	}

}
