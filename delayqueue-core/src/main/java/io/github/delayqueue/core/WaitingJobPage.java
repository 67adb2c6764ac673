package io.github.delayqueue.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A page of a topic's waiting jobs of one state, as {@link DelayQueueAdmin#waitingJobs} reads it.
 * A page may hold fewer jobs than asked, even none, and still have a next one.
 *
 * @param jobs the page
 * @param next the cursor of the next page, or {@code null} when this page is the last
 */
public record WaitingJobPage(List<JobInfo> jobs, @Nullable String next) {

}
