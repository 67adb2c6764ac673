package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringSchedule;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of the delay queue ({@code delayqueue.*}).
 */
@ConfigurationProperties("delayqueue")
public class DelayQueueProperties implements Validator {

	/**
	 * Whether to auto-configure the delay queue.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and of the pub/sub channel.
	 */
	private String namespace = "delayqueue";

	/**
	 * Number of buckets (shards), 1 to 16384, the same for every instance of a namespace.
	 * Default: the namespace's count, else 16 on a Redis Cluster and 1 otherwise.
	 */
	private @Nullable Integer buckets;

	/**
	 * Largest payload, after serialization.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/**
	 * Time-to-run of jobs scheduled without one: how long a consumer may hold a job before
	 * it is delivered again.
	 */
	private Duration defaultTtr = Duration.ofSeconds(60);

	/**
	 * Deliveries a job scheduled without a number gets before it is dead.
	 */
	private int defaultMaxAttempts = 5;

	/**
	 * Name of this instance among those sharing the bucket timers. Default: host name,
	 * process id and a random suffix.
	 */
	private @Nullable String instanceId;

	/**
	 * Recurring jobs declared by name, such as
	 * 'delayqueue.recurring.nightly-report.cron=0 0 2 * * *', put at start-up.
	 */
	private Map<String, Recurring> recurring = new LinkedHashMap<>();

	/**
	 * Whether start-up deletes the recurring jobs that were declared in 'delayqueue.recurring'
	 * and are declared no more. Off: they are reported at start-up (WARN) and keep firing.
	 */
	private boolean removeUndeclaredRecurringJobs = false;

	/**
	 * Finished and DEAD jobs kept per topic, such as
	 * 'delayqueue.retention.order-close.completed=1000'. Default: none.
	 */
	private Map<String, Retention> retention = new LinkedHashMap<>();

	/**
	 * Topics whose due jobs are sent to a message broker instead of a listener, such as
	 * 'delayqueue.forward.order-events.kafka.topic=orders'.
	 */
	private Map<String, Forward> forward = new LinkedHashMap<>();

	private final Timer timer = new Timer();

	private final Listener listener = new Listener();

	private final Template template = new Template();

	private final Endpoint endpoint = new Endpoint();

	private final Metrics metrics = new Metrics();

	private final Health health = new Health();

	private final Redis redis = new Redis();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getNamespace() {
		return this.namespace;
	}

	public void setNamespace(String namespace) {
		this.namespace = namespace;
	}

	public @Nullable Integer getBuckets() {
		return this.buckets;
	}

	public void setBuckets(@Nullable Integer buckets) {
		this.buckets = buckets;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public Duration getDefaultTtr() {
		return this.defaultTtr;
	}

	public void setDefaultTtr(Duration defaultTtr) {
		this.defaultTtr = defaultTtr;
	}

	public int getDefaultMaxAttempts() {
		return this.defaultMaxAttempts;
	}

	public void setDefaultMaxAttempts(int defaultMaxAttempts) {
		this.defaultMaxAttempts = defaultMaxAttempts;
	}

	public @Nullable String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(@Nullable String instanceId) {
		this.instanceId = instanceId;
	}

	public Map<String, Recurring> getRecurring() {
		return this.recurring;
	}

	public void setRecurring(Map<String, Recurring> recurring) {
		this.recurring = recurring;
	}

	public boolean isRemoveUndeclaredRecurringJobs() {
		return this.removeUndeclaredRecurringJobs;
	}

	public void setRemoveUndeclaredRecurringJobs(boolean removeUndeclaredRecurringJobs) {
		this.removeUndeclaredRecurringJobs = removeUndeclaredRecurringJobs;
	}

	public Map<String, Retention> getRetention() {
		return this.retention;
	}

	public void setRetention(Map<String, Retention> retention) {
		this.retention = retention;
	}

	public Map<String, Forward> getForward() {
		return this.forward;
	}

	public void setForward(Map<String, Forward> forward) {
		this.forward = forward;
	}

	public Timer getTimer() {
		return this.timer;
	}

	public Listener getListener() {
		return this.listener;
	}

	public Template getTemplate() {
		return this.template;
	}

	public Endpoint getEndpoint() {
		return this.endpoint;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Health getHealth() {
		return this.health;
	}

	public Redis getRedis() {
		return this.redis;
	}

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
	 */
	public static class Retention {

		/**
		 * Most finished jobs kept, the latest; 0 for no count limit.
		 */
		private int completed;

		/**
		 * How long a finished job is kept. Default: no time limit.
		 */
		private @Nullable Duration completedAge;

		/**
		 * Whether the payload and headers of finished jobs are kept too (they cost their size
		 * per kept job).
		 */
		private boolean payloads = false;

		/**
		 * Most DEAD jobs kept, the latest; 0 for no count limit.
		 */
		private int failed;

		/**
		 * How long a DEAD job is kept. Default: no time limit.
		 */
		private @Nullable Duration failedAge;

		public int getCompleted() {
			return this.completed;
		}

		public void setCompleted(int completed) {
			this.completed = completed;
		}

		public @Nullable Duration getCompletedAge() {
			return this.completedAge;
		}

		public void setCompletedAge(@Nullable Duration completedAge) {
			this.completedAge = completedAge;
		}

		public boolean isPayloads() {
			return this.payloads;
		}

		public void setPayloads(boolean payloads) {
			this.payloads = payloads;
		}

		public int getFailed() {
			return this.failed;
		}

		public void setFailed(int failed) {
			this.failed = failed;
		}

		public @Nullable Duration getFailedAge() {
			return this.failedAge;
		}

		public void setFailedAge(@Nullable Duration failedAge) {
			this.failedAge = failedAge;
		}

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
	 * Where the due jobs of one topic are sent: a Kafka topic or a RabbitMQ exchange.
	 */
	public static class Forward {

		/**
		 * Sends at once; each waits for the broker's acknowledgement.
		 */
		private int concurrency = 4;

		/**
		 * How long a send may wait for the broker's acknowledgement before it is retried;
		 * shorter than 'delayqueue.listener.shutdown-timeout'.
		 */
		private Duration sendTimeout = Duration.ofSeconds(10);

		/**
		 * Forwarding to Kafka.
		 */
		private @Nullable Kafka kafka;

		/**
		 * Forwarding to RabbitMQ.
		 */
		private @Nullable Rabbit rabbit;

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public Duration getSendTimeout() {
			return this.sendTimeout;
		}

		public void setSendTimeout(Duration sendTimeout) {
			this.sendTimeout = sendTimeout;
		}

		public @Nullable Kafka getKafka() {
			return this.kafka;
		}

		public void setKafka(@Nullable Kafka kafka) {
			this.kafka = kafka;
		}

		public @Nullable Rabbit getRabbit() {
			return this.rabbit;
		}

		public void setRabbit(@Nullable Rabbit rabbit) {
			this.rabbit = rabbit;
		}

		/**
		 * A Kafka destination.
		 */
		public static class Kafka {

			/**
			 * The Kafka topic the records are sent to.
			 */
			private @Nullable String topic;

			/**
			 * Bean name of the KafkaTemplate whose producer settings the forwarder uses.
			 * Default: the only KafkaTemplate.
			 */
			private @Nullable String template;

			/**
			 * The record key: a field of the JSON payload, dots for nested fields (such as
			 * 'order.customerId'). Default: the job id (or the key given to DelayedKafka).
			 */
			private @Nullable String keyField;

			/**
			 * The partition. Default: the producer's partitioner chooses by key.
			 */
			private @Nullable Integer partition;

			public @Nullable String getTopic() {
				return this.topic;
			}

			public void setTopic(@Nullable String topic) {
				this.topic = topic;
			}

			public @Nullable String getTemplate() {
				return this.template;
			}

			public void setTemplate(@Nullable String template) {
				this.template = template;
			}

			public @Nullable String getKeyField() {
				return this.keyField;
			}

			public void setKeyField(@Nullable String keyField) {
				this.keyField = keyField;
			}

			public @Nullable Integer getPartition() {
				return this.partition;
			}

			public void setPartition(@Nullable Integer partition) {
				this.partition = partition;
			}

		}

		/**
		 * A RabbitMQ destination; the connection factory needs publisher confirms and returns.
		 */
		public static class Rabbit {

			/**
			 * The exchange the messages are published to; empty for the default exchange.
			 */
			private @Nullable String exchange;

			/**
			 * The routing key. Default: none (empty), as fanout exchanges need.
			 */
			private String routingKey = "";

			/**
			 * The bean name of the RabbitTemplate to publish with. Default: the only
			 * RabbitTemplate.
			 */
			private @Nullable String template;

			public @Nullable String getExchange() {
				return this.exchange;
			}

			public void setExchange(@Nullable String exchange) {
				this.exchange = exchange;
			}

			public String getRoutingKey() {
				return this.routingKey;
			}

			public void setRoutingKey(String routingKey) {
				this.routingKey = routingKey;
			}

			public @Nullable String getTemplate() {
				return this.template;
			}

			public void setTemplate(@Nullable String template) {
				this.template = template;
			}

		}

	}

	/**
	 * One declared recurring job.
	 */
	public static class Recurring {

		/**
		 * Topic of the jobs each tick creates.
		 */
		private @Nullable String topic;

		/**
		 * Cron expression (six fields, or a macro such as '@daily'). Set this, 'every' or
		 * 'fixed-delay'.
		 */
		private @Nullable String cron;

		/**
		 * Time zone the cron expression is read in.
		 */
		private String zone = "UTC";

		/**
		 * Fixed rate (1s to 366d), ticking at multiples of it since the epoch. Set this,
		 * 'cron' or 'fixed-delay'.
		 */
		private @Nullable Duration every;

		/**
		 * Fixed delay (1s to 366d) after the previous occurrence left the queue. Set this,
		 * 'cron' or 'every'.
		 */
		private @Nullable Duration fixedDelay;

		/**
		 * Payload of each occurrence, as its listener reads it (JSON for a JSON listener).
		 */
		private String payload = "";

		/**
		 * Headers of each occurrence.
		 */
		private Map<String, String> headers = new LinkedHashMap<>();

		/**
		 * Time-to-run of each occurrence. Default: 'delayqueue.default-ttr'.
		 */
		private @Nullable Duration ttr;

		/**
		 * Deliveries of each occurrence before it is dead. Default:
		 * 'delayqueue.default-max-attempts'.
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * What to do with ticks that passed while no instance could fire them: FIRE_ONCE (one
		 * occurrence now), SKIP, or FIRE_ALL (one per tick, at most 'max-catch-up').
		 */
		private MisfirePolicy misfire = MisfirePolicy.FIRE_ONCE;

		/**
		 * How late a tick may be fired and still count as on time.
		 */
		private Duration misfireThreshold = RecurringJob.DEFAULT_MISFIRE_THRESHOLD;

		/**
		 * Most occurrences one firing creates for missed ticks under FIRE_ALL.
		 */
		private int maxCatchUp = RecurringJob.DEFAULT_MAX_CATCH_UP;

		/**
		 * What a tick does while the previous occurrence still exists: ALLOW (create it
		 * anyway) or SKIP (skip the tick).
		 */
		private OverlapPolicy overlap = OverlapPolicy.ALLOW;

		/**
		 * The definition these properties declare.
		 * @param name its name (the key under 'delayqueue.recurring')
		 * @return the definition, marked as declared
		 * @throws IllegalArgumentException naming the rule a value breaks
		 */
		@SuppressWarnings("NullAway") // the builder refuses a missing topic; one schedule is set
		public RecurringJob toJob(String name) {
			int schedules = ((this.cron != null) ? 1 : 0) + ((this.every != null) ? 1 : 0)
					+ ((this.fixedDelay != null) ? 1 : 0);
			if (schedules != 1) {
				throw new IllegalArgumentException("set exactly one of cron, every and fixed-delay");
			}
			RecurringJob.Builder builder = RecurringJob.builder(name)
				.topic(this.topic)
				.payload(this.payload)
				.headers(this.headers)
				.misfirePolicy(this.misfire)
				.misfireThreshold(this.misfireThreshold)
				.maxCatchUp(this.maxCatchUp)
				.overlapPolicy(this.overlap)
				.declared(true);
			if (this.cron != null) {
				builder.schedule(RecurringSchedule.cron(this.cron, this.zone));
			}
			else {
				builder.schedule((this.every != null) ? RecurringSchedule.every(this.every)
						: RecurringSchedule.fixedDelay(this.fixedDelay));
			}
			if (this.ttr != null) {
				builder.ttr(this.ttr);
			}
			if (this.maxAttempts != null) {
				builder.maxAttempts(this.maxAttempts);
			}
			return builder.build();
		}

		public @Nullable String getTopic() {
			return this.topic;
		}

		public void setTopic(@Nullable String topic) {
			this.topic = topic;
		}

		public @Nullable String getCron() {
			return this.cron;
		}

		public void setCron(@Nullable String cron) {
			this.cron = cron;
		}

		public String getZone() {
			return this.zone;
		}

		public void setZone(String zone) {
			this.zone = zone;
		}

		public @Nullable Duration getEvery() {
			return this.every;
		}

		public void setEvery(@Nullable Duration every) {
			this.every = every;
		}

		public @Nullable Duration getFixedDelay() {
			return this.fixedDelay;
		}

		public void setFixedDelay(@Nullable Duration fixedDelay) {
			this.fixedDelay = fixedDelay;
		}

		public String getPayload() {
			return this.payload;
		}

		public void setPayload(String payload) {
			this.payload = payload;
		}

		public Map<String, String> getHeaders() {
			return this.headers;
		}

		public void setHeaders(Map<String, String> headers) {
			this.headers = headers;
		}

		public @Nullable Duration getTtr() {
			return this.ttr;
		}

		public void setTtr(@Nullable Duration ttr) {
			this.ttr = ttr;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public MisfirePolicy getMisfire() {
			return this.misfire;
		}

		public void setMisfire(MisfirePolicy misfire) {
			this.misfire = misfire;
		}

		public Duration getMisfireThreshold() {
			return this.misfireThreshold;
		}

		public void setMisfireThreshold(Duration misfireThreshold) {
			this.misfireThreshold = misfireThreshold;
		}

		public int getMaxCatchUp() {
			return this.maxCatchUp;
		}

		public void setMaxCatchUp(int maxCatchUp) {
			this.maxCatchUp = maxCatchUp;
		}

		public OverlapPolicy getOverlap() {
			return this.overlap;
		}

		public void setOverlap(OverlapPolicy overlap) {
			this.overlap = overlap;
		}

	}

	/**
	 * The auto-configured DelayedJobTemplate.
	 */
	public static class Template {

		/**
		 * In a Spring-managed transaction, write schedules, cancels and reschedules to Redis
		 * after the commit, in their order, and discard them on rollback; off writes at once.
		 */
		private boolean afterCommit = true;

		/**
		 * Whether to observe the template's writes ("delayqueue.template") and store the
		 * trace context with the jobs scheduled.
		 */
		private boolean observationEnabled;

		public boolean isAfterCommit() {
			return this.afterCommit;
		}

		public void setAfterCommit(boolean afterCommit) {
			this.afterCommit = afterCommit;
		}

		public boolean isObservationEnabled() {
			return this.observationEnabled;
		}

		public void setObservationEnabled(boolean observationEnabled) {
			this.observationEnabled = observationEnabled;
		}

	}

	/**
	 * Defaults of {@code @DelayedListener} containers.
	 */
	public static class Listener {

		/**
		 * Handlers run at once by a listener that does not set its own concurrency.
		 */
		private int concurrency = 1;

		/**
		 * Whether listener containers start with the application context.
		 */
		private boolean autoStartup = true;

		/**
		 * How long shutdown waits for running handlers; jobs reserved but not started are
		 * given back at once.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(20);

		/**
		 * Publish a DelayedListenerIdleEvent when a running listener has received no job for
		 * this long (again after each further interval); none when unset.
		 */
		private @Nullable Duration idleEventInterval;

		/**
		 * Publish a DelayedJobOutcomeEvent for every job a listener handles.
		 */
		private boolean outcomeEvents;

		/**
		 * Publish each job's outcome to the Redis channel "<namespace>:outcomes" for
		 * JobOutcomeStream subscribers; turns on outcome-events too.
		 */
		private boolean outcomeStream;

		/**
		 * Rate limit per topic, such as 'delayqueue.listener.rate-limit.webhook=50/1s': at most
		 * that many jobs handed out per interval, across instances.
		 */
		private Map<String, String> rateLimit = new LinkedHashMap<>();

		/**
		 * Whether to observe each job a listener handles ("delayqueue.listener"), continuing
		 * the trace stored with the job.
		 */
		private boolean observationEnabled;

		private final BackOff backOff = new BackOff();

		public boolean isObservationEnabled() {
			return this.observationEnabled;
		}

		public void setObservationEnabled(boolean observationEnabled) {
			this.observationEnabled = observationEnabled;
		}

		public boolean isOutcomeStream() {
			return this.outcomeStream;
		}

		public void setOutcomeStream(boolean outcomeStream) {
			this.outcomeStream = outcomeStream;
		}

		public Map<String, String> getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(Map<String, String> rateLimit) {
			this.rateLimit = rateLimit;
		}

		public @Nullable Duration getIdleEventInterval() {
			return this.idleEventInterval;
		}

		public void setIdleEventInterval(@Nullable Duration idleEventInterval) {
			this.idleEventInterval = idleEventInterval;
		}

		public boolean isOutcomeEvents() {
			return this.outcomeEvents;
		}

		public void setOutcomeEvents(boolean outcomeEvents) {
			this.outcomeEvents = outcomeEvents;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public BackOff getBackOff() {
			return this.backOff;
		}

	}

	/**
	 * Exponential back-off between the attempts of a failing job.
	 */
	public static class BackOff {

		/**
		 * Wait before the second attempt.
		 */
		private Duration initialInterval = Duration.ofSeconds(1);

		/**
		 * Factor by which each further wait grows.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest wait.
		 */
		private Duration maxInterval = Duration.ofMinutes(5);

		/**
		 * Random amount added to or taken from each wait, at most the initial interval.
		 */
		private Duration jitter = Duration.ofMillis(100);

		public Duration getInitialInterval() {
			return this.initialInterval;
		}

		public void setInitialInterval(Duration initialInterval) {
			this.initialInterval = initialInterval;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxInterval() {
			return this.maxInterval;
		}

		public void setMaxInterval(Duration maxInterval) {
			this.maxInterval = maxInterval;
		}

		public Duration getJitter() {
			return this.jitter;
		}

		public void setJitter(Duration jitter) {
			this.jitter = jitter;
		}

	}

	/**
	 * The bucket timers that move due jobs to their topics' ready lists.
	 */
	public static class Timer {

		/**
		 * Whether this instance takes part in running the bucket timers. Producer-only
		 * instances may switch it off; at least one instance per namespace must run them.
		 */
		private boolean enabled = true;

		/**
		 * Most jobs one promotion moves in one script call.
		 */
		private int batchSize = 500;

		/**
		 * How often every owned bucket is re-checked and topics with ready jobs re-announced.
		 */
		private Duration guardInterval = Duration.ofSeconds(60);

		/**
		 * How long an instance keeps its buckets without a heartbeat.
		 */
		private Duration leaseTtl = Duration.ofSeconds(5);

		/**
		 * Whether a timer step reserves the jobs it makes due for a consumer of this instance
		 * that waits for their topic, sparing the consumer's take. Off, due jobs always go to
		 * the ready list.
		 */
		private boolean reserveForWaitingConsumers = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getGuardInterval() {
			return this.guardInterval;
		}

		public void setGuardInterval(Duration guardInterval) {
			this.guardInterval = guardInterval;
		}

		public Duration getLeaseTtl() {
			return this.leaseTtl;
		}

		public void setLeaseTtl(Duration leaseTtl) {
			this.leaseTtl = leaseTtl;
		}

		public boolean isReserveForWaitingConsumers() {
			return this.reserveForWaitingConsumers;
		}

		public void setReserveForWaitingConsumers(boolean reserveForWaitingConsumers) {
			this.reserveForWaitingConsumers = reserveForWaitingConsumers;
		}

	}

	/**
	 * The {@code delayqueue} Actuator endpoint.
	 */
	public static class Endpoint {

		/**
		 * Whether the endpoint shows the payloads of dead jobs. They may hold personal data.
		 */
		private boolean showPayloads = false;

		public boolean isShowPayloads() {
			return this.showPayloads;
		}

		public void setShowPayloads(boolean showPayloads) {
			this.showPayloads = showPayloads;
		}

	}

	/**
	 * Micrometer metrics.
	 */
	public static class Metrics {

		/**
		 * How often the queue's figures are read from Redis for the gauges and the health
		 * lag thresholds, at least 100ms.
		 */
		private Duration sampleInterval = Duration.ofSeconds(10);

		/**
		 * Most topics with their own 'topic' tag value; further ones are counted under
		 * 'topic=_other'.
		 */
		private int maxTopics = 100;

		public Duration getSampleInterval() {
			return this.sampleInterval;
		}

		public void setSampleInterval(Duration sampleInterval) {
			this.sampleInterval = sampleInterval;
		}

		public int getMaxTopics() {
			return this.maxTopics;
		}

		public void setMaxTopics(int maxTopics) {
			this.maxTopics = maxTopics;
		}

	}

	/**
	 * The {@code delayqueue} health indicator: what is wrong with this instance.
	 */
	public static class Health {

		/**
		 * Longest a health check waits for Redis to answer a PING before it is DOWN.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		/**
		 * Longest the bucket timer, a listener or the event subscription may go without
		 * progress before health is DOWN; above the longest a handler may run.
		 */
		private Duration maxStall = Duration.ofSeconds(60);

		/**
		 * Lag thresholds by topic, such as 'delayqueue.health.max-overdue.order-close=5m':
		 * DOWN when the oldest due job of a topic this instance consumes waited longer.
		 */
		private Map<String, Duration> maxOverdue = new LinkedHashMap<>();

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public Duration getMaxStall() {
			return this.maxStall;
		}

		public void setMaxStall(Duration maxStall) {
			this.maxStall = maxStall;
		}

		public Map<String, Duration> getMaxOverdue() {
			return this.maxOverdue;
		}

		public void setMaxOverdue(Map<String, Duration> maxOverdue) {
			this.maxOverdue = maxOverdue;
		}

	}

	/**
	 * How writes are acknowledged by Redis.
	 */
	public static class Redis {

		/**
		 * Whether the application fails to start when Redis is unreachable at start-up; when
		 * false, calls fail and the timer and listeners retry until Redis answers.
		 */
		private boolean failFast = true;

		/**
		 * How many replicas must have a schedule or a finish before it returns (Redis WAIT);
		 * 0 for none. Not supported on Redis Cluster.
		 */
		private int waitReplicas = 0;

		/**
		 * How long a schedule or finish waits for its replicas before it fails.
		 */
		private Duration waitTimeout = Duration.ofSeconds(1);

		public boolean isFailFast() {
			return this.failFast;
		}

		public void setFailFast(boolean failFast) {
			this.failFast = failFast;
		}

		public int getWaitReplicas() {
			return this.waitReplicas;
		}

		public void setWaitReplicas(int waitReplicas) {
			this.waitReplicas = waitReplicas;
		}

		public Duration getWaitTimeout() {
			return this.waitTimeout;
		}

		public void setWaitTimeout(Duration waitTimeout) {
			this.waitTimeout = waitTimeout;
		}

	}

}
