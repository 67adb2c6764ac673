package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
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
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * The {@link JobOutcomeStream} on Redis pub/sub, channel {@code <namespace>:outcomes}: JSON
 * messages with the {@link JobOutcome} fields ({@code at} in epoch milliseconds). When
 * publishing, this instance's {@link DelayedJobOutcomeEvent}s are sent from a thread of its own,
 * up to {@value #BATCH} in one script call. One thread feeds every consumer. Outcomes beyond
 * {@value #BUFFER} waiting, or met by a Redis failure or a stopped stream, are dropped and
 * counted ({@link #getDropped()}). Stops right after the listener containers.
 */
public class RedisJobOutcomeStream
		implements JobOutcomeStream, ApplicationListener<DelayedJobOutcomeEvent>, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RedisJobOutcomeStream.class);

	/** Outcomes waiting to be published, or to reach consumers, at most. */
	static final int BUFFER = 10_000;

	/** Just below the listener containers' phase. */
	private static final int PHASE = Integer.MAX_VALUE - 101;

	static final int BATCH = 256;

	/** How long {@link #stop()} goes on publishing what waits. */
	static final long FLUSH_MILLIS = 5_000;

	private static final LuaScript PUBLISH = LuaScript.of("publish", 0);

	private final EventSubscriber subscription;

	private final ScriptRunner runner;

	private final String channel;

	private final String instanceId;

	private final boolean publishing;

	private final BlockingQueue<JobOutcome> outbox = new ArrayBlockingQueue<>(BUFFER);

	private final JsonMapper mapper = JsonMapper.builder()
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
		.build();

	private final AtomicLong dropped = new AtomicLong();

	private final OnceAMinute dropWarning = new OnceAMinute(logger);

	private final OnceAMinute badMessageWarning = new OnceAMinute(logger);

	private final List<Consumer<JobOutcome>> subscribers = new CopyOnWriteArrayList<>();

	// whenDone futures by "<topic>\n<id>"
	private final Map<String, Set<CompletableFuture<JobOutcome>>> waiters = new ConcurrentHashMap<>();

	private final MessageListener listener = (message, pattern) -> {
		ThreadPoolExecutor delivery = this.delivery;
		if (delivery != null) {
			delivery.execute(() -> deliver(message.getBody()));
		}
	};

	private volatile boolean running;

	private @Nullable Thread publisher;

	/** The consumers' thread, while the channel is subscribed. */
	private volatile @Nullable ThreadPoolExecutor delivery;

	/**
	 * Create the stream of a queue's namespace.
	 * @param queue the queue, whose subscription carries the channel {@code <namespace>:outcomes}
	 * @param publishing whether this instance's listener outcomes are published
	 */
	public RedisJobOutcomeStream(RedisDelayQueue queue, boolean publishing) {
		Assert.notNull(queue, "queue must not be null");
		this.subscription = queue.subscriber;
		this.runner = queue.runner;
		this.channel = queue.getNamespace() + ":outcomes";
		this.instanceId = queue.getInstanceId();
		this.publishing = publishing;
	}

	/** The pub/sub channel, {@code <namespace>:outcomes}. */
	public String getChannel() {
		return this.channel;
	}

	/** Whether this instance's listener outcomes are published. */
	public boolean isPublishing() {
		return this.publishing;
	}

	/** How many outcomes were not published, or not delivered to this instance's consumers, since start. */
	public long getDropped() {
		return this.dropped.get();
	}

	@Override
	public void onApplicationEvent(DelayedJobOutcomeEvent event) {
		if (!this.publishing) {
			return;
		}
		ReservedJob job = event.getJob();
		Throwable failure = event.getFailure();
		offer(new JobOutcome(job.topic(), job.id(), event.getOutcome(), job.attempt(), job.maxAttempts(),
				event.getListenerId(), this.instanceId,
				(failure != null) ? JobConstraints.errorText(failure.toString()) : null, Instant.now()));
	}

	/** Queues an outcome to publish without blocking, or drops it when full or stopped. */
	void offer(JobOutcome outcome) {
		if (!this.outbox.offer(outcome)) {
			drop(1, "more than " + BUFFER + " waited to be published");
		}
		else if (!this.running && this.outbox.remove(outcome)) {
			// stopped meanwhile and the publisher may have ended
			drop(1, "the stream has stopped");
		}
	}

	private void drop(int count, String reason) {
		long total = this.dropped.addAndGet(count);
		this.dropWarning.warn("Dropped " + count + " job outcome(s) of the stream on channel '" + this.channel + "' ("
				+ total + " in all) because " + reason);
	}

	byte[] encode(JobOutcome o) {
		return this.mapper.writeValueAsBytes(new Message(o.topic(), o.id(), o.outcome(), o.attempt(), o.maxAttempts(),
				o.listenerId(), o.instanceId(), o.error(), o.at().toEpochMilli()));
	}

	/** An outcome as the channel carries it; a message without listener or instance gives an outcome without them. */
	@SuppressWarnings("NullAway")
	record Message(String topic, String id, String outcome, int attempt, int maxAttempts, @Nullable String listener,
			@Nullable String instance, @Nullable String error, long at) {

		Message {
			Assert.isTrue(topic != null && id != null && outcome != null, "topic, id and outcome are required");
		}

		JobOutcome toOutcome() {
			return new JobOutcome(this.topic, this.id, this.outcome, this.attempt, this.maxAttempts, this.listener,
					this.instance, this.error, Instant.ofEpochMilli(this.at));
		}

	}

	@Override
	public Subscription subscribe(@Nullable String topic, Consumer<JobOutcome> consumer) {
		Assert.notNull(consumer, "consumer must not be null");
		if (topic != null) {
			JobConstraints.topic(topic);
		}
		Consumer<JobOutcome> subscriber = (outcome) -> {
			if (topic == null || topic.equals(outcome.topic())) {
				consumer.accept(outcome);
			}
		};
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

	private void deliver(byte[] body) {
		JobOutcome outcome;
		try {
			outcome = this.mapper.readValue(body, Message.class).toOutcome();
		}
		catch (RuntimeException ex) {
			this.badMessageWarning.warn("Ignored a message on channel '" + this.channel + "' that is no job outcome: "
					+ ex.getClass().getName());
			return;
		}
		if (outcome.isFinal()) {
			List.copyOf(this.waiters.getOrDefault(outcome.topic() + "\n" + outcome.id(), Set.of()))
				.forEach((future) -> future.complete(outcome));
		}
		for (Consumer<JobOutcome> subscriber : this.subscribers) {
			try {
				subscriber.accept(outcome);
			}
			catch (Throwable ex) {
				logger.warn("A consumer of the job outcomes threw for job " + outcome.id() + " of topic "
						+ outcome.topic() + "; it goes on hearing outcomes", ex);
			}
		}
	}

	private void publishUntilStopped() {
		List<JobOutcome> batch = new ArrayList<>(BATCH);
		// once stopped, what still waits, until stop() gives up after FLUSH_MILLIS
		while (this.running || !this.outbox.isEmpty()) {
			try {
				JobOutcome first = this.outbox.poll(200, TimeUnit.MILLISECONDS);
				if (first != null) {
					batch.add(first);
					this.outbox.drainTo(batch, BATCH - 1);
					publish(batch);
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			finally {
				batch.clear();
			}
		}
	}

	private void publish(List<JobOutcome> batch) {
		byte[] channel = KeySpace.bytes(this.channel);
		List<byte[]> messages = batch.stream().map(this::encode).toList();
		try {
			if (this.runner.cluster("publishing job outcomes")) {
				// a script without keys has no node to go to on a cluster; PUBLISH reaches every node
				this.runner.execute("publishing job outcomes", (connection) -> {
					messages.forEach((message) -> connection.publish(channel, message));
					return null;
				});
			}
			else {
				// one script call: Jedis cannot pipeline PUBLISH
				this.runner.run(PUBLISH, QueueScripts.args(List.of(), channel, messages));
			}
		}
		catch (RuntimeException | Error ex) {
			// an Error from the client must not end the thread: the batch is lost
			drop(batch.size(), "publishing failed: " + ex);
		}
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		if (this.publishing) {
			Thread publisher = new Thread(this::publishUntilStopped, "delayqueue-outcomes-publisher");
			publisher.setDaemon(true);
			publisher.start();
			this.publisher = publisher;
		}
	}

	/**
	 * Publishes the outcomes still waiting (for up to {@value #FLUSH_MILLIS} ms), ends the
	 * subscription, and fails the {@link #whenDone} futures still waiting.
	 */
	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		stopPublishing();
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

	private void stopPublishing() {
		Thread publisher = this.publisher;
		this.publisher = null;
		if (publisher != null) {
			try {
				publisher.join(FLUSH_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			publisher.interrupt();
		}
		int left = this.outbox.size();
		this.outbox.clear();
		if (left > 0) {
			drop(left, "the stream stopped before they were published");
		}
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
