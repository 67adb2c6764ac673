package io.github.delayqueue.actuate;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

import io.github.delayqueue.core.AuditLog;
import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.BucketStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.recurring.RecurringAction;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
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
 * The {@code delayqueue} Actuator endpoint: what the queue holds, bucket by bucket and topic
 * by topic, which listeners consume it, and the dead jobs; replays dead jobs, cancels a job,
 * pauses and resumes listeners.
 *
 * <ul>
 * <li>{@code GET /actuator/delayqueue}: buckets, topics with their listeners, totals, the
 * oldest overdue job's lag, recurring jobs, and the instances that run the bucket timers
 * with their heartbeats.</li>
 * <li>{@code GET /actuator/delayqueue/{topic}?limit=20&cursor=...}: one topic with a page of
 * its dead jobs, oldest deaths first; {@code cursor} is the {@code next} of the page before
 * (payloads only with {@code delayqueue.endpoint.show-payloads=true}).</li>
 * <li>{@code POST /actuator/delayqueue} with {@code {"action":"repair"}}: brings every bucket
 * back to the queue's invariant from the job records ({@code "dryRun":true} only counts).</li>
 * <li>{@code POST /actuator/delayqueue/{topic}} with {@code {"action":"replay"}} (all dead
 * jobs), {@code {"action":"replay","max":N}}, {@code {"action":"replay","id":"..."}},
 * {@code {"action":"pause"}} / {@code {"action":"resume"}} (every listener of the topic) or
 * with {@code "listener":"<id>"} (one).</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/{id}}: one job in any state, with its due
 * time, attempts and last error (its payload only with
 * {@code delayqueue.endpoint.show-payloads=true}).</li>
 * <li>{@code DELETE /actuator/delayqueue/{topic}/{id}}: cancels a job (a DEAD one too).</li>
 * <li>{@code POST /actuator/delayqueue} with {@code {"action":"pause","recurring":"<name>"}},
 * {@code "resume"} or {@code "trigger"}: pauses, resumes or triggers a recurring job (the
 * root read lists them with their next fire time and last occurrence).</li>
 * </ul>
 * An unknown topic, job or listener is a {@link NotFoundException}, a bad argument an
 * {@link InvalidArgumentException} naming it; over the web both are
 * {@code application/problem+json} answers (404 and 400, see
 * {@link DelayQueueEndpointInvokerAdvisor}). Every write is written to the audit log
 * ({@link AuditLog}), with the principal of the request when there is one.
 *
 * <p>
 * Longer than most classes here because its answers are nested records, as Spring Boot's own
 * endpoints nest their descriptors: the operations themselves take about 300 lines.
 */
@Endpoint(id = "delayqueue")
public class DelayQueueEndpoint {

	static final int DEFAULT_PAGE = 20;

	/** How the audit log names writes through this endpoint. */
	static final String VIA = "endpoint";

	private final String via;

	private final DelayQueueOperations operations;

	private final Supplier<Collection<DelayedListenerContainer>> containers;

	private final @Nullable String instanceId;

	private final boolean showPayloads;

	private final @Nullable RecurringJobs recurringJobs;

	/**
	 * Creates the endpoint without recurring jobs.
	 * @param operations the queue
	 * @param containers this application's listener containers
	 * @param instanceId this instance's name among the timer owners, or {@code null}
	 * @param showPayloads whether dead jobs are shown with their payloads
	 */
	public DelayQueueEndpoint(DelayQueueOperations operations,
			Supplier<Collection<DelayedListenerContainer>> containers, @Nullable String instanceId,
			boolean showPayloads) {
		this(operations, containers, instanceId, showPayloads, null);
	}

	/**
	 * Creates the endpoint.
	 * @param operations the queue
	 * @param containers this application's listener containers
	 * @param instanceId this instance's name among the timer owners, or {@code null}
	 * @param showPayloads whether dead jobs (and recurring jobs) are shown with their payloads
	 * @param recurringJobs the namespace's recurring jobs, or {@code null} for none
	 */
	public DelayQueueEndpoint(DelayQueueOperations operations,
			Supplier<Collection<DelayedListenerContainer>> containers, @Nullable String instanceId,
			boolean showPayloads, @Nullable RecurringJobs recurringJobs) {
		this(operations, containers, instanceId, showPayloads, recurringJobs, VIA);
	}

	/**
	 * Creates the endpoint for another way in, such as the dashboard, whose writes the audit
	 * log names as coming through it.
	 * @param operations the queue
	 * @param containers this application's listener containers
	 * @param instanceId this instance's name among the timer owners, or {@code null}
	 * @param showPayloads whether dead jobs (and recurring jobs) are shown with their payloads
	 * @param recurringJobs the namespace's recurring jobs, or {@code null} for none
	 * @param via how the audit log names the way in ({@code endpoint} for this endpoint)
	 */
	public DelayQueueEndpoint(DelayQueueOperations operations,
			Supplier<Collection<DelayedListenerContainer>> containers, @Nullable String instanceId,
			boolean showPayloads, @Nullable RecurringJobs recurringJobs, String via) {
		this.via = via;
		this.operations = operations;
		this.containers = containers;
		this.instanceId = instanceId;
		this.showPayloads = showPayloads;
		this.recurringJobs = recurringJobs;
	}

	/**
	 * The whole queue: buckets, topics with their listeners, totals.
	 * @return the queue's figures as read now
	 */
	@ReadOperation
	public QueueDescriptor queue() {
		QueueStats stats = this.operations.stats();
		Map<String, List<ListenerDescriptor>> listeners = listenersByTopic();
		Map<String, TopicDescriptor> topics = new TreeMap<>();
		Set<String> names = new TreeSet<>(stats.topics().keySet());
		names.addAll(listeners.keySet());
		names.addAll(stats.completed().keySet());
		names.forEach((topic) -> topics.put(topic, TopicDescriptor.of(topic, stats, rateLimit(topic),
				listeners.getOrDefault(topic, List.of()), null, null)));
		List<BucketDescriptor> buckets = stats.buckets().stream().map(BucketDescriptor::of).toList();
		List<RecurringDescriptor> recurring = (this.recurringJobs != null) ? this.recurringJobs.list()
			.stream()
			.map((info) -> RecurringDescriptor.of(info, this.showPayloads))
			.toList() : List.of();
		return new QueueDescriptor(this.instanceId, stats.readAt(), stats.oldestOverdueLag().toMillis(),
				Figures.of(stats.totals()), buckets, topics, recurring, instances(stats));
	}

	private List<InstanceDescriptor> instances(QueueStats stats) {
		Map<String, List<Integer>> timers = new TreeMap<>();
		for (BucketStats bucket : stats.buckets()) {
			if (bucket.timerOwner() != null) {
				timers.computeIfAbsent(bucket.timerOwner(), (owner) -> new ArrayList<>()).add(bucket.bucket());
			}
		}
		List<InstanceDescriptor> instances = new ArrayList<>();
		this.operations.instances()
			.forEach((name, expiresAt) -> instances.add(new InstanceDescriptor(name, name.equals(this.instanceId),
					expiresAt, expiresAt.isAfter(stats.readAt()), timers.getOrDefault(name, List.of()))));
		return instances;
	}

	/**
	 * One job, in whatever state it is.
	 * @param topic the topic
	 * @param id the job id
	 * @return the job (its payload and headers only with
	 * {@code delayqueue.endpoint.show-payloads=true})
	 * @throws NotFoundException when there is no such job (never scheduled, cancelled, or
	 * finished and not kept)
	 */
	@ReadOperation
	public JobDescriptor job(@Selector String topic, @Selector String id) {
		checkTopic(topic);
		argument("id", () -> JobConstraints.id(id));
		return this.operations.find(topic, id)
			.map((job) -> JobDescriptor.of(job, this.showPayloads))
			.orElseThrow(() -> new NotFoundException("No job '" + id + "' in topic '" + topic + "'"));
	}

	private @Nullable String rateLimit(String topic) {
		return this.operations.rateLimit(topic).map(RateLimit::toString).orElse(null);
	}

	/**
	 * One topic with a page of its dead jobs, and a page of the finished jobs it keeps (when
	 * it keeps any: {@code delayqueue.retention.<topic>.*}).
	 * @param topic the topic
	 * @param cursor the {@code next} of the page of dead jobs before, or {@code null} for the
	 * first
	 * @param completedCursor the {@code next} of the page of finished jobs before, or
	 * {@code null} for the first (the latest finishes)
	 * @param limit the most jobs of each page (default {@value #DEFAULT_PAGE})
	 * @return the topic
	 * @throws NotFoundException when the topic has no jobs, no kept finished jobs and no
	 * listeners
	 */
	@ReadOperation
	public TopicDescriptor topic(@Selector String topic, @Nullable String cursor, @Nullable String completedCursor,
			@Nullable Integer limit) {
		checkTopic(topic);
		int size = (limit != null) ? limit : DEFAULT_PAGE;
		argument("limit", () -> JobConstraints.max("limit", size, DelayQueueOperations.MAX_DEAD_PAGE));
		QueueStats stats = this.operations.stats();
		List<ListenerDescriptor> listeners = listenersByTopic().getOrDefault(topic, List.of());
		CompletedJobPage completed = argument("completedCursor",
				() -> this.operations.completedJobs(topic, completedCursor, size, this.showPayloads));
		if (!stats.topics().containsKey(topic) && listeners.isEmpty() && completed.total() == 0) {
			throw NotFoundException.topic(topic);
		}
		DeadJobPage page = argument("cursor", () -> this.operations.deadJobs(topic, cursor, size, this.showPayloads));
		return TopicDescriptor.of(topic, stats, rateLimit(topic), listeners, DeadJobsDescriptor.of(page, this.showPayloads),
				(completed.total() > 0) ? CompletedJobsDescriptor.of(completed, this.showPayloads) : null);
	}

	/**
	 * Repairs the queue, or pauses, resumes or triggers a recurring job.
	 * @param securityContext who asks, for the audit log
	 * @param action {@code repair}, or {@code pause}, {@code resume} or {@code trigger} with
	 * {@code recurring}
	 * @param dryRun for {@code repair}: {@code true} to only count what would be repaired
	 * @param recurring the recurring job's name for {@code pause}, {@code resume} and
	 * {@code trigger}
	 * @return a {@link RepairDescriptor} or a {@link RecurringActionDescriptor}
	 */
	@WriteOperation
	public OperationResponseBody write(SecurityContext securityContext, String action, @Nullable Boolean dryRun,
			@Nullable String recurring) {
		if (recurring != null || RecurringAction.named(action).isPresent()) {
			return recurring(securityContext, action, dryRun, recurring);
		}
		if (!"repair".equals(action)) {
			throw new InvalidArgumentException("action",
					"action must be one of repair, pause, resume, trigger, was '" + action + "'");
		}
		return repair(securityContext, dryRun);
	}

	private RecurringActionDescriptor recurring(SecurityContext securityContext, String action,
			@Nullable Boolean dryRun, @Nullable String name) {
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
		AuditLog.Entry entry = AuditLog.entry(this.via, who(securityContext), action + "-recurring").detail("recurring", name);
		RecurringAction.Result result;
		try {
			result = recurringAction.apply(jobs, name);
		}
		catch (RuntimeException | Error ex) {
			AuditLog.write(entry.failed(ex));
			throw ex;
		}
		if (result.occurrence() != null) {
			entry.detail("occurrence", result.occurrence());
		}
		AuditLog.write(entry.count(result.found() ? 1 : 0));
		if (!result.found()) {
			throw new NotFoundException("No recurring job '" + name + "'");
		}
		return new RecurringActionDescriptor(name, action, result.occurrence());
	}

	private RepairDescriptor repair(SecurityContext securityContext, @Nullable Boolean dryRun) {
		boolean write = dryRun == null || !dryRun;
		RepairDescriptor repaired;
		try {
			repaired = RepairDescriptor.of(this.operations.repair(write), write);
		}
		catch (RuntimeException | Error ex) {
			// buckets repaired before the failure stay repaired
			AuditLog.write(AuditLog.entry(this.via, who(securityContext), write ? "repair" : "repair-dry-run")
				.failed(ex));
			throw ex;
		}
		AuditLog.write(AuditLog.entry(this.via, who(securityContext), write ? "repair" : "repair-dry-run")
			.count(repaired.reindexed() + repaired.dropped() + repaired.countsCorrected())
			.detail("jobs", repaired.jobs())
			.detail("reindexed", repaired.reindexed())
			.detail("dropped", repaired.dropped())
			.detail("countsCorrected", repaired.countsCorrected()));
		return repaired;
	}

	/**
	 * Replays dead jobs of a topic, or pauses or resumes its listeners.
	 * @param securityContext who asks, for the audit log
	 * @param topic the topic
	 * @param action {@code replay}, {@code pause} or {@code resume}
	 * @param max for {@code replay}: the most jobs to replay (default all)
	 * @param id for {@code replay}: the one job to replay
	 * @param listener for {@code pause} / {@code resume}: the listener id (default every
	 * listener of the topic)
	 * @return what was done
	 */
	@WriteOperation
	public ActionDescriptor act(SecurityContext securityContext, @Selector String topic, String action,
			@Nullable Integer max, @Nullable String id, @Nullable String listener) {
		checkTopic(topic);
		ActionDescriptor done;
		Replayed replayed = new Replayed();
		try {
			done = switch (action) {
				case "replay" -> replay(topic, max, id, listener, replayed);
				case "pause", "resume" -> pauseOrResume(topic, action, max, id, listener);
				default -> throw new InvalidArgumentException("action",
						"action must be one of replay, pause, resume, was '" + action + "'");
			};
		}
		catch (NotFoundException ex) {
			// asked for and found nothing: a write all the same
			String named = (id != null) ? id : listener;
			audit(securityContext, new ActionDescriptor(topic, action, 0, (named != null) ? List.of(named) : List.of()));
			throw ex;
		}
		catch (InvalidArgumentException ex) {
			throw ex; // refused before anything was changed
		}
		catch (RuntimeException | Error ex) {
			// what the rounds before the failure did stays done: the line says how much
			AuditLog.write(entry(securityContext,
					new ActionDescriptor(topic, action, replayed.count, (id != null) ? List.of(id) : replayed.ids))
				.failed(ex));
			throw ex;
		}
		audit(securityContext, done);
		return done;
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
		boolean cancelled;
		try {
			cancelled = this.operations.cancel(topic, id);
		}
		catch (RuntimeException | Error ex) {
			AuditLog.write(entry(securityContext, new ActionDescriptor(topic, "cancel", 0, List.of(id)))
				.failed(ex));
			throw ex;
		}
		ActionDescriptor done = new ActionDescriptor(topic, "cancel", cancelled ? 1 : 0, List.of(id));
		audit(securityContext, done);
		if (!cancelled) {
			throw new NotFoundException("No job '" + id + "' in topic '" + topic + "'");
		}
		return done;
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

	/**
	 * What the finished rounds of a replay of every dead job did, for the audit line of a
	 * replay that fails after some rounds.
	 */
	private static final class Replayed {

		long count;

		final List<String> ids = new ArrayList<>();

	}

	private ActionDescriptor pauseOrResume(String topic, String action, @Nullable Integer max, @Nullable String id,
			@Nullable String listener) {
		if (max != null || id != null) {
			throw new InvalidArgumentException((max != null) ? "max" : "id",
					((max != null) ? "max" : "id") + " applies to replay, not to " + action);
		}
		List<DelayedListenerContainer> matching = new ArrayList<>();
		for (DelayedListenerContainer container : this.containers.get()) {
			if (container.getTopic().equals(topic) && (listener == null || container.getId().equals(listener))) {
				matching.add(container);
			}
		}
		if (matching.isEmpty()) {
			throw new NotFoundException((listener != null)
					? "No listener '" + listener + "' on topic '" + topic + "' in this application"
					: "No listener on topic '" + topic + "' in this application");
		}
		List<String> ids = new ArrayList<>();
		for (DelayedListenerContainer container : matching) {
			if (action.equals("pause")) {
				container.pause();
			}
			else {
				container.resume();
			}
			ids.add(container.getId());
		}
		return new ActionDescriptor(topic, action, ids.size(), ids);
	}

	private boolean isKnown(String topic) {
		return this.operations.stats().topics().containsKey(topic) || listenersByTopic().containsKey(topic);
	}

	private Map<String, List<ListenerDescriptor>> listenersByTopic() {
		Map<String, List<ListenerDescriptor>> byTopic = new TreeMap<>();
		for (DelayedListenerContainer container : this.containers.get()) {
			byTopic.computeIfAbsent(container.getTopic(), (t) -> new ArrayList<>())
				.add(ListenerDescriptor.of(container));
		}
		return byTopic;
	}

	private void audit(SecurityContext securityContext, ActionDescriptor done) {
		AuditLog.write(entry(securityContext, done));
	}

	private AuditLog.Entry entry(SecurityContext securityContext, ActionDescriptor done) {
		return AuditLog.entry(this.via, who(securityContext), done.action())
			.topic(done.topic())
			.count(done.count())
			.ids(done.ids());
	}

	private static @Nullable String who(@Nullable SecurityContext securityContext) {
		Principal principal = (securityContext != null) ? securityContext.getPrincipal() : null;
		return (principal != null) ? principal.getName() : null;
	}

	private static void checkTopic(String topic) {
		argument("topic", () -> JobConstraints.topic(topic));
	}

	/**
	 * Runs a call whose {@link IllegalArgumentException} is the caller's mistake with a field.
	 */
	@SuppressWarnings("NullAway") // the rules it runs throw with a message
	private static <T> T argument(String field, Supplier<T> call) {
		try {
			return call.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidArgumentException(field, ex.getMessage());
		}
	}

	/**
	 * A topic, job or listener that does not exist.
	 */
	public static class NotFoundException extends RuntimeException {

		/**
		 * Creates the exception.
		 * @param message what was not found
		 */
		public NotFoundException(String message) {
			super(message);
		}

		static NotFoundException topic(String topic) {
			return new NotFoundException("No topic '" + topic + "': it has no jobs and no listeners");
		}

	}

	/**
	 * An argument of an operation that breaks its rule: the message names the field and the
	 * rule.
	 */
	public static class InvalidArgumentException extends InvalidEndpointRequestException {

		private final @Nullable String field;

		public InvalidArgumentException(@Nullable String field, String message) {
			super(message, "Bad argument");
			this.field = field;
		}

		/**
		 * The argument at fault.
		 * @return its name, as the request gives it, or {@code null} when the request as a
		 * whole is
		 */
		public @Nullable String getField() {
			return this.field;
		}

	}

	/**
	 * The whole queue.
	 *
	 * @param instance this instance's name among the timer owners
	 * @param readAt Redis's time when the figures were read
	 * @param oldestOverdueLagMillis how long the oldest job that is due but not delivered
	 * has waited
	 * @param totals all topics together
	 * @param buckets each bucket
	 * @param topics each topic with jobs or listeners
	 */
	public record QueueDescriptor(@Nullable String instance, Instant readAt, long oldestOverdueLagMillis,
			Figures totals, List<BucketDescriptor> buckets, Map<String, TopicDescriptor> topics,
			List<RecurringDescriptor> recurring, List<InstanceDescriptor> instances) implements OperationResponseBody {

	}

	/**
	 * An instance that takes part in running the bucket timers.
	 *
	 * @param name its name
	 * @param self whether it is the instance that answers
	 * @param heartbeatExpiresAt when its heartbeat runs out unless renewed
	 * @param live whether that time is still ahead (one that ran out is removed at the next
	 * coordination, and its buckets taken over)
	 * @param buckets the buckets whose timers it runs
	 */
	public record InstanceDescriptor(String name, boolean self, Instant heartbeatExpiresAt, boolean live,
			List<Integer> buckets) {

	}

	/**
	 * One job.
	 *
	 * @param topic its topic
	 * @param id its id
	 * @param state {@code DELAYED}, {@code READY}, {@code RESERVED}, {@code DEAD} or
	 * {@code COMPLETED} (a finished job the topic keeps)
	 * @param dueAt its due time
	 * @param attempt deliveries so far
	 * @param maxAttempts deliveries it may have
	 * @param ttrMillis its time to run
	 * @param createdAt when it was scheduled, or {@code null} when not known
	 * @param reservedUntil while RESERVED, when its reservation runs out
	 * @param diedAt when DEAD, when it died
	 * @param finishedAt when COMPLETED, when it finished
	 * @param lastError the error of its last failed delivery, or {@code null}
	 * @param priority its priority
	 * @param payload its payload as text, when payloads are shown
	 * @param headers its own headers, when payloads are shown and it has any
	 */
	public record JobDescriptor(String topic, String id, String state, Instant dueAt, int attempt, int maxAttempts,
			long ttrMillis, @Nullable Instant createdAt, @Nullable Instant reservedUntil, @Nullable Instant diedAt,
			@Nullable Instant finishedAt, @Nullable String lastError, int priority, @Nullable String payload,
			@Nullable Map<String, String> headers) implements OperationResponseBody {

		static JobDescriptor of(JobInfo job, boolean payloads) {
			return new JobDescriptor(job.topic(), job.id(), job.state().name(), job.dueAt(), job.attempt(),
					job.maxAttempts(), job.ttr().toMillis(), job.createdAt(), job.reservedUntil(), job.diedAt(),
					job.finishedAt(), job.lastError(), job.priority(), payloads ? job.payloadAsString() : null,
					(payloads && !job.headers().isEmpty()) ? job.headers() : null);
		}

	}

	/**
	 * A recurring job.
	 *
	 * @param name its name
	 * @param topic the topic of its occurrences
	 * @param schedule its schedule ({@code cron '<expression>' in <zone>} or
	 * {@code every <period>})
	 * @param paused whether it is paused
	 * @param nextFireTime its next tick, or {@code null} while paused
	 * @param fired occurrences created
	 * @param skipped ticks that created none
	 * @param misfired ticks fired late
	 * @param lastFireTime the tick of the last occurrence, or {@code null}
	 * @param lastOccurrence the id of the last occurrence, or {@code null}
	 * @param lastOccurrenceState its state now ({@code DELAYED}, {@code READY},
	 * {@code RESERVED}, {@code DEAD}), or {@code GONE} once it left the queue (finished or
	 * cancelled), {@code null} when there is none
	 * @param misfirePolicy its misfire policy
	 * @param overlapPolicy its overlap policy
	 * @param declared whether it is declared in {@code delayqueue.recurring}
	 * @param payload its payload as text, only with {@code delayqueue.endpoint.show-payloads}
	 */
	public record RecurringDescriptor(String name, String topic, String schedule, boolean paused,
			@Nullable Instant nextFireTime, long fired, long skipped, long misfired, @Nullable Instant lastFireTime,
			@Nullable String lastOccurrence, @Nullable String lastOccurrenceState, String misfirePolicy,
			String overlapPolicy, boolean declared, @Nullable String payload) {

		static RecurringDescriptor of(RecurringJobInfo info, boolean showPayloads) {
			RecurringJob job = info.job();
			String lastState = (info.lastOccurrenceId() == null) ? null
					: (info.lastOccurrenceState() != null) ? info.lastOccurrenceState().name() : "GONE";
			return new RecurringDescriptor(info.name(), job.getTopic(), job.getSchedule().toString(), info.paused(),
					info.nextFireTime(), info.fired(), info.skipped(), info.misfired(), info.lastFireTime(),
					info.lastOccurrenceId(), lastState, job.getMisfirePolicy().name(), job.getOverlapPolicy().name(),
					job.isDeclared(), showPayloads ? job.getPayloadText() : null);
		}

	}

	/**
	 * What a pause, resume or trigger of a recurring job did.
	 *
	 * @param recurring the recurring job's name
	 * @param action {@code pause}, {@code resume} or {@code trigger}
	 * @param occurrence for a trigger, the id of the occurrence created
	 */
	public record RecurringActionDescriptor(String recurring, String action,
			@Nullable String occurrence) implements OperationResponseBody {

	}

	/**
	 * Jobs in each state.
	 *
	 * @param delayed waiting for their due time
	 * @param ready due, waiting for a consumer
	 * @param reserved held by consumers
	 * @param dead failed for good
	 */
	public record Figures(long delayed, long ready, long reserved, long dead) {

		static Figures of(TopicStats stats) {
			return new Figures(stats.delayed(), stats.ready(), stats.reserved(), stats.dead());
		}

	}

	/**
	 * One bucket.
	 *
	 * @param bucket the bucket number
	 * @param delayed DELAYED jobs (the delay queue's depth)
	 * @param ready READY jobs
	 * @param reserved RESERVED jobs
	 * @param dead DEAD jobs
	 * @param nextDueAt the earliest due time or TTR deadline its timer waits for
	 * @param timerOwner the instance that runs its timer
	 */
	public record BucketDescriptor(int bucket, long delayed, long ready, long reserved, long dead,
			@Nullable Instant nextDueAt, @Nullable String timerOwner) {

		static BucketDescriptor of(BucketStats stats) {
			TopicStats jobs = stats.jobs();
			return new BucketDescriptor(stats.bucket(), jobs.delayed(), jobs.ready(), jobs.reserved(), jobs.dead(),
					stats.nextDueAt(), stats.timerOwner());
		}

	}

	/**
	 * One topic.
	 *
	 * @param topic the topic
	 * @param delayed DELAYED jobs
	 * @param ready READY jobs
	 * @param reserved RESERVED jobs
	 * @param dead DEAD jobs
	 * @param overdueSince the due time of its oldest job that is due but not delivered
	 * @param overdueLagMillis how long that job has waited (0: none)
	 * @param completed the finished jobs it keeps, when this instance knows its retention
	 * @param rateLimit its rate limit in this instance ({@code 50/PT1S}), or {@code null}
	 * @param listeners this application's listeners of the topic
	 * @param deadJobs a page of its dead jobs (only in the topic's own view)
	 * @param completedJobs a page of the finished jobs it keeps, the latest first (only in the
	 * topic's own view, and only when it keeps any)
	 */
	public record TopicDescriptor(String topic, long delayed, long ready, long reserved, long dead,
			@Nullable Instant overdueSince, long overdueLagMillis, @Nullable Long completed,
			@Nullable String rateLimit, List<ListenerDescriptor> listeners, @Nullable DeadJobsDescriptor deadJobs,
			@Nullable CompletedJobsDescriptor completedJobs) implements OperationResponseBody {

		static TopicDescriptor of(String topic, QueueStats stats, @Nullable String rateLimit,
				List<ListenerDescriptor> listeners, @Nullable DeadJobsDescriptor deadJobs,
				@Nullable CompletedJobsDescriptor completedJobs) {
			TopicStats figures = stats.topics().getOrDefault(topic, TopicStats.EMPTY);
			return new TopicDescriptor(topic, figures.delayed(), figures.ready(), figures.reserved(), figures.dead(),
					figures.overdueSince(), figures.overdueLag(stats.readAt()).toMillis(), stats.completed().get(topic),
					rateLimit, listeners, deadJobs, completedJobs);
		}

	}

	/**
	 * One listener container.
	 *
	 * @param id the listener id
	 * @param state {@code running}, {@code paused} or {@code stopped}
	 * @param concurrency handlers it runs at once at most
	 * @param inFlight handlers running now
	 */
	public record ListenerDescriptor(String id, String state, int concurrency, int inFlight) {

		static ListenerDescriptor of(DelayedListenerContainer container) {
			return new ListenerDescriptor(container.getId(), container.getState(), container.getConcurrency(),
					container.getInFlight());
		}

	}

	/**
	 * A page of dead jobs, the oldest deaths first.
	 *
	 * @param total the topic's dead jobs
	 * @param jobs the page
	 * @param next the {@code cursor} of the next page, or {@code null} for the last page
	 */
	public record DeadJobsDescriptor(long total, List<DeadJobDescriptor> jobs, @Nullable String next) {

		static DeadJobsDescriptor of(DeadJobPage page, boolean payloads) {
			return new DeadJobsDescriptor(page.total(),
					page.jobs().stream().map((job) -> DeadJobDescriptor.of(job, payloads)).toList(), page.next());
		}

	}

	/**
	 * A page of the finished jobs a topic keeps, the latest finish first.
	 *
	 * @param total the finished jobs the topic keeps
	 * @param jobs the page
	 * @param next the {@code completedCursor} of the next page, or {@code null} for the last
	 * page
	 */
	public record CompletedJobsDescriptor(long total, List<CompletedJobDescriptor> jobs, @Nullable String next) {

		static CompletedJobsDescriptor of(CompletedJobPage page, boolean payloads) {
			return new CompletedJobsDescriptor(page.total(),
					page.jobs().stream().map((job) -> CompletedJobDescriptor.of(job, payloads)).toList(), page.next());
		}

	}

	/**
	 * One finished job a topic keeps.
	 *
	 * @param id the job id
	 * @param attempts the delivery that finished it (1 for the first)
	 * @param maxAttempts deliveries it could have had
	 * @param finishedAt when it finished
	 * @param runTimeMillis how long that delivery ran, from delivery to finish, or {@code null}
	 * when the consumer that finished it did not know its delivery (a reservation known only by
	 * its token, as the HTTP job API's)
	 * @param payload its payload as text, when payloads are shown and the topic keeps them
	 * @param headers its own headers, when payloads are shown, the topic keeps them and it has
	 * any
	 */
	public record CompletedJobDescriptor(String id, int attempts, int maxAttempts, Instant finishedAt,
			@Nullable Long runTimeMillis, @Nullable String payload, @Nullable Map<String, String> headers) {

		@SuppressWarnings("NullAway") // a page of finished jobs sets their finish times
		static CompletedJobDescriptor of(JobInfo job, boolean payloads) {
			return new CompletedJobDescriptor(job.id(), job.attempt(), job.maxAttempts(), job.finishedAt(),
					(job.runTime() != null) ? job.runTime().toMillis() : null, payloads ? job.payloadAsString() : null,
					(payloads && !job.headers().isEmpty()) ? job.headers() : null);
		}

	}

	/**
	 * What a repair did (or, as a dry run, would do).
	 *
	 * @param action {@code repair}
	 * @param written whether the repairs were written
	 * @param jobs the job records read
	 * @param reindexed jobs put back into the index their state names
	 * @param dropped index entries dropped because no job in that state had them, and last
	 * errors kept for jobs that no longer exist
	 * @param countsCorrected state count fields that were wrong or missing
	 * @param unreadable job records not in this version's format (left as they are)
	 */
	public record RepairDescriptor(String action, boolean written, long jobs, long reindexed, long dropped,
			long countsCorrected, long unreadable) implements OperationResponseBody {

		static RepairDescriptor of(RepairResult result, boolean written) {
			return new RepairDescriptor("repair", written, result.jobs(), result.reindexed(), result.dropped(),
					result.countsCorrected(), result.unreadable());
		}

	}

	/**
	 * One dead job.
	 *
	 * @param id the job id
	 * @param attempts deliveries it had
	 * @param maxAttempts deliveries it could have had
	 * @param diedAt when it died
	 * @param lastError the error it died of
	 * @param payload its payload as text, when payloads are shown
	 * @param headers its own headers, when payloads are shown and it has any
	 */
	public record DeadJobDescriptor(String id, int attempts, int maxAttempts, Instant diedAt,
			@Nullable String lastError, @Nullable String payload, @Nullable Map<String, String> headers) {

		@SuppressWarnings("NullAway") // a page of dead jobs sets their times of death
		static DeadJobDescriptor of(JobInfo job, boolean payloads) {
			return new DeadJobDescriptor(job.id(), job.attempt(), job.maxAttempts(), job.diedAt(), job.lastError(),
					(payloads && job.payload() != null) ? new String(job.payload(), StandardCharsets.UTF_8) : null,
					(payloads && !job.headers().isEmpty()) ? job.headers() : null);
		}

	}

	/**
	 * What a write or delete operation did.
	 *
	 * @param topic the topic
	 * @param action {@code replay}, {@code pause}, {@code resume} or {@code cancel}
	 * @param count jobs replayed or cancelled, or listeners paused or resumed
	 * @param ids the job or listener ids concerned: for a replay, the first
	 * {@value ReplayResult#MAX_IDS} jobs replayed (all of them when {@code count} is at most
	 * that)
	 */
	public record ActionDescriptor(String topic, String action, long count,
			List<String> ids) implements OperationResponseBody {

	}

}
