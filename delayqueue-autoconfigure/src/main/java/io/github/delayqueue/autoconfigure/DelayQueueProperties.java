package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the delay queue ({@code delayqueue.*}).
 */
@ConfigurationProperties("delayqueue")
public class DelayQueueProperties {

	/**
	 * Whether to auto-configure the delay queue.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and of the pub/sub channel. Applications that share a Redis
	 * and should not share jobs use different namespaces.
	 */
	private String namespace = "delayqueue";

	/**
	 * Number of buckets (independent shards, each with its own timer and hash slot). Every
	 * instance of a namespace must use the same number; changing it strands existing jobs.
	 */
	private int buckets = 16;

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
	private String instanceId;

	private final Timer timer = new Timer();

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

	public int getBuckets() {
		return this.buckets;
	}

	public void setBuckets(int buckets) {
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

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	public Timer getTimer() {
		return this.timer;
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
		 * How often every owned bucket is re-checked, to heal a lost notification. Also how
		 * often topics with ready jobs are re-announced to consumers.
		 */
		private Duration guardInterval = Duration.ofSeconds(5);

		/**
		 * How long an instance keeps its buckets without a heartbeat. A crashed instance's
		 * buckets are taken over within this time plus at most one second; the heartbeat is
		 * sent every fifth of it (at most every second).
		 */
		private Duration leaseTtl = Duration.ofSeconds(5);

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

	}

}
