package io.github.delayqueue.actuate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import io.github.delayqueue.actuate.DelayQueueEndpoint.InvalidArgumentException;
import io.github.delayqueue.actuate.DelayQueueEndpoint.NotFoundException;
import io.github.delayqueue.actuate.EndpointDescriptors.ActionDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.RecurringActionDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.RepairDescriptor;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.recurring.RecurringAction;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobs;
import org.jspecify.annotations.Nullable;

import static io.github.delayqueue.actuate.DelayQueueEndpoint.argument;

/**
 * The writes of the {@link DelayQueueEndpoint}: repair, replay, cancel, pause and resume of
 * listeners and recurring jobs. Each write, refused ones aside, is one audit log line, also
 * when it finds nothing or fails part way.
 */
final class EndpointActions {

	private final DelayQueueOperations operations;

	private final Supplier<Collection<DelayedListenerContainer>> containers;

	private final @Nullable RecurringJobs recurringJobs;

	private final String via;

	EndpointActions(DelayQueueOperations operations, Supplier<Collection<DelayedListenerContainer>> containers,
			@Nullable RecurringJobs recurringJobs, String via) {
		this.operations = operations;
		this.containers = containers;
		this.recurringJobs = recurringJobs;
		this.via = via;
	}

	RecurringActionDescriptor recurring(@Nullable String who, String action, @Nullable Boolean dryRun,
			@Nullable String name) {
		if (dryRun != null) {
			throw new InvalidArgumentException("dryRun", "dryRun applies to repair, not to " + action);
		}
		if (name == null) {
			throw new InvalidArgumentException("recurring", "recurring (the recurring job's name) is required for " + action);
		}
		RecurringAction recurringAction = RecurringAction.named(action)
			.orElseThrow(() -> new InvalidArgumentException("action",
					"action must be one of pause, resume, trigger for a recurring job, was '" + action + "'"));
		argument("recurring", () -> RecurringJob.name(name));
		RecurringJobs jobs = this.recurringJobs;
		if (jobs == null) {
			throw new NotFoundException("No recurring jobs in this application (they need the Redis queue)");
		}
		AuditLog.Entry entry = AuditLog.entry(this.via, who, action + "-recurring").detail("recurring", name);
		return audited(entry, () -> {
			RecurringAction.Result result = recurringAction.apply(jobs, name);
			if (result.occurrence() != null) {
				entry.detail("occurrence", result.occurrence());
			}
			if (!result.found()) {
				throw new NotFoundException("No recurring job '" + name + "'");
			}
			entry.count(1);
			return new RecurringActionDescriptor(name, action, result.occurrence());
		});
	}

	RepairDescriptor repair(@Nullable String who, @Nullable Boolean dryRun) {
		boolean write = dryRun == null || !dryRun;
		AuditLog.Entry entry = AuditLog.entry(this.via, who, write ? "repair" : "repair-dry-run");
		// buckets repaired before a failure stay repaired
		return audited(entry, () -> {
			RepairResult result = this.operations.repair(write);
			entry.count(result.reindexed() + result.dropped() + result.countsCorrected())
				.detail("jobs", result.jobs())
				.detail("reindexed", result.reindexed())
				.detail("dropped", result.dropped())
				.detail("countsCorrected", result.countsCorrected());
			return new RepairDescriptor("repair", write, result);
		});
	}

	ActionDescriptor act(@Nullable String who, String topic, String action, @Nullable Integer max,
			@Nullable String id, @Nullable String listener) {
		AuditLog.Entry entry = AuditLog.entry(this.via, who, action).topic(topic);
		return audited(entry, () -> switch (action) {
			case "replay" -> replay(entry, topic, max, id, listener);
			case "pause", "resume" -> pauseOrResume(entry, topic, action, max, id, listener);
			case "run" -> runNow(entry, topic, id, (max != null) ? "max" : (listener != null) ? "listener" : null);
			default -> throw new InvalidArgumentException("action",
					"action must be one of replay, pause, resume, run, was '" + action + "'");
		});
	}

	ActionDescriptor cancel(@Nullable String who, String topic, String id) {
		AuditLog.Entry entry = AuditLog.entry(this.via, who, "cancel").topic(topic).ids(List.of(id));
		return audited(entry, () -> {
			if (!this.operations.cancel(topic, id)) {
				throw new NotFoundException("No job '" + id + "' in topic '" + topic + "'");
			}
			return done(entry, new ActionDescriptor(topic, "cancel", 1, List.of(id)));
		});
	}

	/** Makes a DELAYED job due now (a reschedule with no delay); a READY one is due already and stays as it is. */
	private ActionDescriptor runNow(AuditLog.Entry entry, String topic, @Nullable String id, @Nullable String extra) {
		if (extra != null) {
			throw new InvalidArgumentException(extra, extra + " does not apply to run");
		}
		if (id == null) {
			throw new InvalidArgumentException("id", "id must be given to run a job now");
		}
		argument("id", () -> JobConstraints.id(id));
		entry.ids(List.of(id));
		RescheduleResult result = this.operations.runNow(topic, id).orElse(null);
		if (result == null) {
			return done(entry, new ActionDescriptor(topic, "run", 0, List.of(id)));
		}
		if (result == RescheduleResult.NOT_FOUND) {
			throw new NotFoundException("No job '" + id + "' in topic '" + topic + "'");
		}
		if (result == RescheduleResult.NOT_WAITING) {
			throw new InvalidArgumentException("id", "job '" + id + "' is RESERVED or DEAD: only a waiting job runs now");
		}
		return done(entry, new ActionDescriptor(topic, "run", 1, List.of(id)));
	}

	private ActionDescriptor replay(AuditLog.Entry entry, String topic, @Nullable Integer max, @Nullable String id,
			@Nullable String listener) {
		if (listener != null) {
			throw new InvalidArgumentException("listener", "listener applies to pause and resume, not to replay");
		}
		if (id != null) {
			if (max != null) {
				throw new InvalidArgumentException("id", "give either id or max for replay, not both");
			}
			argument("id", () -> JobConstraints.id(id));
			entry.ids(List.of(id));
			if (!this.operations.replayDead(topic, id)) {
				throw new NotFoundException("No DEAD job '" + id + "' in topic '" + topic + "'");
			}
			return done(entry, new ActionDescriptor(topic, "replay", 1, List.of(id)));
		}
		if (max != null) {
			argument("max", () -> JobConstraints.max("max", max, DelayQueueOperations.MAX_REPLAY));
		}
		DelayQueueEndpoint.requireKnown(topic, this.operations.stats(topic),
				this.containers.get().stream().anyMatch((container) -> container.getTopic().equals(topic)),
				() -> this.operations.completedJobs(topic, null, 1, false).total());
		// one round of max, or without max rounds of the most until one replays fewer; what the rounds
		// before a failure replayed stays replayed: the entry says how much
		int size = (max != null) ? max : DelayQueueOperations.MAX_REPLAY;
		long count = 0;
		List<String> ids = new ArrayList<>();
		ReplayResult round;
		do {
			round = this.operations.replayDeadJobs(topic, size);
			count += round.count();
			round.ids().stream().limit(ReplayResult.MAX_IDS - ids.size()).forEach(ids::add);
			entry.count(count).ids(ids);
		}
		while (max == null && round.count() == size);
		return new ActionDescriptor(topic, "replay", count, ids);
	}

	private ActionDescriptor pauseOrResume(AuditLog.Entry entry, String topic, String action, @Nullable Integer max,
			@Nullable String id, @Nullable String listener) {
		String replayOnly = (max != null) ? "max" : (id != null) ? "id" : null;
		if (replayOnly != null) {
			throw new InvalidArgumentException(replayOnly, replayOnly + " applies to replay, not to " + action);
		}
		List<DelayedListenerContainer> matching = this.containers.get()
			.stream()
			.filter((container) -> container.getTopic().equals(topic)
					&& (listener == null || container.getId().equals(listener)))
			.toList();
		if (matching.isEmpty()) {
			entry.ids((listener != null) ? List.of(listener) : List.of());
			throw new NotFoundException((listener != null)
					? "No listener '" + listener + "' on topic '" + topic + "' in this application"
					: "No listener on topic '" + topic + "' in this application");
		}
		matching.forEach(action.equals("pause") ? DelayedListenerContainer::pause : DelayedListenerContainer::resume);
		return done(entry, new ActionDescriptor(topic, action, matching.size(),
				matching.stream().map(DelayedListenerContainer::getId).toList()));
	}

	private static ActionDescriptor done(AuditLog.Entry entry, ActionDescriptor done) {
		entry.count(done.count()).ids(done.ids());
		return done;
	}

	/**
	 * Runs a write and writes its audit line: as it is when the write found nothing, marked
	 * failed when it threw; a refused write (a bad argument) changes nothing and writes none.
	 */
	private static <T> T audited(AuditLog.Entry entry, Supplier<T> write) {
		try {
			T done = write.get();
			AuditLog.write(entry);
			return done;
		}
		catch (InvalidArgumentException ex) {
			throw ex;
		}
		catch (NotFoundException ex) {
			AuditLog.write(entry);
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			AuditLog.write(entry.failed(ex));
			throw ex;
		}
	}

}
