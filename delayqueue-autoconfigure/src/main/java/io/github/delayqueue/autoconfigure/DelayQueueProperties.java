package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringSchedule;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of the delay queue ({@code delayqueue.*}).
 *
 * @param enabled Whether to auto-configure the delay queue.
 * @param namespace Prefix of every Redis key and of the pub/sub channel.
 * @param buckets Number of buckets (shards), 1 to 16384, the same for every instance of a
 * namespace. Default: the namespace's count, else 16 on a Redis Cluster and 1 otherwise.
 * @param maxPayloadSize Largest payload, after serialization.
 * @param defaultTtr Time-to-run of jobs scheduled without one: how long a consumer may hold a
 * job before it is delivered again.
 * @param defaultMaxAttempts Deliveries a job scheduled without a number gets before it is dead.
 * @param instanceId Name of this instance among those sharing the bucket timers. Default: host
 * name, process id and a random suffix.
 * @param recurring Recurring jobs declared by name, such as
 * 'delayqueue.recurring.nightly-report.cron=0 0 2 * * *', put at start-up.
 * @param removeUndeclaredRecurringJobs Whether start-up deletes the recurring jobs that were
 * declared in 'delayqueue.recurring' and are declared no more. Off: they are reported at
 * start-up (WARN) and keep firing.
 * @param retention Finished and DEAD jobs kept per topic, such as
 * 'delayqueue.retention.order-close.completed=1000'. Default: none.
 * @param timer The bucket timers.
 * @param listener Defaults of listener containers.
 * @param template The auto-configured DelayedJobTemplate.
 * @param endpoint The Actuator endpoint.
 * @param metrics Micrometer metrics.
 * @param health The health indicator.
 * @param redis How writes are acknowledged by Redis.
 */
@ConfigurationProperties("delayqueue")
public record DelayQueueProperties(@DefaultValue("true") boolean enabled, @DefaultValue("delayqueue") String namespace,
		@Nullable Integer buckets, @DefaultValue("1MB") DataSize maxPayloadSize,
		@DefaultValue("60s") Duration defaultTtr, @DefaultValue("5") int defaultMaxAttempts,
		@Nullable String instanceId, @DefaultValue Map<String, Recurring> recurring,
		boolean removeUndeclaredRecurringJobs, @DefaultValue Map<String, Retention> retention,
		@DefaultValue Timer timer, @DefaultValue Listener listener,
		@DefaultValue Template template, @DefaultValue Endpoint endpoint, @DefaultValue Metrics metrics,
		@DefaultValue Health health, @DefaultValue Redis redis) implements Validator {

	@Override
	public boolean supports(Class<?> type) {
		return DelayQueueProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		DelayQueuePropertiesRules.validate((DelayQueueProperties) target, errors);
	}

	/**
	 * What one topic keeps of its finished and DEAD jobs.
	 *
	 * @param completed most finished jobs kept, the latest; 0 for no count limit
	 * @param completedAge how long a finished job is kept. Default: no time limit
	 * @param payloads whether the payload and headers of finished jobs are kept too (they
	 * cost their size per kept job)
	 * @param failed most DEAD jobs kept, the latest; 0 for no count limit
	 * @param failedAge how long a DEAD job is kept. Default: no time limit
	 */
	public record Retention(int completed, @Nullable Duration completedAge, boolean payloads, int failed,
			@Nullable Duration failedAge) {

		/**
		 * The retention these properties describe.
		 * @return the retention
		 * @throws IllegalArgumentException naming the rule a value breaks
		 */
		public io.github.delayqueue.core.Retention toRetention() {
			return new io.github.delayqueue.core.Retention(this.completed, this.completedAge, this.payloads,
					this.failed, this.failedAge);
		}

	}

	/**
	 * One declared recurring job; what is not set takes the {@link RecurringJob.Builder}
	 * default.
	 *
	 * @param topic topic of the jobs each tick creates
	 * @param cron cron expression (six fields, or a macro such as '@daily'). Set this,
	 * 'every' or 'fixed-delay'
	 * @param zone time zone the cron expression is read in
	 * @param every fixed rate (1s to 366d), ticking at multiples of it since the epoch. Set
	 * this, 'cron' or 'fixed-delay'
	 * @param fixedDelay fixed delay (1s to 366d) after the previous occurrence left the queue.
	 * Set this, 'cron' or 'every'
	 * @param payload payload of each occurrence, as its listener reads it (JSON for a JSON
	 * listener). Default: empty
	 * @param headers headers of each occurrence
	 * @param ttr time-to-run of each occurrence. Default: 'delayqueue.default-ttr'
	 * @param maxAttempts deliveries of each occurrence before it is dead. Default:
	 * 'delayqueue.default-max-attempts'
	 * @param misfire what to do with ticks that passed while no instance could fire them:
	 * FIRE_ONCE (one occurrence now, the default), SKIP, or FIRE_ALL (one per tick, at most
	 * 'max-catch-up')
	 * @param misfireThreshold how late a tick may be fired and still count as on time.
	 * Default: 10s
	 * @param maxCatchUp most occurrences one firing creates for missed ticks under FIRE_ALL.
	 * Default: 10
	 * @param overlap what a tick does while the previous occurrence still exists: ALLOW
	 * (create it anyway, the default) or SKIP (skip the tick)
	 */
	public record Recurring(@Nullable String topic, @Nullable String cron, @DefaultValue("UTC") String zone,
			@Nullable Duration every, @Nullable Duration fixedDelay, @Nullable String payload,
			@Nullable Map<String, String> headers, @Nullable Duration ttr, @Nullable Integer maxAttempts,
			@Nullable MisfirePolicy misfire, @Nullable Duration misfireThreshold, @Nullable Integer maxCatchUp,
			@Nullable OverlapPolicy overlap) {

		/**
		 * The definition these properties declare.
		 * @param name its name (the key under 'delayqueue.recurring')
		 * @return the definition, marked as declared
		 * @throws IllegalArgumentException naming the rule a value breaks
		 */
		@SuppressWarnings("NullAway") // the builder refuses a missing topic
		public RecurringJob toJob(String name) {
			if (Stream.of(this.cron, this.every, this.fixedDelay).filter(Objects::nonNull).count() != 1) {
				throw new IllegalArgumentException("set exactly one of cron, every and fixed-delay");
			}
			RecurringJob.Builder builder = RecurringJob.builder(name).topic(this.topic);
			PropertyMapper map = PropertyMapper.get();
			map.from(this.payload).to(builder::payload);
			map.from(this.headers).to(builder::headers);
			map.from(this.misfire).to(builder::misfirePolicy);
			map.from(this.misfireThreshold).to(builder::misfireThreshold);
			map.from(this.maxCatchUp).to(builder::maxCatchUp);
			map.from(this.overlap).to(builder::overlapPolicy);
			builder.declared(true);
			map.from(this.cron).to((cron) -> builder.schedule(RecurringSchedule.cron(cron, this.zone)));
			map.from(this.every).as(RecurringSchedule::every).to(builder::schedule);
			map.from(this.fixedDelay).as(RecurringSchedule::fixedDelay).to(builder::schedule);
			map.from(this.ttr).to(builder::ttr);
			map.from(this.maxAttempts).to(builder::maxAttempts);
			return builder.build();
		}

	}

	/**
	 * The auto-configured DelayedJobTemplate.
	 *
	 * @param afterCommit In a Spring-managed transaction, write schedules, cancels and
	 * reschedules to Redis after the commit, in their order, and discard them on rollback;
	 * off writes at once.
	 * @param observationEnabled Whether to observe the template's writes
	 * ("delayqueue.template") and store the trace context with the jobs scheduled.
	 */
	public record Template(@DefaultValue("true") boolean afterCommit, boolean observationEnabled) {

	}

	/**
	 * Defaults of {@code @DelayedListener} containers.
	 *
	 * @param concurrency Handlers run at once by a listener that does not set its own
	 * concurrency.
	 * @param autoStartup Whether listener containers start with the application context.
	 * @param shutdownTimeout How long shutdown waits for running handlers; jobs reserved but
	 * not started are given back at once.
	 * @param idleEventInterval Publish a DelayedListenerIdleEvent when a running listener has
	 * received no job for this long (again after each further interval); none when unset.
	 * @param outcomeEvents Publish a DelayedJobOutcomeEvent for every job a listener handles.
	 * @param outcomeStream Publish each job's outcome to the Redis channel
	 * "<namespace>:outcomes" for JobOutcomeStream subscribers; turns on outcome-events too.
	 * @param rateLimit Rate limit per topic, such as
	 * 'delayqueue.listener.rate-limit.webhook=50/1s': at most that many jobs handed out per
	 * interval, across instances.
	 * @param observationEnabled Whether to observe each job a listener handles
	 * ("delayqueue.listener"), continuing the trace stored with the job.
	 * @param backOff Exponential back-off between the attempts of a failing job.
	 */
	public record Listener(@DefaultValue("1") int concurrency, @DefaultValue("true") boolean autoStartup,
			@DefaultValue("20s") Duration shutdownTimeout, @Nullable Duration idleEventInterval,
			boolean outcomeEvents, boolean outcomeStream, @DefaultValue Map<String, String> rateLimit,
			boolean observationEnabled, @DefaultValue BackOff backOff) {

	}

	/**
	 * Exponential back-off between the attempts of a failing job.
	 *
	 * @param initialInterval Wait before the second attempt.
	 * @param multiplier Factor by which each further wait grows.
	 * @param maxInterval Longest wait.
	 * @param jitter Random amount added to or taken from each wait, at most the initial
	 * interval.
	 */
	public record BackOff(@DefaultValue("1s") Duration initialInterval, @DefaultValue("2") double multiplier,
			@DefaultValue("5m") Duration maxInterval, @DefaultValue("100ms") Duration jitter) {

	}

	/**
	 * The bucket timers that move due jobs to their topics' ready lists.
	 *
	 * @param enabled Whether this instance takes part in running the bucket timers.
	 * Producer-only instances may switch it off; at least one instance per namespace must run
	 * them.
	 * @param batchSize Most jobs one promotion moves in one script call.
	 * @param guardInterval How often every owned bucket is re-checked and topics with ready
	 * jobs re-announced.
	 * @param leaseTtl How long an instance keeps its buckets without a heartbeat.
	 * @param reserveForWaitingConsumers Whether a timer step reserves the jobs it makes due
	 * for a consumer of this instance that waits for their topic, sparing the consumer's take.
	 * Off, due jobs always go to the ready list.
	 */
	public record Timer(@DefaultValue("true") boolean enabled, @DefaultValue("500") int batchSize,
			@DefaultValue("60s") Duration guardInterval, @DefaultValue("5s") Duration leaseTtl,
			@DefaultValue("true") boolean reserveForWaitingConsumers) {

	}

	/**
	 * The {@code delayqueue} Actuator endpoint.
	 *
	 * @param showPayloads Whether the endpoint shows the payloads of dead jobs. They may hold
	 * personal data.
	 */
	public record Endpoint(boolean showPayloads) {

	}

	/**
	 * Micrometer metrics.
	 *
	 * @param sampleInterval How often the queue's figures are read from Redis for the gauges
	 * and the health lag thresholds, at least 100ms.
	 * @param maxTopics Most topics with their own 'topic' tag value; further ones are counted
	 * under 'topic=_other'.
	 */
	public record Metrics(@DefaultValue("10s") Duration sampleInterval, @DefaultValue("100") int maxTopics) {

	}

	/**
	 * The {@code delayqueue} health indicator: what is wrong with this instance.
	 *
	 * @param timeout Longest a health check waits for Redis to answer a PING before it is
	 * DOWN.
	 * @param maxStall Longest the bucket timer, a listener or the event subscription may go
	 * without progress before health is DOWN; above the longest a handler may run.
	 * @param maxOverdue Lag thresholds by topic, such as
	 * 'delayqueue.health.max-overdue.order-close=5m': DOWN when the oldest due job of a topic
	 * this instance consumes waited longer.
	 */
	public record Health(@DefaultValue("2s") Duration timeout, @DefaultValue("60s") Duration maxStall,
			@DefaultValue Map<String, Duration> maxOverdue) {

	}

	/**
	 * How writes are acknowledged by Redis.
	 *
	 * @param failFast Whether the application fails to start when Redis is unreachable at
	 * start-up; when false, calls fail and the timer and listeners retry until Redis answers.
	 * @param waitReplicas How many replicas must have a schedule, cancel, reschedule, replay or
	 * finish before it returns (Redis WAIT); 0 for none. Not supported on Redis Cluster.
	 * @param waitTimeout How long such a write waits for its replicas before it fails.
	 */
	public record Redis(@DefaultValue("true") boolean failFast, int waitReplicas,
			@DefaultValue("1s") Duration waitTimeout) {

	}

}
