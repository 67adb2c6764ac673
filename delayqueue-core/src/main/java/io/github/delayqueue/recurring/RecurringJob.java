package io.github.delayqueue.recurring;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.JobConstraints;

import org.springframework.util.Assert;

/**
 * A recurring job's definition: each tick of its schedule creates one ordinary job (an
 * occurrence) of its topic with its payload and headers. Immutable; built with
 * {@link #builder(String)}, stored with {@link RecurringJobs#put}. The name follows the rules of
 * a topic; the misfire threshold is positive and at most a day.
 */
public final class RecurringJob {

	/** The default {@link #getMisfireThreshold() misfire threshold}. */
	public static final Duration DEFAULT_MISFIRE_THRESHOLD = Duration.ofSeconds(10);

	/** The default {@link #getMaxCatchUp() max catch-up}. */
	public static final int DEFAULT_MAX_CATCH_UP = 10;

	/** The largest {@link #getMaxCatchUp() max catch-up}. */
	public static final int MAX_CATCH_UP = 1_000;

	private final String name;

	private final String topic;

	private final RecurringSchedule schedule;

	private final byte[] payload;

	private final Map<String, String> headers;

	private final @Nullable Duration ttr;

	private final @Nullable Integer maxAttempts;

	private final MisfirePolicy misfirePolicy;

	private final Duration misfireThreshold;

	private final int maxCatchUp;

	private final OverlapPolicy overlapPolicy;

	private final boolean declared;

	private RecurringJob(Builder builder) {
		this.name = name(builder.name);
		this.topic = JobConstraints.topic(builder.topic);
		Assert.notNull(builder.schedule,
				() -> "schedule must be set (cron, every or fixedDelay) for recurring job '" + this.name + "'");
		this.schedule = builder.schedule;
		this.payload = JobConstraints.payload(builder.payload, Long.MAX_VALUE).clone();
		this.headers = JobConstraints.headers(builder.headers);
		this.ttr = (builder.ttr != null) ? JobConstraints.ttr(builder.ttr) : null;
		this.maxAttempts = (builder.maxAttempts != null) ? JobConstraints.maxAttempts(builder.maxAttempts) : null;
		Assert.notNull(builder.misfirePolicy, "misfirePolicy must not be null");
		this.misfirePolicy = builder.misfirePolicy;
		this.misfireThreshold = JobConstraints.positive("misfireThreshold", builder.misfireThreshold, Duration.ofDays(1));
		this.maxCatchUp = JobConstraints.max("maxCatchUp", builder.maxCatchUp, MAX_CATCH_UP);
		Assert.notNull(builder.overlapPolicy, "overlapPolicy must not be null");
		this.overlapPolicy = builder.overlapPolicy;
		this.declared = builder.declared;
	}

	/** Checks a recurring job's name (a topic's rules); an {@link IllegalArgumentException} names the rule. */
	public static String name(String name) {
		return JobConstraints.topic("name", name);
	}

	/** Starts a definition named {@code name}, unique in the namespace. */
	public static Builder builder(String name) {
		return new Builder(name);
	}

	public String getName() {
		return this.name;
	}

	public String getTopic() {
		return this.topic;
	}

	public RecurringSchedule getSchedule() {
		return this.schedule;
	}

	/** The payload of each occurrence: a copy of the bytes. */
	public byte[] getPayload() {
		return this.payload.clone();
	}

	/** The payload as UTF-8 text. */
	public String getPayloadText() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

	public Map<String, String> getHeaders() {
		return this.headers;
	}

	/** The TTR of each occurrence, or {@code null} for the queue's default. */
	public @Nullable Duration getTtr() {
		return this.ttr;
	}

	/** The attempts of each occurrence, or {@code null} for the queue's default. */
	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public MisfirePolicy getMisfirePolicy() {
		return this.misfirePolicy;
	}

	/** How late a tick may be fired and still count as on time; {@link #DEFAULT_MISFIRE_THRESHOLD} unless set. */
	public Duration getMisfireThreshold() {
		return this.misfireThreshold;
	}

	/** Most occurrences a {@link MisfirePolicy#FIRE_ALL} firing creates; {@link #DEFAULT_MAX_CATCH_UP} unless set. */
	public int getMaxCatchUp() {
		return this.maxCatchUp;
	}

	public OverlapPolicy getOverlapPolicy() {
		return this.overlapPolicy;
	}

	/** Whether the definition is declared in {@code delayqueue.recurring.<name>.*}. */
	public boolean isDeclared() {
		return this.declared;
	}

	@Override
	public String toString() {
		return "RecurringJob[" + this.name + ", topic " + this.topic + ", " + this.schedule + "]";
	}

	/** Builds a {@link RecurringJob}; {@link #build()} checks every rule. */
	public static final class Builder {

		private final String name;

		private @Nullable String topic;

		private @Nullable RecurringSchedule schedule;

		private byte[] payload = new byte[0];

		private Map<String, String> headers = new LinkedHashMap<>();

		private @Nullable Duration ttr;

		private @Nullable Integer maxAttempts;

		private MisfirePolicy misfirePolicy = MisfirePolicy.FIRE_ONCE;

		private Duration misfireThreshold = DEFAULT_MISFIRE_THRESHOLD;

		private int maxCatchUp = DEFAULT_MAX_CATCH_UP;

		private OverlapPolicy overlapPolicy = OverlapPolicy.ALLOW;

		private boolean declared;

		private Builder(String name) {
			this.name = name;
		}

		public Builder topic(String topic) {
			this.topic = topic;
			return this;
		}

		public Builder schedule(RecurringSchedule schedule) {
			this.schedule = schedule;
			return this;
		}

		/** Shortcut for {@code schedule(RecurringSchedule.cron(cron, zone))}. */
		public Builder cron(String cron, String zone) {
			return schedule(RecurringSchedule.cron(cron, zone));
		}

		/** Shortcut for {@code schedule(RecurringSchedule.every(period))}. */
		public Builder every(Duration period) {
			return schedule(RecurringSchedule.every(period));
		}

		/** Shortcut for {@code schedule(RecurringSchedule.fixedDelay(delay))}. */
		public Builder fixedDelay(Duration delay) {
			return schedule(RecurringSchedule.fixedDelay(delay));
		}

		/** The payload of each occurrence, as the listener reads it. */
		public Builder payload(byte[] payload) {
			this.payload = payload;
			return this;
		}

		/** The payload as UTF-8 text. */
		@SuppressWarnings("NullAway") // a null text is refused by build(), as a null byte[] is
		public Builder payload(String payload) {
			return payload((payload != null) ? payload.getBytes(StandardCharsets.UTF_8) : null);
		}

		public Builder header(String name, String value) {
			this.headers.put(name, value);
			return this;
		}

		public Builder headers(Map<String, String> headers) {
			this.headers = new LinkedHashMap<>(headers);
			return this;
		}

		public Builder ttr(Duration ttr) {
			this.ttr = ttr;
			return this;
		}

		public Builder maxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
			return this;
		}

		public Builder misfirePolicy(MisfirePolicy misfirePolicy) {
			this.misfirePolicy = misfirePolicy;
			return this;
		}

		public Builder misfireThreshold(Duration misfireThreshold) {
			this.misfireThreshold = misfireThreshold;
			return this;
		}

		public Builder maxCatchUp(int maxCatchUp) {
			this.maxCatchUp = maxCatchUp;
			return this;
		}

		public Builder overlapPolicy(OverlapPolicy overlapPolicy) {
			this.overlapPolicy = overlapPolicy;
			return this;
		}

		/** Marks the definition as declared in the configuration. */
		public Builder declared(boolean declared) {
			this.declared = declared;
			return this;
		}

		/** Checks every rule and builds; an {@link IllegalArgumentException} names the field and the rule. */
		public RecurringJob build() {
			return new RecurringJob(this);
		}

	}

}
