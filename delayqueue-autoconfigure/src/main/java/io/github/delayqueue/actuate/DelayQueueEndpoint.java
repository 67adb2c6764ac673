package io.github.delayqueue.actuate;

import java.security.Principal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.delayqueue.actuate.EndpointDescriptors.ActionDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.BucketDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.InstanceDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.JobDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.JobPageDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.ListenerDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.QueueDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.RecurringActionDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.RecurringDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.RepairDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.TopicDescriptor;
import io.github.delayqueue.actuate.EndpointDescriptors.WaitingJobsDescriptor;
import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.WaitingJobPage;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.recurring.RecurringAction;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobs;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code delayqueue} Actuator endpoint: reads the queue, its topics, jobs and dead jobs;
 * repairs the queue, replays dead jobs, cancels jobs, pauses and resumes listeners and
 * recurring jobs. An unknown topic, job or listener is a {@link NotFoundException}, a bad
 * argument an {@link InvalidArgumentException}. Each write, refused ones aside, is one
 * {@link AuditLog} line, also when it finds nothing or fails part way.
 */
@Endpoint(id = "delayqueue")
public class DelayQueueEndpoint {

	static final int DEFAULT_PAGE = 20;

	private final DelayQueueOperations operations;

	private final Supplier<Collection<DelayedListenerContainer>> containers;

	private final @Nullable String instanceId;

	private final boolean showPayloads;

	private final @Nullable RecurringJobs recurringJobs;

	private final String via;

	/**
	 * Creates the endpoint.
	 * @param operations the queue
	 * @param containers this application's listener containers
	 * @param instanceId this instance's name among the timer owners, or {@code null}
	 * @param showPayloads whether dead jobs (and recurring jobs) are shown with their payloads
	 * @param recurringJobs the namespace's recurring jobs, or {@code null} for none
	 * @param via how the audit log names the way in: {@code endpoint}, {@code dashboard}
	 */
	public DelayQueueEndpoint(DelayQueueOperations operations,
			Supplier<Collection<DelayedListenerContainer>> containers, @Nullable String instanceId,
			boolean showPayloads, @Nullable RecurringJobs recurringJobs, String via) {
		this.operations = operations;
		this.containers = containers;
		this.instanceId = instanceId;
		this.showPayloads = showPayloads;
		this.recurringJobs = recurringJobs;
		this.via = via;
	}

	/**
	 * The whole queue: buckets, topics with their listeners, totals.
	 * @return the queue's figures as read now
	 */
	@ReadOperation
	public QueueDescriptor queue() {
		QueueStats stats = this.operations.stats();
		Map<String, List<ListenerDescriptor>> listeners = ListenerDescriptor.byTopic(this.containers.get());
		Map<String, TopicDescriptor> topics = new TreeMap<>();
		Stream.of(stats.topics().keySet(), listeners.keySet(), stats.completed().keySet())
			.flatMap(Set::stream)
			.forEach((topic) -> topics.computeIfAbsent(topic, (name) -> TopicDescriptor.of(name, stats,
					this.operations.rateLimit(name), listeners.getOrDefault(name, List.of()), null, null)));
		List<BucketDescriptor> buckets = stats.buckets().stream().map(BucketDescriptor::of).toList();
		List<RecurringDescriptor> recurring = (this.recurringJobs != null) ? this.recurringJobs.list()
			.stream()
			.map((info) -> RecurringDescriptor.of(info, this.showPayloads))
			.toList() : List.of();
		return new QueueDescriptor(this.instanceId, stats.readAt(), stats.oldestOverdueLag().toMillis(),
				stats.totals(), buckets, topics, recurring,
				InstanceDescriptor.of(this.operations.instances(), stats, this.instanceId));
	}

	/**
	 * One job, in whatever state it is.
	 * @param topic the topic
	 * @param id the job id
	 * @return the job
	 * @throws NotFoundException when there is no such job
	 */
	@ReadOperation
	public JobDescriptor job(@Selector String topic, @Selector String id) {
		checkTopic(topic);
		argument("id", () -> JobConstraints.id(id));
		return this.operations.find(topic, id)
			.map((job) -> JobDescriptor.of(job, this.showPayloads))
			.orElseThrow(() -> new NotFoundException("No job '" + id + "' in topic '" + topic + "'"));
	}

	/**
	 * One topic as {@link #topic(String, String, String, Integer)} reads it or, with {@code state},
	 * a page of its DELAYED, READY or RESERVED jobs.
	 * @param topic the topic
	 * @param cursor the {@code next} of the previous page of dead (or {@code state}) jobs, or {@code null}
	 * @param completedCursor the {@code next} of the previous page of finished jobs, or {@code null};
	 * refused with {@code state}
	 * @param limit the most jobs of each page (default {@value #DEFAULT_PAGE})
	 * @param state {@code DELAYED}, {@code READY}, {@code RESERVED}, or {@code null} for the topic
	 * @return a {@link TopicDescriptor} or a {@link WaitingJobsDescriptor}
	 * @throws NotFoundException when the topic has no jobs, no kept finished jobs and no listeners
	 */
	@ReadOperation
	public OperationResponseBody read(@Selector String topic, @Nullable String cursor,
			@Nullable String completedCursor, @Nullable Integer limit, @Nullable String state) {
		if (state == null) {
			return topic(topic, cursor, completedCursor, limit);
		}
		checkTopic(topic);
		if (completedCursor != null) {
			throw new InvalidArgumentException("completedCursor",
					"completedCursor must not be given with state: it pages the topic's finished jobs, cursor pages the waiting ones");
		}
		int size = pageSize(limit);
		JobState waiting = argument("state", () -> JobConstraints.waitingState(state));
		WaitingJobPage page = argument("cursor",
				() -> this.operations.waitingJobs(topic, waiting, cursor, size, this.showPayloads));
		return WaitingJobsDescriptor.of(topic, waiting, this.operations.stats(topic), page, this.showPayloads);
	}

	/**
	 * One topic with a page of its dead jobs and, when it keeps any, of its finished jobs.
	 * @param topic the topic
	 * @param cursor the {@code next} of the previous page of dead jobs, or {@code null}
	 * @param completedCursor the {@code next} of the previous page of finished jobs, or {@code null}
	 * @param limit the most jobs of each page (default {@value #DEFAULT_PAGE})
	 * @return the topic
	 * @throws NotFoundException when the topic has no jobs, no kept finished jobs and no listeners
	 */
	public TopicDescriptor topic(String topic, @Nullable String cursor, @Nullable String completedCursor,
			@Nullable Integer limit) {
		checkTopic(topic);
		int size = pageSize(limit);
		QueueStats stats = this.operations.stats(topic);
		List<ListenerDescriptor> listeners = ListenerDescriptor.byTopic(this.containers.get())
			.getOrDefault(topic, List.of());
		CompletedJobPage completed = argument("completedCursor",
				() -> this.operations.completedJobs(topic, completedCursor, size, this.showPayloads));
		requireKnown(topic, stats, completed::total);
		DeadJobPage page = argument("cursor", () -> this.operations.deadJobs(topic, cursor, size, this.showPayloads));
		JobPageDescriptor dead = JobPageDescriptor.of(page.total(), page.jobs(), page.next(), this.showPayloads);
		JobPageDescriptor kept = (completed.total() > 0) ? JobPageDescriptor.of(completed.total(), completed.jobs(),
				completed.next(), this.showPayloads) : null;
		return TopicDescriptor.of(topic, stats, this.operations.rateLimit(topic), listeners, dead, kept);
	}

	/**
	 * Repairs the queue, or pauses, resumes or triggers a recurring job.
	 * @param securityContext who asks, for the audit log
	 * @param action {@code repair}, or {@code pause}, {@code resume} or {@code trigger}
	 * @param dryRun for {@code repair}: {@code true} to only count what would be repaired
	 * @param recurring the recurring job's name, for the actions other than {@code repair}
	 * @return a {@link RepairDescriptor} or a {@link RecurringActionDescriptor}
	 */
	@WriteOperation
	public OperationResponseBody write(SecurityContext securityContext, String action, @Nullable Boolean dryRun,
			@Nullable String recurring) {
		if (recurring != null || RecurringAction.named(action).isPresent()) {
			return recurring(who(securityContext), action, dryRun, recurring);
		}
		if (!"repair".equals(action)) {
			throw new InvalidArgumentException("action",
					"action must be one of repair, pause, resume, trigger, was '" + action + "'");
		}
		return repair(who(securityContext), dryRun);
	}

	/**
	 * Replays dead jobs of a topic, pauses or resumes its listeners, or makes a waiting job due now.
	 * @param securityContext who asks, for the audit log
	 * @param topic the topic
	 * @param action {@code replay}, {@code pause}, {@code resume} or {@code run}
	 * @param max for {@code replay}: the most jobs to replay (default all)
	 * @param id for {@code replay}: the one job to replay; for {@code run}: the job
	 * @param listener for {@code pause} / {@code resume}: the listener id (default all)
	 * @return what was done
	 */
	@WriteOperation
	public ActionDescriptor act(SecurityContext securityContext, @Selector String topic, String action,
			@Nullable Integer max, @Nullable String id, @Nullable String listener) {
		checkTopic(topic);
		AuditLog.Entry entry = AuditLog.entry(this.via, who(securityContext), action).topic(topic);
		return entry.run(() -> switch (action) {
			case "replay" -> replay(entry, topic, max, id, listener);
			case "pause", "resume" -> pauseOrResume(entry, topic, action, max, id, listener);
			case "run" -> runNow(entry, topic, id, (max != null) ? "max" : (listener != null) ? "listener" : null);
			default -> throw new InvalidArgumentException("action",
					"action must be one of replay, pause, resume, run, was '" + action + "'");
		});
	}

	/**
	 * Cancels a job.
	 * @param securityContext who asks, for the audit log
	 * @param topic the topic
	 * @param id the job id
	 * @return what was done
	 */
	@DeleteOperation
	public ActionDescriptor cancel(SecurityContext securityContext, @Selector String topic, @Selector String id) {
		checkTopic(topic);
		argument("id", () -> JobConstraints.id(id));
		AuditLog.Entry entry = AuditLog.entry(this.via, who(securityContext), "cancel").topic(topic).ids(List.of(id));
		return entry.run(() -> {
			if (!this.operations.cancel(topic, id)) {
				throw new NotFoundException("No job '" + id + "' in topic '" + topic + "'");
			}
			return done(entry, new ActionDescriptor(topic, "cancel", 1, List.of(id)));
		});
	}

	private RecurringActionDescriptor recurring(@Nullable String who, String action, @Nullable Boolean dryRun,
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
		return entry.run(() -> {
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

	private RepairDescriptor repair(@Nullable String who, @Nullable Boolean dryRun) {
		boolean write = dryRun == null || !dryRun;
		AuditLog.Entry entry = AuditLog.entry(this.via, who, write ? "repair" : "repair-dry-run");
		// buckets repaired before a failure stay repaired
		return entry.run(() -> {
			RepairResult result = this.operations.repair(write);
			entry.count(result.reindexed() + result.dropped() + result.countsCorrected())
				.detail("jobs", result.jobs())
				.detail("reindexed", result.reindexed())
				.detail("dropped", result.dropped())
				.detail("countsCorrected", result.countsCorrected());
			return new RepairDescriptor("repair", write, result);
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
		requireKnown(topic, this.operations.stats(topic),
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

	private static @Nullable String who(@Nullable SecurityContext securityContext) {
		Principal principal = (securityContext != null) ? securityContext.getPrincipal() : null;
		return (principal != null) ? principal.getName() : null;
	}

	private static int pageSize(@Nullable Integer limit) {
		int size = (limit != null) ? limit : DEFAULT_PAGE;
		return argument("limit", () -> JobConstraints.max("limit", size, DelayQueueOperations.MAX_DEAD_PAGE));
	}

	/** Refuses a topic with no jobs, no listener here and no {@code kept} finished jobs (asked last). */
	private void requireKnown(String topic, QueueStats stats, LongSupplier kept) {
		if (!stats.topics().containsKey(topic)
				&& this.containers.get().stream().noneMatch((container) -> container.getTopic().equals(topic))
				&& kept.getAsLong() == 0) {
			throw new NotFoundException(
					"No topic '" + topic + "': it has no jobs, no kept finished jobs and no listeners");
		}
	}

	private static void checkTopic(String topic) {
		argument("topic", () -> JobConstraints.topic(topic));
	}

	/** Runs a call, turning its {@link IllegalArgumentException} into a refusal of the field. */
	private static <T> T argument(String field, Supplier<T> call) {
		try {
			return call.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidArgumentException(field, Objects.requireNonNullElse(ex.getMessage(), field + " is invalid"));
		}
	}

	/** A topic, job or listener that does not exist. */
	public static class NotFoundException extends RuntimeException {

		/** Creates the exception; {@code message} says what was not found. */
		public NotFoundException(String message) {
			super(message);
		}

	}

	/** An argument of an operation that breaks its rule. */
	public static class InvalidArgumentException extends InvalidEndpointRequestException {

		private final @Nullable String field;

		public InvalidArgumentException(@Nullable String field, String message) {
			super(message, "Bad argument");
			this.field = field;
		}

		/** The name of the argument at fault, or {@code null} when the request as a whole is. */
		public @Nullable String getField() {
			return this.field;
		}

	}

}
