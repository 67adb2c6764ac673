package io.github.delayqueue.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A page of a topic's DEAD jobs, in order of death (the oldest first), as
 * {@link DelayQueueAdmin#deadJobs} reads it.
 *
 * @param total how many DEAD jobs the topic has
 * @param jobs the page
 * @param next the cursor of the next page, or {@code null} when this page is the last
 */
public record DeadJobPage(long total, List<JobInfo> jobs, @Nullable String next) {

}
