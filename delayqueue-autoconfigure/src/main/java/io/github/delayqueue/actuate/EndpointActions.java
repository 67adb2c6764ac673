package io.github.delayqueue.actuate;

import java.time.Duration;
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
 * when it fails part way.
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
		RecurringAction.Result result = audited(entry, () -> recurringAction.apply(jobs, name));
		if (result.occurrence() != null) {
			entry.detail("occurrence", result.occurrence());
		}
		AuditLog.write(entry.count(result.found() ? 1 : 0));
		if (!result.found()) {
			throw new NotFoundException("No recurring job '" + name + "'");
		}
		return new RecurringActionDescriptor(name, action, result.occurrence());
	}

	RepairDescriptor repair(@Nullable String who, @Nullable Boolean dryRun) {
		boolean write = dryRun == null || !dryRun;
		AuditLog.Entry entry = AuditLog.entry(this.via, who, write ? "repair" : "repair-dry-run");
		// buckets repaired before a failure stay repaired
		RepairResult result = audited(entry, () -> this.operations.repair(write));
		AuditLog.write(entry.count(result.reindexed() + result.dropped() + result.countsCorrected())
			.detail("jobs", result.jobs())
			.detail("reindexed", result.reindexed())
			.detail("dropped", result.dropped())
			.detail("countsCorrected", result.countsCorrected()));
		return new RepairDescriptor("repair", write, result.jobs(), result.reindexed(), result.dropped(),
				result.countsCorrected(), result.unreadable());
	}

	ActionDescriptor act(@Nullable String who, String topic, String action, @Nullable Integer max,
			@Nullable String id, @Nullable String listener) {
		ActionDescriptor done;
		Replayed replayed = new Replayed();
		try {
			done = switch (action) {
				case "replay" -> replay(topic, max, id, listener, replayed);
				case "pause", "resume" -> pauseOrResume(topic, action, max, id, listener);
				case "run" -> runNow(topic, id, (max != null) ? "max" : (listener != null) ? "listener" : null);
				default -> throw new InvalidArgumentException("action",
						"action must be one of replay, pause, resume, run, was '" + action + "'");
			};
		}
		catch (NotFoundException ex) {
			// asked for and found nothing: a write all the same
			String named = (id != null) ? id : listener;
			AuditLog.write(entry(who, topic, action, 0, (named != null) ? List.of(named) : List.of()));
			throw ex;
		}
		catch (InvalidArgumentException ex) {
			throw ex; // refused before anything was changed
		}
		catch (RuntimeException | Error ex) {
			// what the rounds before the failure did stays done: the line says how much
			AuditLog.write(entry(who, topic, action, replayed.count, (id != null) ? List.of(id) : replayed.ids).failed(ex));
			throw ex;
		}
		AuditLog.write(entry(who, topic, action, done.count(), done.ids()));
		return done;
	}

	ActionDescriptor cancel(@Nullable String who, String topic, String id) {
		AuditLog.Entry entry = AuditLog.entry(this.via, who, "cancel").topic(topic).ids(List.of(id));
		boolean cancelled = audited(entry, () -> this.operations.cancel(topic, id));
		AuditLog.write(entry.count(cancelled ? 1 : 0));
		if (!cancelled) {
			throw new NotFoundException("No job '" + id + "' in topic '" + topic + "'");
		}
		return new ActionDescriptor(topic, "cancel", 1, List.of(id));
	}

	/** Makes a DELAYED or READY job due now: a reschedule with no delay. */
	private ActionDescriptor runNow(String topic, @Nullable String id, @Nullable String extra) {
		if (extra != null) {
			throw new InvalidArgumentException(extra, extra + " does not apply to run");
		}
		if (id == null) {
			throw new InvalidArgumentException("id", "id must be given to run a job now");
		}
		argument("id", () -> JobConstraints.id(id));
		RescheduleResult result = this.operations.reschedule(topic, id, Duration.ZERO);
		if (result == RescheduleResult.NOT_FOUND) {
			throw new NotFoundException("No job '" + id + "' in topic '" + topic + "'");
		}
		if (result == RescheduleResult.NOT_WAITING) {
			throw new InvalidArgumentException("id", "job '" + id + "' is RESERVED or DEAD: only a waiting job runs now");
		}
		return new ActionDescriptor(topic, "run", 1, List.of(id));
	}

	private ActionDescriptor replay(String topic, @Nullable Integer max, @Nullable String id,
			@Nullable String listener, Replayed replayed) {
		if (listener != null) {
			throw new InvalidArgumentException("listener", "listener applies to pause and resume, not to replay");
		}
		if (id != null) {
			if (max != null) {
				throw new InvalidArgumentException("id", "give either id or max for replay, not both");
			}
			argument("id", () -> JobConstraints.id(id));
			if (!this.operations.replayDead(topic, id)) {
				throw new NotFoundException("No DEAD job '" + id + "' in topic '" + topic + "'");
			}
			return new ActionDescriptor(topic, "replay", 1, List.of(id));
		}
		if (max != null) {
			argument("max", () -> JobConstraints.max("max", max, DelayQueueOperations.MAX_REPLAY));
		}
		if (!isKnown(topic)) {
			throw NotFoundException.topic(topic);
		}
		if (max != null) {
			ReplayResult result = this.operations.replayDeadJobs(topic, max);
			return new ActionDescriptor(topic, "replay", result.count(), result.ids());
		}
		ReplayResult round;
		do {
			round = this.operations.replayDeadJobs(topic, DelayQueueOperations.MAX_REPLAY);
			replayed.count += round.count();
			round.ids().stream().limit(ReplayResult.MAX_IDS - replayed.ids.size()).forEach(replayed.ids::add);
		}
		while (round.count() == DelayQueueOperations.MAX_REPLAY);
		return new ActionDescriptor(topic, "replay", replayed.count, replayed.ids);
	}

	/** What the finished rounds of a replay of every dead job did, for a failure's audit line. */
	private static final class Replayed {

		long count;

		final List<String> ids = new ArrayList<>();

	}

	private ActionDescriptor pauseOrResume(String topic, String action, @Nullable Integer max, @Nullable String id,
			@Nullable String listener) {
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
			throw new NotFoundException((listener != null)
					? "No listener '" + listener + "' on topic '" + topic + "' in this application"
					: "No listener on topic '" + topic + "' in this application");
		}
		matching.forEach(action.equals("pause") ? DelayedListenerContainer::pause : DelayedListenerContainer::resume);
		return new ActionDescriptor(topic, action, matching.size(),
				matching.stream().map(DelayedListenerContainer::getId).toList());
	}

	private boolean isKnown(String topic) {
		return this.operations.stats().topics().containsKey(topic)
				|| this.containers.get().stream().anyMatch((container) -> container.getTopic().equals(topic));
	}

	/** Runs a write; when it throws, writes the audit line marked failed. */
	private static <T> T audited(AuditLog.Entry entry, Supplier<T> write) {
		try {
			return write.get();
		}
		catch (RuntimeException | Error ex) {
			AuditLog.write(entry.failed(ex));
			throw ex;
		}
	}

	private AuditLog.Entry entry(@Nullable String who, String topic, String action, long count, List<String> ids) {
		return AuditLog.entry(this.via, who, action).topic(topic).count(count).ids(ids);
	}

}
