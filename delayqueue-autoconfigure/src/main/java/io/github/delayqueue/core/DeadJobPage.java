package io.github.delayqueue.core;

import java.util.List;

/**
 * A page of a topic's DEAD jobs, the oldest deaths first, as
 * {@link DelayQueueOperations#deadJobs} reads it.
 *
 * @param total how many DEAD jobs the topic has
 * @param offset how many of the oldest were skipped
 * @param jobs the page (each {@link JobInfo#diedAt()} and {@link JobInfo#lastError()} set;
 * payloads only when asked for)
 */
public record DeadJobPage(long total, int offset, List<JobInfo> jobs) {

}
