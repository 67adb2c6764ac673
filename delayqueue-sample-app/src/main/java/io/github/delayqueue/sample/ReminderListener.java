package io.github.delayqueue.sample;

import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * Prints each reminder when it is due. Returning normally finishes the job; throwing would
 * retry it with back-off.
 */
@Component
class ReminderListener {

	static final String TOPIC = "reminder";

	private static final Log logger = LogFactory.getLog(ReminderListener.class);

	private final AtomicLong handled = new AtomicLong();

	@DelayedListener(topic = TOPIC)
	void remind(Reminder reminder, DelayedJob<Reminder> job) {
		logger.info("Due: " + reminder.text() + " (" + job.id() + ", due " + job.dueAt() + ", delivered "
				+ job.deliveredAt() + ", attempt " + job.attempt() + ")");
		this.handled.incrementAndGet();
	}

	long handled() {
		return this.handled.get();
	}

}
