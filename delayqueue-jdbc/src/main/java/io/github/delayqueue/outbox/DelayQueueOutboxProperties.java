package io.github.delayqueue.outbox;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * The transactional outbox ({@code delayqueue.outbox.*}): schedules made in a transaction are
 * stored in a table of the application's database in that transaction and relayed to Redis
 * after the commit. Its schema is created as {@code initialize-schema} says, from
 * {@code schema} (the shipped script of the database's platform by default).
 */
@ConfigurationProperties("delayqueue.outbox")
public class DelayQueueOutboxProperties extends DatabaseInitializationProperties {

	private static final String DEFAULT_SCHEMA_LOCATION = "classpath:io/github/delayqueue/outbox/schema-@@platform@@.sql";

	/**
	 * Store the writes DelayedJobTemplate holds back in a transaction in the table
	 * "delayqueue_outbox" of the application's DataSource, in that transaction, so that a
	 * crash between the commit and the write to Redis does not lose them.
	 */
	private boolean enabled;

	/**
	 * How often each instance looks for committed writes that were not relayed (a crash,
	 * Redis unreachable after the commit) and relays them.
	 */
	private Duration recoveryInterval = Duration.ofSeconds(30);

	/**
	 * How long after its commit a transaction's rows are taken by recovery as not relayed:
	 * longer than a relay after the commit (and the delete of its rows) takes.
	 */
	private Duration strandedAfter = Duration.ofMinutes(1);

	/**
	 * How long an instance holds the rows it recovers before another may take them.
	 */
	private Duration claimFor = Duration.ofMinutes(5);

	public DelayQueueOutboxProperties() {
		setInitializeSchema(DatabaseInitializationMode.EMBEDDED);
	}

	@Override
	public String getDefaultSchemaLocation() {
		return DEFAULT_SCHEMA_LOCATION;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getRecoveryInterval() {
		return this.recoveryInterval;
	}

	public void setRecoveryInterval(Duration recoveryInterval) {
		this.recoveryInterval = recoveryInterval;
	}

	public Duration getStrandedAfter() {
		return this.strandedAfter;
	}

	public void setStrandedAfter(Duration strandedAfter) {
		this.strandedAfter = strandedAfter;
	}

	public Duration getClaimFor() {
		return this.claimFor;
	}

	public void setClaimFor(Duration claimFor) {
		this.claimFor = claimFor;
	}

}
