package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ObjIntConsumer;

import io.github.delayqueue.listener.JobOutcome;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Publishes job outcomes on one pub/sub channel from a thread of its own, up to {@value #BATCH}
 * in one script call; outcomes it cannot take or send go to the drop callback with a reason.
 */
final class OutcomePublisher {

	private static final int BATCH = 256;

	/** How long {@link #stop()} goes on publishing what waits. */
	static final long FLUSH_MILLIS = 5_000;

	private static final byte[] PUBLISH_ALL = ("for i = 2, #ARGV do redis.call('PUBLISH', ARGV[1], ARGV[i]) end"
			+ " return #ARGV - 1").getBytes(StandardCharsets.UTF_8);

	private final RedisConnectionFactory connectionFactory;

	private final byte[] channel;

	private final Function<JobOutcome, byte[]> encoder;

	private final ObjIntConsumer<String> drop;

	private final BlockingQueue<JobOutcome> outbox = new ArrayBlockingQueue<>(RedisJobOutcomeStream.BUFFER);

	private volatile boolean running;

	private @Nullable Thread thread;

	OutcomePublisher(RedisConnectionFactory connectionFactory, String channel, Function<JobOutcome, byte[]> encoder,
			ObjIntConsumer<String> drop) {
		this.connectionFactory = connectionFactory;
		this.channel = channel.getBytes(StandardCharsets.UTF_8);
		this.encoder = encoder;
		this.drop = drop;
	}

	/** Queues an outcome without blocking, or drops it when full or stopped. */
	void offer(JobOutcome outcome) {
		if (!this.outbox.offer(outcome)) {
			this.drop.accept("more than " + RedisJobOutcomeStream.BUFFER + " waited to be published", 1);
		}
		else if (!this.running && this.outbox.remove(outcome)) {
			// stopped meanwhile and the thread may have ended
			this.drop.accept("the stream has stopped", 1);
		}
	}

	synchronized void start() {
		this.running = true;
		Thread thread = new Thread(this::publishUntilStopped, "delayqueue-outcomes-publisher");
		thread.setDaemon(true);
		thread.start();
		this.thread = thread;
	}

	/** Publishes what waits for up to {@value #FLUSH_MILLIS} ms, then drops the rest. */
	synchronized void stop() {
		this.running = false;
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FLUSH_MILLIS);
		Thread thread = this.thread;
		this.thread = null;
		try {
			if (thread != null) {
				thread.join(FLUSH_MILLIS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		List<JobOutcome> batch = new ArrayList<>(BATCH);
		while (System.nanoTime() < deadline && this.outbox.drainTo(batch, BATCH) > 0) {
			publish(batch);
			batch.clear();
		}
		int left = this.outbox.size();
		this.outbox.clear();
		if (left > 0) {
			this.drop.accept("the stream stopped before they were published", left);
		}
	}

	private void publishUntilStopped() {
		List<JobOutcome> batch = new ArrayList<>(BATCH);
		while (this.running) {
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
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection) {
				// a script without keys has no node to go to on a cluster; PUBLISH reaches every node
				for (JobOutcome outcome : batch) {
					connection.publish(this.channel, this.encoder.apply(outcome));
				}
				return;
			}
			byte[][] args = new byte[batch.size() + 1][];
			args[0] = this.channel;
			for (int i = 0; i < batch.size(); i++) {
				args[i + 1] = this.encoder.apply(batch.get(i));
			}
			connection.scriptingCommands().eval(PUBLISH_ALL, ReturnType.INTEGER, 0, args);
		}
		catch (RuntimeException | Error ex) {
			// an Error from the client must not end the thread: the batch is lost
			this.drop.accept("publishing failed: " + ex, batch.size());
		}
	}

}
