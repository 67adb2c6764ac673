package io.github.delayqueue.sample;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Consumes reminders with the programmatic consumer API: wait for work, reserve, handle,
 * finish (or fail, to be retried with back-off).
 */
@Component
class ReminderConsumer implements SmartLifecycle {

	static final String TOPIC = "reminder";

	private static final Log logger = LogFactory.getLog(ReminderConsumer.class);

	private final DelayQueueOperations queue;

	private final JobPayloadConverter converter;

	private final AtomicLong handled = new AtomicLong();

	private volatile boolean running;

	private Thread thread;

	ReminderConsumer(DelayQueueOperations queue, JobPayloadConverter converter) {
		this.queue = queue;
		this.converter = converter;
	}

	@Override
	public void start() {
		this.running = true;
		this.thread = new Thread(this::consume, "reminder-consumer");
		this.thread.start();
	}

	private void consume() {
		while (this.running) {
			try {
				if (!this.queue.awaitWork(TOPIC, Duration.ofSeconds(1))) {
					continue;
				}
				for (ReservedJob job : this.queue.reserve(TOPIC, 10, null)) {
					try {
						Reminder reminder = this.converter.read(job.payload(), Reminder.class);
						logger.info("Due: " + reminder.text() + " (" + job.id() + ", due " + job.dueAt() + ", delivered "
								+ job.deliveredAt() + ")");
						this.queue.finish(job);
						this.handled.incrementAndGet();
					}
					catch (RuntimeException ex) {
						this.queue.fail(job, Duration.ofSeconds(5), ex.toString());
					}
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("Reminder consumer failed, retrying in 1 s: " + ex.getMessage());
				try {
					Thread.sleep(1000);
				}
				catch (InterruptedException interrupted) {
					return;
				}
			}
		}
	}

	long handled() {
		return this.handled.get();
	}

	@Override
	public void stop() {
		this.running = false;
		if (this.thread != null) {
			this.thread.interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
