package io.github.delayqueue.sample;

import java.time.Duration;

import io.github.delayqueue.core.DelayedJobTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Schedules three reminders at start-up, due in 2, 4 and 6 seconds.
 */
@Component
class ReminderProducer implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(ReminderProducer.class);

	private final DelayedJobTemplate template;

	ReminderProducer(DelayedJobTemplate template) {
		this.template = template;
	}

	@Override
	public void run(ApplicationArguments args) {
		long run = System.currentTimeMillis();
		for (int i = 1; i <= 3; i++) {
			String id = "reminder-" + run + "-" + i;
			this.template.schedule(ReminderListener.TOPIC, id, new Reminder(id, "Reminder #" + i),
					Duration.ofSeconds(2L * i));
			logger.info("Scheduled " + id + " in " + (2 * i) + " s");
		}
	}

}
