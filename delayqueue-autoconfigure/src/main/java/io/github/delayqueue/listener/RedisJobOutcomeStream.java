package io.github.delayqueue.listener;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationListener;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * The {@link JobOutcomeStream} on Redis pub/sub. Publishing: it hears the
 * {@link DelayedJobOutcomeEvent}s of this instance's listeners (when publishing is on) and
 * hands them to one publisher thread, which sends what has gathered in one pipeline: a
 * handler thread never waits for Redis on its account. When Redis cannot take them, or more
 * than {@value #BUFFER} wait, outcomes are dropped and counted (pub/sub is at most once
 * anyway). Subscribing: one subscription per instance, made at the first
 * {@link #subscribe}, shared by every consumer; consumers are called on one thread, in the
 * order outcomes arrive. Messages are JSON objects with the {@link JobOutcome} fields
 * ({@code at} in epoch milliseconds), so that any language can subscribe.
 */
public class RedisJobOutcomeStream implements JobOutcomeStream, ApplicationListener<DelayedJobOutcomeEvent>,
		DisposableBean {

	private static final Log logger = LogFactory.getLog(RedisJobOutcomeStream.class);

	/** Outcomes waiting to be published at most; more are dropped. */
	static final int BUFFER = 10_000;

	/** Outcomes sent in one pipeline at most. */
	private static final int BATCH = 256;

	private static final long SUBSCRIBE_TIMEOUT_SECONDS = 10;

	private static final long DROP_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final RedisConnectionFactory connectionFactory;

	private final String channel;

	private final String instanceId;

	private final boolean publishing;

	private final JsonMapper mapper = JsonMapper.builder()
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.build();

	private final BlockingQueue<JobOutcome> outbox = new ArrayBlockingQueue<>(BUFFER);

	private final AtomicLong dropped = new AtomicLong();

	private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();

	private final Object monitor = new Object();

	private volatile Thread publisher;

	private RedisMessageListenerContainer subscription;

	private ExecutorService delivery;

	private boolean destroyed;

	private long lastDropLogNanos;

	private long droppedAtLastLog;

	/**
	 * Creates the stream of a namespace.
	 * @param connectionFactory the Redis connections
	 * @param namespace the namespace; the channel is {@code <namespace>:outcomes}
	 * @param instanceId this instance's id, sent with its outcomes
	 * @param publishing whether this instance's listener outcomes are published
	 */
	public RedisJobOutcomeStream(RedisConnectionFactory connectionFactory, String namespace, String instanceId,
			boolean publishing) {
		Assert.notNull(connectionFactory, "connectionFactory must not be null");
		this.connectionFactory = connectionFactory;
		this.channel = JobConstraints.namespace(namespace) + ":outcomes";
		this.instanceId = instanceId;
		this.publishing = publishing;
	}

	/**
	 * The pub/sub channel.
	 * @return {@code <namespace>:outcomes}
	 */
	public String getChannel() {
		return this.channel;
	}

	/**
	 * How many outcomes were not published: the buffer was full or Redis failed.
	 * @return the count since start
	 */
	public long getDropped() {
		return this.dropped.get();
	}

	// ------------------------------------------------------------------ publishing

	@Override
	public void onApplicationEvent(DelayedJobOutcomeEvent event) {
		if (!this.publishing) {
			return;
		}
		ReservedJob job = event.getJob();
		Throwable failure = event.getFailure();
		JobOutcome outcome = new JobOutcome(job.topic(), job.id(), event.getOutcome(), job.attempt(),
				job.maxAttempts(), event.getListenerId(), this.instanceId,
				(failure != null) ? JobConstraints.errorText(failure.toString()) : null, Instant.now());
		if (!startPublisher() || !this.outbox.offer(outcome)) {
			drop(1, null);
		}
	}

	/**
	 * Starts the publisher thread once.
	 * @return {@code false} once the stream is destroyed
	 */
	private boolean startPublisher() {
		if (this.publisher != null) {
			return true;
		}
		synchronized (this.monitor) {
			if (this.destroyed) {
				return false;
			}
			if (this.publisher == null) {
				Thread thread = new Thread(this::publishUntilDestroyed, "delayqueue-outcomes-publisher");
				thread.setDaemon(true);
				thread.start();
				this.publisher = thread;
			}
			return true;
		}
	}

	private void publishUntilDestroyed() {
		List<JobOutcome> batch = new ArrayList<>(BATCH);
		while (true) {
			try {
				JobOutcome first = this.outbox.poll(1, TimeUnit.SECONDS);
				if (first == null) {
					synchronized (this.monitor) {
						if (this.destroyed && this.outbox.isEmpty()) {
							return;
						}
					}
					continue;
				}
				batch.add(first);
				this.outbox.drainTo(batch, BATCH - 1);
				publish(batch);
			}
			catch (InterruptedException ex) {
				// destroy: publish what is left, then end
				this.outbox.drainTo(batch);
				publish(batch);
				return;
			}
			catch (Throwable ex) {
				// an Error from the client must not end the thread: the outcomes of the batch are lost
				drop(batch.size(), ex);
			}
			finally {
				batch.clear();
			}
		}
	}

	private void publish(List<JobOutcome> batch) {
		if (batch.isEmpty()) {
			return;
		}
		byte[] channel = this.channel.getBytes(StandardCharsets.UTF_8);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			// a cluster connection has no pipeline: PUBLISH is sent to one node, which tells the others
			boolean pipelined = !(connection instanceof RedisClusterConnection) && batch.size() > 1;
			if (pipelined) {
				connection.openPipeline();
			}
			try {
				for (JobOutcome outcome : batch) {
					connection.publish(channel, encode(outcome));
				}
			}
			finally {
				if (pipelined) {
					connection.closePipeline();
				}
			}
		}
		catch (RuntimeException ex) {
			drop(batch.size(), ex);
		}
	}

	private void drop(int count, Throwable cause) {
		long total = this.dropped.addAndGet(count);
		long now = System.nanoTime();
		synchronized (this.monitor) {
			if (this.lastDropLogNanos != 0 && now - this.lastDropLogNanos < DROP_LOG_INTERVAL_NANOS) {
				return;
			}
			this.lastDropLogNanos = now;
			long since = total - this.droppedAtLastLog;
			this.droppedAtLastLog = total;
			logger.warn("Dropped " + since + " job outcome(s) of the stream on channel '" + this.channel + "' ("
					+ total + " in all): " + ((cause != null) ? cause : "more than " + BUFFER + " waited to be published"));
		}
	}

	byte[] encode(JobOutcome outcome) {
		return this.mapper.writeValueAsBytes(new Wire(outcome.topic(), outcome.id(), outcome.outcome(),
				outcome.attempt(), outcome.maxAttempts(), outcome.listenerId(), outcome.instanceId(), outcome.error(),
				outcome.at().toEpochMilli()));
	}

	JobOutcome decode(byte[] body) {
		Wire wire = this.mapper.readValue(body, Wire.class);
		if (wire.topic() == null || wire.id() == null || wire.outcome() == null) {
			throw new IllegalArgumentException("topic, id and outcome are required");
		}
		return new JobOutcome(wire.topic(), wire.id(), wire.outcome(), wire.attempt(), wire.maxAttempts(),
				wire.listener(), wire.instance(), wire.error(), Instant.ofEpochMilli(wire.at()));
	}

	/** A message on the channel. */
	record Wire(String topic, String id, String outcome, int attempt, int maxAttempts, String listener,
			String instance, String error, long at) {
	}

	// ------------------------------------------------------------------ subscribing

	@Override
	public Subscription subscribe(String topic, Consumer<JobOutcome> consumer) {
		Assert.notNull(consumer, "consumer must not be null");
		if (topic != null) {
			JobConstraints.topic(topic);
		}
		Subscriber subscriber = new Subscriber(topic, consumer);
		ensureSubscribed();
		this.subscribers.add(subscriber);
		return () -> this.subscribers.remove(subscriber);
	}

	@Override
	public CompletableFuture<JobOutcome> whenDone(String topic, String id) {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		CompletableFuture<JobOutcome> done = new CompletableFuture<>();
		Subscription subscription = subscribe(topic, (outcome) -> {
			if (outcome.id().equals(id) && outcome.isFinal()) {
				done.complete(outcome);
			}
		});
		done.whenComplete((outcome, failure) -> subscription.close());
		return done;
	}

	/**
	 * Subscribes to the channel once; returns when the subscription is active.
	 */
	private void ensureSubscribed() {
		synchronized (this.monitor) {
			Assert.state(!this.destroyed, "The job outcome stream is closed (the application context closed)");
			if (this.subscription != null) {
				return;
			}
			ExecutorService delivery = Executors
				.newSingleThreadExecutor(new CustomizableThreadFactory("delayqueue-outcomes-"));
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(this.connectionFactory);
			container.setBeanName("delayqueue-outcomes");
			container.setTaskExecutor(delivery::execute);
			Dispatcher dispatcher = new Dispatcher();
			container.addMessageListener(dispatcher, new ChannelTopic(this.channel));
			try {
				container.afterPropertiesSet();
				container.start();
				// an outcome published after subscribe returns must be heard
				dispatcher.subscribed.get(SUBSCRIBE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				destroyQuietly(container);
				delivery.shutdownNow();
				throw new DelayQueueConnectionException("Interrupted while subscribing to the job outcomes", ex);
			}
			catch (RuntimeException | ExecutionException | TimeoutException ex) {
				destroyQuietly(container);
				delivery.shutdownNow();
				throw new DelayQueueConnectionException(
						"Could not subscribe to the job outcomes on channel '" + this.channel + "'", ex);
			}
			this.delivery = delivery;
			this.subscription = container;
		}
	}

	private final class Dispatcher implements MessageListener, SubscriptionListener {

		final CompletableFuture<Void> subscribed = new CompletableFuture<>();

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.subscribed.complete(null);
		}

		@Override
		public void onMessage(Message message, byte[] pattern) {
			JobOutcome outcome;
			try {
				outcome = decode(message.getBody());
			}
			catch (RuntimeException ex) {
				logger.warn("Ignored a message on channel '" + RedisJobOutcomeStream.this.channel
						+ "' that is no job outcome: " + ex.getMessage());
				return;
			}
			for (Subscriber subscriber : RedisJobOutcomeStream.this.subscribers) {
				subscriber.accept(outcome);
			}
		}

	}

	private record Subscriber(String topic, Consumer<JobOutcome> consumer) {

		void accept(JobOutcome outcome) {
			if (this.topic != null && !Objects.equals(this.topic, outcome.topic())) {
				return;
			}
			try {
				this.consumer.accept(outcome);
			}
			catch (Throwable ex) {
				logger.warn("A consumer of the job outcomes threw for job " + outcome.id() + " of topic "
						+ outcome.topic() + "; it goes on hearing outcomes", ex);
			}
		}

	}

	// ------------------------------------------------------------------ lifecycle

	/**
	 * Publishes the outcomes still waiting (for up to 5 s) and ends the subscription.
	 */
	@Override
	public void destroy() {
		Thread publisher;
		RedisMessageListenerContainer subscription;
		ExecutorService delivery;
		synchronized (this.monitor) {
			this.destroyed = true;
			publisher = this.publisher;
			subscription = this.subscription;
			delivery = this.delivery;
			this.subscription = null;
		}
		if (publisher != null) {
			try {
				publisher.join(5_000);
				if (publisher.isAlive()) {
					publisher.interrupt();
					publisher.join(1_000);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (subscription != null) {
			destroyQuietly(subscription);
		}
		if (delivery != null) {
			delivery.shutdown();
		}
		this.subscribers.clear();
	}

	private static void destroyQuietly(RedisMessageListenerContainer container) {
		try {
			container.destroy();
		}
		catch (Exception ex) {
			logger.debug("Could not end the job outcome subscription cleanly", ex);
		}
	}

}
