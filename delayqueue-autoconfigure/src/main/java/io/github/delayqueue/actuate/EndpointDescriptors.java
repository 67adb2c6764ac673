package io.github.delayqueue.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.BucketStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.core.WaitingJobPage;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The answers of the {@link DelayQueueEndpoint}, as Jackson writes them.
 */
public final class EndpointDescriptors {

	private EndpointDescriptors() {
	}

	/**
	 * The whole queue.
	 *
	 * @param instance this instance's name among the timer owners
	 * @param readAt Redis's time when the figures were read
	 * @param oldestOverdueLagMillis how long the oldest due, undelivered job has waited
	 * @param totals all topics together
	 * @param buckets each bucket
	 * @param topics each topic with jobs or listeners
	 * @param recurring the recurring jobs
	 * @param instances the instances that run the bucket timers
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
	 * @param live whether that time is still ahead
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
	 * @param state {@code DELAYED}, {@code READY}, {@code RESERVED}, {@code DEAD} or {@code COMPLETED}
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
	 * @param schedule {@code cron '<expression>' in <zone>} or {@code every <period>}
	 * @param paused whether it is paused
	 * @param nextFireTime its next tick, or {@code null} while paused
	 * @param fired occurrences created
	 * @param skipped ticks that created none
	 * @param misfired ticks fired late
	 * @param lastFireTime the tick of the last occurrence, or {@code null}
	 * @param lastOccurrence the id of the last occurrence, or {@code null}
	 * @param lastOccurrenceState its state now, {@code GONE} once it left the queue, or {@code null}
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
	 * @param completedJobs a page of the finished jobs it keeps (only in the topic's own view)
	 */
	public record TopicDescriptor(String topic, long delayed, long ready, long reserved, long dead,
			@Nullable Instant overdueSince, long overdueLagMillis, @Nullable Long completed,
			@Nullable String rateLimit, List<ListenerDescriptor> listeners,
			@Nullable JobPageDescriptor<DeadJobDescriptor> deadJobs,
			@Nullable JobPageDescriptor<CompletedJobDescriptor> completedJobs) implements OperationResponseBody {

		static TopicDescriptor of(String topic, QueueStats stats, @Nullable String rateLimit,
				List<ListenerDescriptor> listeners, @Nullable JobPageDescriptor<DeadJobDescriptor> deadJobs,
				@Nullable JobPageDescriptor<CompletedJobDescriptor> completedJobs) {
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
	 * A page of jobs: dead jobs, the oldest deaths first, or finished jobs, the latest first.
	 *
	 * @param <J> the type of the jobs
	 * @param total the topic's jobs of that kind
	 * @param jobs the page
	 * @param next the cursor of the next page, or {@code null} for the last page
	 */
	public record JobPageDescriptor<J>(long total, List<J> jobs, @Nullable String next) {

	}

	/**
	 * One finished job a topic keeps.
	 *
	 * @param id the job id
	 * @param attempts the delivery that finished it (1 for the first)
	 * @param maxAttempts deliveries it could have had
	 * @param finishedAt when it finished
	 * @param runTimeMillis how long that delivery ran, or {@code null} when not known
	 * @param payload its payload as text, when payloads are shown and the topic keeps them
	 * @param headers its own headers, when payloads are shown, kept, and it has any
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
	 * @param dropped index entries and last errors dropped because no such job exists
	 * @param countsCorrected state count fields that were wrong or missing
	 * @param unreadable job records not in this version's format (left as they are)
	 */
	public record RepairDescriptor(String action, boolean written, long jobs, long reindexed, long dropped,
			long countsCorrected, long unreadable) implements OperationResponseBody {

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
					payloads ? job.payloadAsString() : null,
					(payloads && !job.headers().isEmpty()) ? job.headers() : null);
		}

	}

	/**
	 * What a write or delete operation did.
	 *
	 * @param topic the topic
	 * @param action {@code replay}, {@code pause}, {@code resume} or {@code cancel}
	 * @param count jobs replayed or cancelled, or listeners paused or resumed
	 * @param ids the job or listener ids concerned (for a replay, at most {@value ReplayResult#MAX_IDS})
	 */
	public record ActionDescriptor(String topic, String action, long count,
			List<String> ids) implements OperationResponseBody {

	}

	/**
	 * A page of a topic's jobs in one waiting state (a reservation does not record its holder).
	 *
	 * @param topic the topic
	 * @param state {@code DELAYED}, {@code READY} or {@code RESERVED}
	 * @param total the topic's jobs in that state
	 * @param jobs the page: DELAYED and READY jobs by due time, RESERVED ones by TTR deadline
	 * @param next the cursor of the next page, or {@code null} for the last page
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
