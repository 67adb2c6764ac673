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
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Passes the events of the namespace's channel to {@link Wakeups}; every (re)subscription
 * re-checks everything.
 */
final class EventSubscriber implements MessageListener, SubscriptionListener {

	private static final Log logger = LogFactory.getLog(EventSubscriber.class);

	private static final ExponentialBackOff RETRY = retryBackOff();

	private final RedisMessageListenerContainer container;

	private final Wakeups wakeups;

	private final Object monitor = new Object();

	private boolean stopped;

	EventSubscriber(RedisConnectionFactory connectionFactory, String channel, Wakeups wakeups) {
		this.wakeups = wakeups;
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		this.container.setBeanName("delayqueue-events");
		this.container.setRecoveryBackoff(retryBackOff());
		// an event only signals a waiting thread: no thread per message
		this.container.setTaskExecutor(new SyncTaskExecutor());
		// only a blocking driver (Jedis) holds a thread for the subscription itself
		this.container.setSubscriptionExecutor(new SimpleAsyncTaskExecutor("delayqueue-events-"));
		this.container.addMessageListener(this, new ChannelTopic(channel));
		this.container.afterPropertiesSet();
	}

	/** Subscribes; with {@code retry}, a failure is retried in the background until {@link #stop()}. */
	void start(boolean retry) {
		synchronized (this.monitor) {
			this.stopped = false;
		}
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
			retrying.start();
		}
	}

	private void subscribeUntilStopped() {
		BackOffExecution backOff = RETRY.start();
		while (true) {
			synchronized (this.monitor) {
				try {
					this.monitor.wait(backOff.nextBackOff());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				if (this.stopped) {
					return;
				}
			}
			try {
				this.container.stop();
				this.container.start();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not subscribe to the delayqueue events yet: "
						+ NestedExceptionUtils.getMostSpecificCause(ex).getMessage());
				continue;
			}
			synchronized (this.monitor) {
				if (this.stopped) {
					// stopped while subscribing
					this.container.stop();
					return;
				}
			}
			logger.info("Subscribed to the delayqueue events");
			return;
		}
	}

	void stop() {
		synchronized (this.monitor) {
			this.stopped = true;
			this.monitor.notifyAll();
		}
		this.container.stop();
	}

	boolean isListening() {
		return this.container.isListening();
	}

	private static ExponentialBackOff retryBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(100, 2);
		backOff.setMaxInterval(5_000);
		return backOff;
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		String event = new String(message.getBody(), StandardCharsets.UTF_8);
		try {
			String[] parts = event.split(" ", 3);
			switch (parts[0]) {
				case "r" -> this.wakeups.ready(parts[2], Integer.parseInt(parts[1]));
				case "h" -> this.wakeups.head(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
				case "l" -> this.wakeups.instancesChanged();
				case "c" -> this.wakeups.recurringTick(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
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
		this.wakeups.resubscribed();
	}

}
