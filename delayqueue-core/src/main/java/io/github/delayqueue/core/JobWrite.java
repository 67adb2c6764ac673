package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A write to the queue that waits for a transaction to commit, as {@link DelayedJobTemplate}
 * holds it back and a {@link JobOutbox} stores it. Each kind checks its arguments when created.
 */
public sealed interface JobWrite {

	/** The topic the write is for. */
	String topic();

	/** The id of the job the write is for. */
	String id();

	/**
	 * Applies writes in their order, consecutive schedules in one
	 * {@link DelayQueueProducer#scheduleAll} call.
	 * @param producer the producer to write with
	 * @param writes the writes
	 * @param results takes each write's result, in order, as soon as it is written
	 */
	static void applyAll(DelayQueueProducer producer, List<? extends JobWrite> writes, Consumer<Object> results) {
		List<ScheduleRequest> schedules = new ArrayList<>();
		for (JobWrite write : writes) {
			if (write instanceof Schedule schedule) {
				schedules.add(schedule.request());
				continue;
			}
			if (!schedules.isEmpty()) {
				producer.scheduleAll(schedules).forEach(results);
				schedules.clear();
			}
			results.accept(write.applyTo(producer));
		}
		if (!schedules.isEmpty()) {
			producer.scheduleAll(schedules).forEach(results);
		}
	}

	/**
	 * Applies this write alone.
	 * @param producer the producer to write with
	 * @return what the producer returned
	 */
	Object applyTo(DelayQueueProducer producer);

	/**
	 * Schedules a job.
	 * @param request the job
	 */
	record Schedule(ScheduleRequest request) implements JobWrite {

		public Schedule {
			Assert.notNull(request, "request must not be null");
		}

		@Override
		public String topic() {
			return this.request.topic();
		}

		@Override
		public String id() {
			return this.request.id();
		}

		@Override
		public ScheduleResult applyTo(DelayQueueProducer producer) {
			return producer.schedule(this.request);
		}

	}

	/**
	 * Cancels a job in any state.
	 * @param topic the topic
	 * @param id the job id
	 */
	record Cancel(String topic, String id) implements JobWrite {

		public Cancel {
			JobConstraints.topic(topic);
			JobConstraints.id(id);
		}

		@Override
		public Boolean applyTo(DelayQueueProducer producer) {
			return producer.cancel(this.topic, this.id);
		}

	}

	/**
	 * Moves a waiting job to a new due time: exactly one of {@code delay} and {@code dueAt}.
	 * @param topic the topic
	 * @param id the job id
	 * @param delay the new delay, or {@code null}
	 * @param dueAt the new due time, or {@code null}
	 */
	record Reschedule(String topic, String id, @Nullable Duration delay, @Nullable Instant dueAt) implements JobWrite {

		public Reschedule {
			JobConstraints.topic(topic);
			JobConstraints.id(id);
			JobConstraints.delayOrDueAt(delay, dueAt);
		}

		@Override
		public RescheduleResult applyTo(DelayQueueProducer producer) {
			return (this.delay != null) ? producer.reschedule(this.topic, this.id, this.delay)
					: producer.rescheduleAt(this.topic, this.id, Objects.requireNonNull(this.dueAt, "dueAt"));
		}

	}

}
