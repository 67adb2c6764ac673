package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.BackOffExecution;

/**
 * This instance's one pub/sub subscription: passes the events of the namespace's channel to
 * {@link ReadySignals} and {@link BucketTimer}, every (re)subscription re-checking everything,
 * and carries the channels of other listeners ({@link #listen}).
 */
final class EventSubscriber implements MessageListener, SubscriptionListener {

	private static final Log logger = LogFactory.getLog(EventSubscriber.class);

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	private final ReadySignals signals;

	private final BucketTimer timer;

	private final Object monitor = new Object();

	private @Nullable Thread retrying;

	EventSubscriber(RedisConnectionFactory connectionFactory, String channel, ReadySignals signals, BucketTimer timer) {
		this.signals = signals;
		this.timer = timer;
		this.container.setConnectionFactory(connectionFactory);
		this.container.setBeanName("delayqueue-events");
		this.container.setRecoveryBackoff(BucketTimer.retryBackOff());
		// listeners only signal or hand over to a thread of their own: no thread per message
		this.container.setTaskExecutor(new SyncTaskExecutor());
		// only a blocking driver (Jedis) holds a thread for the subscription itself
		this.container.setSubscriptionExecutor(new SimpleAsyncTaskExecutor("delayqueue-events-"));
		this.container.addMessageListener(this, new ChannelTopic(channel));
		this.container.afterPropertiesSet();
	}

	/** Subscribes; with {@code retry}, a failure is retried in the background until {@link #stop()}. */
	void start(boolean retry) {
		try {
			this.container.start();
		}
		catch (RuntimeException ex) {
			if (!retry) {
				throw ex;
			}
			logger.warn("Could not subscribe to the delayqueue events; trying again in the background: "
					+ NestedExceptionUtils.getMostSpecificCause(ex).getMessage());
			Thread retrying = new Thread(this::subscribeUntilStopped, "delayqueue-events-subscribe");
			retrying.setDaemon(true);
			synchronized (this.monitor) {
				this.retrying = retrying;
			}
			retrying.start();
		}
	}

	// the container retries a lost subscription itself, but not a first one that failed
	private void subscribeUntilStopped() {
		BackOffExecution backOff = BucketTimer.retryBackOff().start();
		try {
			while (true) {
				Thread.sleep(backOff.nextBackOff());
				synchronized (this.monitor) {
					if (Thread.interrupted()) {
						return;
					}
					try {
						// not when subscribed meanwhile (by the container's own recovery, or by a listener
						// added since, such as the outcome stream's): a restart would drop both channels
						if (!this.container.isListening()) {
							this.container.stop();
							this.container.start();
						}
						logger.info("Subscribed to the delayqueue events");
						return;
					}
					catch (RuntimeException ex) {
						logger.debug("Could not subscribe to the delayqueue events yet: "
								+ NestedExceptionUtils.getMostSpecificCause(ex).getMessage());
					}
				}
			}
		}
		catch (InterruptedException ex) {
			// stopped
		}
	}

	void stop() {
		synchronized (this.monitor) {
			if (this.retrying != null) {
				this.retrying.interrupt();
				this.retrying = null;
			}
			this.container.stop();
		}
	}

	boolean isListening() {
		return this.container.isListening();
	}

	/** Adds the listener of another channel; returns once Redis confirmed it when subscribed. */
	void listen(MessageListener listener, String channel) {
		this.container.addMessageListener(listener, new ChannelTopic(channel));
	}

	void unlisten(MessageListener listener) {
		this.container.removeMessageListener(listener);
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		String event = new String(message.getBody(), StandardCharsets.UTF_8);
		try {
			String[] parts = event.split(" ", 3);
			switch (parts[0]) {
				case "r" -> this.signals.markReady(parts[2], Integer.parseInt(parts[1]));
				case "h" -> this.timer.onHead(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
				case "l" -> this.timer.coordinateSoon();
				case "c" -> this.timer.onRecurringTick(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
				default -> logger.debug("Ignoring unknown event '" + event + "'");
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Ignoring malformed event '" + event + "'", ex);
		}
	}

	@Override
	public void onChannelSubscribed(byte[] channel, long count) {
		logger.debug("Subscribed to " + new String(channel, StandardCharsets.UTF_8) + ": re-checking every bucket");
		// what was published meanwhile is lost
		this.signals.markAll();
		this.timer.recheckAll();
		this.timer.coordinateSoon();
	}

}
