package io.github.delayqueue.core;

import java.util.List;

/**
 * What {@link DelayQueueOperations#finishAndReserve} did.
 *
 * @param stale the jobs that were not finished because their reservation was stale
 * (redelivered, cancelled, replaced or gone); nothing was changed for them
 * @param next the jobs reserved next, possibly none; each must be finished, failed or
 * released before its TTR runs out
 */
public record FinishResult(List<ReservedJob> stale, List<ReservedJob> next) {

	public FinishResult {
		stale = List.copyOf(stale);
		next = List.copyOf(next);
	}

	/**
	 * Checks the jobs of a {@link DelayQueueOperations#finishAndReserve} call.
	 * @param jobs the jobs
	 * @return their one topic
	 * @throws IllegalArgumentException when there are none, one is {@code null}, or they are
	 * of more than one topic
	 */
	public static String topicOf(List<ReservedJob> jobs) {
		if (jobs == null || jobs.isEmpty()) {
			throw new IllegalArgumentException("jobs must not be null or empty");
		}
		String topic = null;
		for (int i = 0; i < jobs.size(); i++) {
			ReservedJob job = jobs.get(i);
			if (job == null) {
				throw new IllegalArgumentException("jobs[" + i + "] must not be null");
			}
			if (topic == null) {
				topic = job.topic();
			}
			else if (!topic.equals(job.topic())) {
				throw new IllegalArgumentException("jobs must all be of one topic: jobs[0] is of '" + topic
						+ "', jobs[" + i + "] of '" + job.topic() + "'");
			}
		}
		return topic;
	}

}
