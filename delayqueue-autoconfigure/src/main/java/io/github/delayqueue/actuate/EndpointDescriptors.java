package io.github.delayqueue.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.BucketStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.WaitingJobPage;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The answers of the {@link DelayQueueEndpoint}, as Jackson writes them. Times are Redis's;
 * payloads and headers are {@code null} unless shown.
 */
public final class EndpointDescriptors {

	private EndpointDescriptors() {
	}

	/**
	 * The whole queue: {@code totals} are all topics together (without {@code overdueSince}),
	 * {@code instances} those that run the bucket timers.
	 */
	public record QueueDescriptor(@Nullable String instance, Instant readAt, long oldestOverdueLagMillis,
			@JsonIgnoreProperties("overdueSince") TopicStats totals, List<BucketDescriptor> buckets,
			Map<String, TopicDescriptor> topics, List<RecurringDescriptor> recurring,
			List<InstanceDescriptor> instances) implements OperationResponseBody {

	}

	/** An instance that takes part in running the bucket timers; {@code self}: the one that answers. */
	public record InstanceDescriptor(String name, boolean self, Instant heartbeatExpiresAt, boolean live,
			List<Integer> buckets) {

		static List<InstanceDescriptor> of(Map<String, Instant> heartbeats, QueueStats stats, @Nullable String self) {
			Map<String, List<Integer>> timers = new TreeMap<>();
			for (BucketStats bucket : stats.buckets()) {
				if (bucket.timerOwner() != null) {
					timers.computeIfAbsent(bucket.timerOwner(), (owner) -> new ArrayList<>()).add(bucket.bucket());
				}
			}
			List<InstanceDescriptor> instances = new ArrayList<>();
			heartbeats.forEach((name, expiresAt) -> instances.add(new InstanceDescriptor(name, name.equals(self),
					expiresAt, expiresAt.isAfter(stats.readAt()), timers.getOrDefault(name, List.of()))));
			return instances;
		}

	}

	/**
	 * One job, in any state ({@code COMPLETED} too); {@code reservedBy} names the instance that
	 * holds it on a page of RESERVED jobs.
	 */
	public record JobDescriptor(String topic, String id, String state, Instant dueAt, int attempt, int maxAttempts,
			long ttrMillis, @Nullable Instant createdAt, @Nullable Instant reservedUntil, @Nullable String reservedBy,
			@Nullable Instant diedAt, @Nullable Instant finishedAt, @Nullable String lastError, int priority,
			@Nullable String payload, @Nullable Map<String, String> headers) implements OperationResponseBody {

		static JobDescriptor of(JobInfo job, boolean payloads) {
			return new JobDescriptor(job.topic(), job.id(), job.state().name(), job.dueAt(), job.attempt(),
					job.maxAttempts(), job.ttr().toMillis(), job.createdAt(), job.reservedUntil(), job.reservedBy(),
					job.diedAt(), job.finishedAt(), job.lastError(), job.priority(),
					payloads ? job.payloadAsString() : null, shownHeaders(job, payloads));
		}

	}

	/**
	 * A recurring job; {@code lastOccurrenceState} is {@code GONE} once its last occurrence left
	 * the queue, and {@code payload} is shown only with {@code delayqueue.endpoint.show-payloads}.
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

	/** What a pause, resume or trigger of a recurring job did; a trigger names its occurrence. */
	public record RecurringActionDescriptor(String recurring, String action,
			@Nullable String occurrence) implements OperationResponseBody {

	}

	/** One bucket: its jobs in each state, the time its timer waits for and the instance that runs it. */
	public record BucketDescriptor(int bucket,
			@JsonUnwrapped @JsonIgnoreProperties("overdueSince") TopicStats jobs, @Nullable Instant nextDueAt,
			@Nullable String timerOwner) {

		static BucketDescriptor of(BucketStats stats) {
			return new BucketDescriptor(stats.bucket(), stats.jobs(), stats.nextDueAt(), stats.timerOwner());
		}

	}

	/**
	 * One topic: its jobs in each state, its overdue lag, the finished jobs it keeps (when this
	 * instance knows its retention), its rate limit here ({@code 50/PT1S}) and listeners; the
	 * pages of dead and kept finished jobs only in the topic's own view.
	 */
	public record TopicDescriptor(String topic, @JsonUnwrapped TopicStats jobs, long overdueLagMillis,
			@Nullable Long completed, @Nullable String rateLimit, List<ListenerDescriptor> listeners,
			@Nullable JobPageDescriptor deadJobs,
			@Nullable JobPageDescriptor completedJobs) implements OperationResponseBody {

		static TopicDescriptor of(String topic, QueueStats stats, Optional<RateLimit> rateLimit,
				List<ListenerDescriptor> listeners, @Nullable JobPageDescriptor deadJobs,
				@Nullable JobPageDescriptor completedJobs) {
			TopicStats figures = stats.topics().getOrDefault(topic, TopicStats.EMPTY);
			return new TopicDescriptor(topic, figures, figures.overdueLag(stats.readAt()).toMillis(),
					stats.completed().get(topic), rateLimit.map(RateLimit::toString).orElse(null), listeners, deadJobs,
					completedJobs);
		}

	}

	/** One listener container; {@code state} is {@code running}, {@code paused} or {@code stopped}. */
	public record ListenerDescriptor(String id, String state, int concurrency, int inFlight) {

		static Map<String, List<ListenerDescriptor>> byTopic(Iterable<DelayedListenerContainer> containers) {
			Map<String, List<ListenerDescriptor>> byTopic = new TreeMap<>();
			for (DelayedListenerContainer container : containers) {
				byTopic.computeIfAbsent(container.getTopic(), (t) -> new ArrayList<>())
					.add(new ListenerDescriptor(container.getId(), container.getState(), container.getConcurrency(),
							container.getInFlight()));
			}
			return byTopic;
		}

	}

	/**
	 * A page of kept jobs (dead ones, the oldest deaths first, or finished ones, the latest
	 * first); {@code next} is the cursor of the next page, {@code null} on the last.
	 */
	public record JobPageDescriptor(long total, List<KeptJobDescriptor> jobs, @Nullable String next) {

		static JobPageDescriptor of(long total, List<JobInfo> jobs, @Nullable String next, boolean payloads) {
			return new JobPageDescriptor(total, jobs.stream().map((job) -> KeptJobDescriptor.of(job, payloads)).toList(),
					next);
		}

	}

	/**
	 * A dead job (with {@code diedAt} and {@code lastError}) or a kept finished one (with
	 * {@code finishedAt} and {@code runTimeMillis}); {@code attempts} counts its deliveries.
	 */
	public record KeptJobDescriptor(String id, int attempts, int maxAttempts,
			@JsonInclude(Include.NON_NULL) @Nullable Instant diedAt,
			@JsonInclude(Include.NON_NULL) @Nullable Instant finishedAt,
			@JsonInclude(Include.NON_NULL) @Nullable String lastError,
			@JsonInclude(Include.NON_NULL) @Nullable Long runTimeMillis, @Nullable String payload,
			@Nullable Map<String, String> headers) {

		static KeptJobDescriptor of(JobInfo job, boolean payloads) {
			return new KeptJobDescriptor(job.id(), job.attempt(), job.maxAttempts(), job.diedAt(), job.finishedAt(),
					job.lastError(), (job.runTime() != null) ? job.runTime().toMillis() : null,
					payloads ? job.payloadAsString() : null, shownHeaders(job, payloads));
		}

	}

	/** What a repair did (or, as a dry run, would do; then {@code written} is {@code false}). */
	public record RepairDescriptor(String action, boolean written,
			@JsonUnwrapped @JsonIgnoreProperties("clean") RepairResult result) implements OperationResponseBody {

	}

	/**
	 * What a write or delete did: jobs replayed or cancelled, or listeners paused or resumed,
	 * and their ids (for a replay, at most {@value io.github.delayqueue.core.ReplayResult#MAX_IDS}).
	 */
	public record ActionDescriptor(String topic, String action, long count,
			List<String> ids) implements OperationResponseBody {

	}

	private static @Nullable Map<String, String> shownHeaders(JobInfo job, boolean payloads) {
		return (payloads && !job.headers().isEmpty()) ? job.headers() : null;
	}

	/**
	 * A page of a topic's jobs in one waiting state: DELAYED and READY ones by due time, RESERVED
	 * ones by TTR deadline with their holders; {@code total} counts the topic's jobs in that
	 * state, {@code next} is the cursor of the next page, {@code null} on the last.
	 */
	public record WaitingJobsDescriptor(String topic, String state, long total, List<JobDescriptor> jobs,
			@Nullable String next) implements OperationResponseBody {

		static WaitingJobsDescriptor of(String topic, JobState state, QueueStats stats, WaitingJobPage page,
				boolean payloads) {
			TopicStats figures = stats.topics().getOrDefault(topic, TopicStats.EMPTY);
			long total = switch (state) {
				case DELAYED -> figures.delayed();
				case READY -> figures.ready();
				default -> figures.reserved();
			};
			return new WaitingJobsDescriptor(topic, state.name(), total,
					page.jobs().stream().map((job) -> JobDescriptor.of(job, payloads)).toList(), page.next());
		}

	}

}
