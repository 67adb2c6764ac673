package io.github.delayqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells several observers; one that throws does not stop the others or the caller.
 */
final class CompositeDelayQueueObserver implements DelayQueueObserver {

	private static final Log logger = LogFactory.getLog(CompositeDelayQueueObserver.class);

	private final DelayQueueObserver[] observers;

	CompositeDelayQueueObserver(List<DelayQueueObserver> observers) {
		this.observers = observers.toArray(DelayQueueObserver[]::new);
	}

	private void each(Consumer<DelayQueueObserver> call) {
		for (DelayQueueObserver observer : this.observers) {
			try {
				call.accept(observer);
			}
			catch (RuntimeException ex) {
				logger.warn("DelayQueueObserver " + observer + " failed (ignored)", ex);
			}
		}
	}

	@Override
	public void scheduled(String topic) {
		each((observer) -> observer.scheduled(topic));
	}

	@Override
	public void dataLost(String namespace) {
		each((observer) -> observer.dataLost(namespace));
	}

	@Override
	public void recurringFired(String name, String topic, long created, long skipped, long misfired) {
		each((observer) -> observer.recurringFired(name, topic, created, skipped, misfired));
	}

	@Override
	public void delivered(ReservedJob job) {
		each((observer) -> observer.delivered(job));
	}

	@Override
	public void completed(String topic) {
		each((observer) -> observer.completed(topic));
	}

	@Override
	public void retried(String topic) {
		each((observer) -> observer.retried(topic));
	}

	@Override
	public void dead(String topic) {
		each((observer) -> observer.dead(topic));
	}

	@Override
	public void expired(String topic) {
		each((observer) -> observer.expired(topic));
	}

	@Override
	public void cancelled(String topic) {
		each((observer) -> observer.cancelled(topic));
	}

	@Override
	public void deadTrimmed(String topic, long count) {
		each((observer) -> observer.deadTrimmed(topic, count));
	}

	@Override
	public void rateLimited(String topic) {
		each((observer) -> observer.rateLimited(topic));
	}

	@Override
	public void handled(String topic, Duration duration, String outcome, @Nullable Throwable failure) {
		each((observer) -> observer.handled(topic, duration, outcome, failure));
	}

}
