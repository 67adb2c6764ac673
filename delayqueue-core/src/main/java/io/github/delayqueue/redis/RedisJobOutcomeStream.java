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
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * The {@link JobOutcomeStream} on Redis pub/sub, channel {@code <namespace>:outcomes}: JSON
 * messages with the {@link JobOutcome} fields ({@code at} in epoch milliseconds). When
 * publishing, this instance's {@link DelayedJobOutcomeEvent}s are sent. The first consumer adds
 * the channel to the queue's subscription; one thread feeds every consumer. Outcomes beyond
 * {@value #BUFFER} waiting, or met by a Redis failure or a stopped stream, are dropped and
 * counted ({@link #getDropped()}). Stops right after the listener containers.
 */
public class RedisJobOutcomeStream
		implements JobOutcomeStream, ApplicationListener<DelayedJobOutcomeEvent>, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RedisJobOutcomeStream.class);

	/** Outcomes waiting to be published, or to reach consumers, at most. */
	static final int BUFFER = 10_000;

	/** Just below the listener containers' phase. */
	static final int PHASE = Integer.MAX_VALUE - 101;

	private final EventSubscriber subscription;

	private final String channel;

	private final String instanceId;

	private final @Nullable OutcomePublisher publisher;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final AtomicLong dropped = new AtomicLong();

	private final OnceAMinute dropWarning = new OnceAMinute(logger);

	private final OnceAMinute badMessageWarning = new OnceAMinute(logger);

	private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();

	// whenDone futures by "<topic>\n<id>"
	private final Map<String, Set<CompletableFuture<JobOutcome>>> waiters = new ConcurrentHashMap<>();

	private final MessageListener listener = (message, pattern) -> received(message.getBody());

	private volatile boolean running;

	/** The consumers' thread, while the channel is subscribed. */
	private volatile @Nullable ThreadPoolExecutor delivery;

	/**
	 * Create the stream of a queue's namespace.
	 * @param queue the queue, whose subscription carries the channel {@code <namespace>:outcomes}
	 * @param publishing whether this instance's listener outcomes are published
	 */
	public RedisJobOutcomeStream(RedisDelayQueue queue, boolean publishing) {
		Assert.notNull(queue, "queue must not be null");
		this.subscription = queue.subscriber();
		this.channel = queue.getNamespace() + ":outcomes";
		this.instanceId = queue.getInstanceId();
		this.publisher = publishing ? new OutcomePublisher(queue.getConnectionFactory(), this.channel, this::encode,
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
		ReservedJob job = event.getJob();
		Throwable failure = event.getFailure();
		JobOutcome outcome = new JobOutcome(job.topic(), job.id(), event.getOutcome(), job.attempt(),
				job.maxAttempts(), event.getListenerId(), this.instanceId,
				(failure != null) ? JobConstraints.errorText(failure.toString()) : null, Instant.now());
		publisher.offer(outcome);
	}

	private void drop(int count, String reason) {
		long total = this.dropped.addAndGet(count);
		this.dropWarning.warn("Dropped " + count + " job outcome(s) of the stream on channel '" + this.channel + "' ("
				+ total + " in all) because " + reason);
	}

	byte[] encode(JobOutcome outcome) {
		return this.mapper.writeValueAsBytes(this.mapper.createObjectNode()
			.put("topic", outcome.topic())
			.put("id", outcome.id())
			.put("outcome", outcome.outcome())
			.put("attempt", outcome.attempt())
			.put("maxAttempts", outcome.maxAttempts())
			.put("listener", outcome.listenerId())
			.put("instance", outcome.instanceId())
			.put("error", outcome.error())
			.put("at", outcome.at().toEpochMilli()));
	}

	// a message without listener or instance (not one of encode's) gives an outcome without them
	@SuppressWarnings("NullAway")
	JobOutcome decode(byte[] body) {
		JsonNode message = this.mapper.readTree(body);
		String topic = message.path("topic").asString(null);
		String id = message.path("id").asString(null);
		String outcome = message.path("outcome").asString(null);
		if (topic == null || id == null || outcome == null) {
			throw new IllegalArgumentException("topic, id and outcome are required");
		}
		return new JobOutcome(topic, id, outcome, message.path("attempt").asInt(), message.path("maxAttempts").asInt(),
				message.path("listener").asString(null), message.path("instance").asString(null),
				message.path("error").asString(null), Instant.ofEpochMilli(message.path("at").asLong()));
	}

	@Override
	public Subscription subscribe(@Nullable String topic, Consumer<JobOutcome> consumer) {
		Assert.notNull(consumer, "consumer must not be null");
		if (topic != null) {
			JobConstraints.topic(topic);
		}
		Subscriber subscriber = new Subscriber(topic, consumer);
		synchronized (this) {
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

	/** Subscribes once; the first call returns when Redis confirmed the subscription. */
	private synchronized void ensureSubscribed() {
		if (!this.running) {
			throw new IllegalStateException("The job outcome stream is stopped (the application context is"
					+ " not running)");
		}
		if (this.delivery != null) {
			return;
		}
		ThreadPoolExecutor delivery = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
				new ArrayBlockingQueue<>(BUFFER), new CustomizableThreadFactory("delayqueue-outcomes-"),
				(task, executor) -> {
					if (!executor.isShutdown()) {
						drop(1, "more than " + BUFFER + " waited for this instance's consumers");
					}
				});
		this.delivery = delivery;
		try {
			this.subscription.listen(this.listener, this.channel);
		}
		catch (RuntimeException ex) {
			this.delivery = null;
			delivery.shutdownNow();
			unlisten();
			throw new DelayQueueConnectionException(
					"Could not subscribe to the job outcomes on channel '" + this.channel + "'", ex);
		}
	}

	private void unlisten() {
		try {
			this.subscription.unlisten(this.listener);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not end the job outcome subscription cleanly", ex);
		}
	}

	/** A message on the channel, on the subscription's thread. */
	private void received(byte[] body) {
		ThreadPoolExecutor delivery = this.delivery;
		if (delivery != null) {
			delivery.execute(() -> deliver(body));
		}
	}

	private void deliver(byte[] body) {
		JobOutcome outcome;
		try {
			outcome = decode(body);
		}
		catch (RuntimeException ex) {
			this.badMessageWarning.warn("Ignored a message on channel '" + this.channel + "' that is no job outcome: "
					+ ex.getClass().getName());
			return;
		}
		if (outcome.isFinal()) {
			Set<CompletableFuture<JobOutcome>> waiting = this.waiters.get(outcome.topic() + "\n" + outcome.id());
			if (waiting != null) {
				List.copyOf(waiting).forEach((future) -> future.complete(outcome));
			}
		}
		for (Subscriber subscriber : this.subscribers) {
			subscriber.accept(outcome);
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
		if (this.running) {
			return;
		}
		this.running = true;
		if (this.publisher != null) {
			this.publisher.start();
		}
	}

	/**
	 * Publishes the outcomes still waiting (for up to 5 s), ends the subscription, and fails
	 * the {@link #whenDone} futures still waiting.
	 */
	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		if (this.publisher != null) {
			this.publisher.stop();
		}
		ThreadPoolExecutor delivery = this.delivery;
		if (delivery != null) {
			this.delivery = null;
			unlisten();
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

}
