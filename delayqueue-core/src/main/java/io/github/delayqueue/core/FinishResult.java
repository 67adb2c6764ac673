package io.github.delayqueue.core;

import java.util.List;

/**
 * What {@link DelayQueueConsumer#finishAndReserve} did.
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

}
