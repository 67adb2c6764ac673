package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;


import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.listener.DelayedJobOutcomeEvent;
import io.github.delayqueue.listener.JobOutcome;
import io.github.delayqueue.listener.JobOutcomeStream;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * The {@link JobOutcomeStream} on Redis pub/sub, channel {@code <namespace>:outcomes}: JSON
 * messages with the {@link JobOutcome} fields ({@code at} in epoch milliseconds). When
 * publishing, this instance's {@link DelayedJobOutcomeEvent}s are sent; one subscription per
 * instance feeds every consumer on one thread. Outcomes beyond {@value #BUFFER} waiting, or met
 * by a Redis failure or a stopped stream, are dropped and counted ({@link #getDropped()}).
 * Stops right after the listener containers.
 */
public class RedisJobOutcomeStream
		implements JobOutcomeStream, ApplicationListener<DelayedJobOutcomeEvent>, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RedisJobOutcomeStream.class);

	/** Outcomes waiting to be published, or to reach consumers, at most. */
	static final int BUFFER = 10_000;

	/** Just below the listener containers' phase. */
	static final int PHASE = Integer.MAX_VALUE - 101;

	private static final long SUBSCRIBE_TIMEOUT_SECONDS = 10;

	private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final RedisConnectionFactory connectionFactory;

	private final String channel;

	private final String instanceId;

	private final @Nullable OutcomePublisher publisher;

	private final JsonMapper mapper = JsonMapper.builder()
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.build();

	private final AtomicLong dropped = new AtomicLong();

	private final AtomicLong droppedLogged = new AtomicLong();

	private final AtomicLong lastDropLogNanos = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

	private final AtomicLong lastBadMessageLogNanos = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

	private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();

	// whenDone futures by "<topic>\n<id>"
	private final Map<String, Set<CompletableFuture<JobOutcome>>> waiters = new ConcurrentHashMap<>();

	// guards the subscription; start and stop synchronize on this (a stop waits without this lock)
	private final Object subscribeLock = new Object();

	private volatile boolean running;

	private @Nullable RedisMessageListenerContainer subscription;

	private @Nullable ThreadPoolExecutor delivery;

	/**
	 * Create the stream of a namespace.
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
		this.publisher = publishing ? new OutcomePublisher(connectionFactory, this.channel, this::encode,
				(reason, count) -> drop(count, reason)) : null;
	}

	/**
	 * Return the pub/sub channel.
	 * @return {@code <namespace>:outcomes}
	 */
	public String getChannel() {
		return this.channel;
	}

	/**
	 * Return whether this instance's listener outcomes are published.
	 * @return the {@code publishing} given at creation
	 */
	public boolean isPublishing() {
		return this.publisher != null;
	}

	/**
	 * Return how many outcomes were not published or not delivered to this instance's consumers.
	 * @return the count since start
	 */
	public long getDropped() {
		return this.dropped.get();
	}

	@Override
	public void onApplicationEvent(DelayedJobOutcomeEvent event) {
		OutcomePublisher publisher = this.publisher;
		if (publisher == null) {
			return;
		}
		if (!this.running) {
			drop(1, "the stream has stopped");
			return;
		}
		ReservedJob job = event.getJob();
		Throwable failure = event.getFailure();
		JobOutcome outcome = new JobOutcome(job.topic(), job.id(), event.getOutcome(), job.attempt(),
				job.maxAttempts(), event.getListenerId(), this.instanceId,
				(failure != null) ? JobConstraints.errorText(failure.toString()) : null, Instant.now());
		publisher.offer(outcome);
	}

	private void drop(int count, String reason) {
		long total = this.dropped.addAndGet(count);
		if (logNow(this.lastDropLogNanos)) {
			long since = total - this.droppedLogged.getAndSet(total);
			logger.warn("Dropped " + since + " job outcome(s) of the stream on channel '" + this.channel + "' ("
					+ total + " in all); the last because " + reason);
		}
	}

	/** Whether a message logged at most once a minute may be logged now. */
	private static boolean logNow(AtomicLong lastNanos) {
		long now = System.nanoTime();
		long last = lastNanos.get();
		return now - last >= LOG_INTERVAL_NANOS && lastNanos.compareAndSet(last, now);
	}

	byte[] encode(JobOutcome outcome) {
		return this.mapper.writeValueAsBytes(new Wire(outcome.topic(), outcome.id(), outcome.outcome(),
				outcome.attempt(), outcome.maxAttempts(), outcome.listenerId(), outcome.instanceId(), outcome.error(),
				outcome.at().toEpochMilli()));
	}

	// a message without listener or instance (not one of encode's) gives an outcome without them
	@SuppressWarnings("NullAway")
	JobOutcome decode(byte[] body) {
		Wire wire = this.mapper.readValue(body, Wire.class);
		if (wire.topic() == null || wire.id() == null || wire.outcome() == null) {
			throw new IllegalArgumentException("topic, id and outcome are required");
		}
		return new JobOutcome(wire.topic(), wire.id(), wire.outcome(), wire.attempt(), wire.maxAttempts(),
				wire.listener(), wire.instance(), wire.error(), Instant.ofEpochMilli(wire.at()));
	}

	/** A message on the channel. */
	record Wire(@Nullable String topic, @Nullable String id, @Nullable String outcome, int attempt, int maxAttempts,
			@Nullable String listener, @Nullable String instance, @Nullable String error, long at) {
	}

	@Override
	public Subscription subscribe(@Nullable String topic, Consumer<JobOutcome> consumer) {
		Assert.notNull(consumer, "consumer must not be null");
		if (topic != null) {
			JobConstraints.topic(topic);
		}
		Subscriber subscriber = new Subscriber(topic, consumer);
		synchronized (this.subscribeLock) {
			// added under the lock that stop() clears them under
			ensureSubscribed();
			this.subscribers.add(subscriber);
		}
		return () -> this.subscribers.remove(subscriber);
	}

	@Override
	public CompletableFuture<JobOutcome> whenDone(String topic, String id) {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		String key = topic + "\n" + id;
		CompletableFuture<JobOutcome> done = new CompletableFuture<>();
		this.waiters.compute(key, (k, set) -> {
			Set<CompletableFuture<JobOutcome>> waiting = (set != null) ? set : ConcurrentHashMap.newKeySet();
			waiting.add(done);
			return waiting;
		});
		done.whenComplete((outcome, failure) -> this.waiters.computeIfPresent(key, (k, set) -> {
			set.remove(done);
			return set.isEmpty() ? null : set;
		}));
		try {
			ensureSubscribed();
		}
		catch (RuntimeException ex) {
			done.completeExceptionally(ex);
		}
		return done;
	}

	/** Subscribes once; the first call returns when the subscription is active. */
	private void ensureSubscribed() {
		synchronized (this.subscribeLock) {
			if (!this.running) {
				throw new IllegalStateException("The job outcome stream is stopped (the application context is"
						+ " not running)");
			}
			if (this.subscription != null) {
				return;
			}
			ThreadPoolExecutor delivery = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
					new ArrayBlockingQueue<>(BUFFER), new CustomizableThreadFactory("delayqueue-outcomes-"),
					(task, executor) -> {
						if (!executor.isShutdown()) {
							drop(1, "more than " + BUFFER + " waited for this instance's consumers");
						}
					});
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(this.connectionFactory);
			container.setBeanName("delayqueue-outcomes");
			container.setTaskExecutor(delivery);
			// a blocking driver (Jedis) holds a thread of its own for the subscription
			container.setSubscriptionExecutor(new SimpleAsyncTaskExecutor("delayqueue-outcomes-subscription-"));
			Dispatcher dispatcher = new Dispatcher();
			container.addMessageListener(dispatcher, new ChannelTopic(this.channel));
			try {
				container.afterPropertiesSet();
				container.start();
				// an outcome published after the first subscribe returns must be heard
				dispatcher.subscribed.get(SUBSCRIBE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
			catch (RuntimeException | InterruptedException | ExecutionException | TimeoutException ex) {
				if (ex instanceof InterruptedException) {
					Thread.currentThread().interrupt();
				}
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
		public void onMessage(Message message, byte @Nullable [] pattern) {
			JobOutcome outcome;
			try {
				outcome = decode(message.getBody());
			}
			catch (RuntimeException ex) {
				badMessage(ex);
				return;
			}
			if (outcome.isFinal()) {
				Set<CompletableFuture<JobOutcome>> waiting = RedisJobOutcomeStream.this.waiters
					.get(outcome.topic() + "\n" + outcome.id());
				if (waiting != null) {
					List.copyOf(waiting).forEach((future) -> future.complete(outcome));
				}
			}
			for (Subscriber subscriber : RedisJobOutcomeStream.this.subscribers) {
				subscriber.accept(outcome);
			}
		}

	}

	private void badMessage(RuntimeException ex) {
		if (logNow(this.lastBadMessageLogNanos)) {
			logger.warn("Ignored a message on channel '" + this.channel + "' that is no job outcome (further ones"
					+ " are ignored without a word for a minute): " + ex.getClass().getName());
		}
	}

	private record Subscriber(@Nullable String topic, Consumer<JobOutcome> consumer) {

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

	@Override
	public synchronized void start() {
		synchronized (this.subscribeLock) {
			if (this.running) {
				return;
			}
			this.running = true;
			if (this.publisher != null) {
				this.publisher.start();
			}
		}
	}

	/**
	 * Publishes the outcomes still waiting (for up to 5 s), ends the subscription, and fails
	 * the {@link #whenDone} futures still waiting.
	 */
	@Override
	public synchronized void stop() {
		RedisMessageListenerContainer subscription;
		ThreadPoolExecutor delivery;
		synchronized (this.subscribeLock) {
			if (!this.running) {
				return;
			}
			this.running = false;
			subscription = this.subscription;
			delivery = this.delivery;
			this.subscription = null;
			this.delivery = null;
		}
		if (this.publisher != null) {
			this.publisher.stop();
		}
		if (subscription != null) {
			destroyQuietly(subscription);
		}
		if (delivery != null) {
			delivery.shutdown();
		}
		IllegalStateException stopped = new IllegalStateException("The job outcome stream stopped");
		this.waiters.values().forEach((set) -> List.copyOf(set).forEach((future) -> future.completeExceptionally(stopped)));
		this.subscribers.clear();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
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
