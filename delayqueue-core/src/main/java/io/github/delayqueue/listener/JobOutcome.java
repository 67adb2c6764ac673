package io.github.delayqueue.listener;

import java.time.Instant;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * How a listener handled one delivery of a job, as the {@link JobOutcomeStream} carries it.
 *
 * @param topic the job's topic
 * @param id the job's id
 * @param outcome the outcome, as {@link DelayedJobOutcomeEvent#getOutcome()} names it
 * @param attempt the attempt that ran (1 for the first)
 * @param maxAttempts the job's attempts limit
 * @param listenerId the id of the listener container that ran it
 * @param instanceId the id of the instance that ran it ({@code delayqueue.instance-id})
 * @param error what the listener threw ({@code class: message}), or {@code null}
 * @param at when the outcome was decided, by the clock of the instance that ran it
 */
public record JobOutcome(String topic, String id, String outcome, int attempt, int maxAttempts, String listenerId,
		String instanceId, @Nullable String error, Instant at) {

	private static final Set<String> FINAL = Set.of("success", "skipped", "dead", "recovered");

	/**
	 * Return whether the job is done with: success, skipped, dead or recovered.
	 * @return {@code true} for a final outcome
	 */
	public boolean isFinal() {
		return FINAL.contains(this.outcome);
	}

}
