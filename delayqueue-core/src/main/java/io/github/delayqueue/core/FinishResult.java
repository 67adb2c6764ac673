package io.github.delayqueue.core;

import java.util.List;

/**
 * What {@link DelayQueueConsumer#finishAndReserve} did.
 *
 * @param stale the jobs not finished because their reservation was stale
 * @param next the jobs reserved next, possibly none
 */
public record FinishResult(List<ReservedJob> stale, List<ReservedJob> next) {

	public FinishResult {
		stale = List.copyOf(stale);
		next = List.copyOf(next);
	}

}
