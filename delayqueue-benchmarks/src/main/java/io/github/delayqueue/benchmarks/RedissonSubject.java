package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import tools.jackson.databind.json.JsonMapper;

/**
 * The usual Java recipe: Redisson's {@code RDelayedQueue} over an {@code RBlockingQueue},
 * default client settings, one client per instance, consumers blocked in {@code take()}.
 * The payload is the same JSON as delayqueue's, written and read with Jackson. A job is
 * complete when its handler returns ({@code take()} is at-most-once: there is no
 * acknowledgement). Bulk mode is {@code offerAsync} with up to {@value #WINDOW} calls in
 * flight, as {@code RDelayedQueue} has no batch API.
 */
final class RedissonSubject implements Subject {

	static final int WINDOW = 1_000;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<Thread> consumers = new ArrayList<>();

	private final Map<String, RDelayedQueue<String>> producerQueues = new HashMap<>();

	private final List<RBlockingQueue<String>> queues = new ArrayList<>();

	private volatile boolean running = true;

	RedissonSubject(BenchRedis redis, Layout layout, RecorderHolder recorder) {
		for (int i = 0; i < layout.instances(); i++) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + redis.host() + ":" + redis.port());
			RedissonClient client = Redisson.create(config);
			this.clients.add(client);
			for (String topic : layout.topics()) {
				RBlockingQueue<String> queue = client.getBlockingQueue(topic, StringCodec.INSTANCE);
				// creating the delayed queue starts this client's transfer task for it
				RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
				if (i == 0) {
					this.producerQueues.put(topic, delayed);
					this.queues.add(queue);
				}
				for (int c = 0; c < layout.concurrency(); c++) {
					Thread consumer = new Thread(() -> consume(queue, recorder), "redisson-" + topic + "-" + i + "-" + c);
					consumer.setDaemon(true);
					consumer.start();
					this.consumers.add(consumer);
				}
			}
		}
	}

	private void consume(RBlockingQueue<String> queue, RecorderHolder recorder) {
		while (this.running) {
			String json;
			try {
				json = queue.take();
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				if (this.running) {
					throw ex;
				}
				return;
			}
			BenchPayload payload = this.mapper.readValue(json, BenchPayload.class);
			recorder.delivered(payload.seq(), payload.due());
			recorder.completed();
		}
	}

	@Override
	public void schedule(Job job) {
		BenchPayload payload = job.payload();
		queue(job).offer(this.mapper.writeValueAsString(payload), delay(payload), TimeUnit.MILLISECONDS);
	}

	@Override
	public void scheduleBulk(List<Job> jobs) {
		Semaphore window = new Semaphore(WINDOW);
		AtomicReference<Throwable> failed = new AtomicReference<>();
		for (Job job : jobs) {
			BenchPayload payload = job.payload();
			window.acquireUninterruptibly();
			queue(job).offerAsync(this.mapper.writeValueAsString(payload), delay(payload), TimeUnit.MILLISECONDS)
				.whenComplete((result, failure) -> {
					if (failure != null) {
						failed.compareAndSet(null, failure);
					}
					window.release();
				});
		}
		window.acquireUninterruptibly(WINDOW);
		if (failed.get() != null) {
			throw new IllegalStateException("offerAsync failed", failed.get());
		}
	}

	/**
	 * Redisson's asynchronous call is the one its bulk run uses: {@code offerAsync} with a
	 * window of calls in flight.
	 */
	@Override
	public void scheduleAsync(List<Job> jobs) {
		scheduleBulk(jobs);
	}

	private static long delay(BenchPayload payload) {
		return Math.max(0, payload.due() - System.currentTimeMillis());
	}

	private RDelayedQueue<String> queue(Job job) {
		RDelayedQueue<String> queue = this.producerQueues.get(job.topic());
		if (queue == null) {
			throw new IllegalArgumentException("no consumer layout for topic " + job.topic());
		}
		return queue;
	}

	@Override
	public long pending() {
		long pending = 0;
		for (RDelayedQueue<String> delayed : this.producerQueues.values()) {
			pending += delayed.size();
		}
		for (RBlockingQueue<String> queue : this.queues) {
			pending += queue.size();
		}
		return pending;
	}

	@Override
	public void close() {
		this.running = false;
		this.consumers.forEach(Thread::interrupt);
		this.clients.forEach(RedissonClient::shutdown);
		this.clients.clear();
	}

}
