package io.github.delayqueue.core;

/**
 * What {@link DelayQueueAdmin#repair} found, over every bucket.
 *
 * @param jobs the job records read
 * @param reindexed jobs put back into the index their state names
 * @param dropped index entries dropped because no job in that state had them, and last errors
 * kept for jobs that no longer exist
 * @param countsCorrected state count fields that were wrong (or missing)
 * @param unreadable job records not in this version's format (left as they are)
 */
public record RepairResult(long jobs, long reindexed, long dropped, long countsCorrected, long unreadable) {

	/** Whether the queue held to its invariant: every figure but {@code jobs} is zero. */
	public boolean isClean() {
		return this.reindexed == 0 && this.dropped == 0 && this.countsCorrected == 0 && this.unreadable == 0;
	}

}
