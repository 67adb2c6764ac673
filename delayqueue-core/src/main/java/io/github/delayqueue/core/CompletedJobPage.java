package io.github.delayqueue.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A page of the finished jobs a topic keeps ({@link Retention}), the latest finish first, as
 * {@link DelayQueueAdmin#completedJobs} reads it.
 *
 * @param total how many finished jobs the topic keeps
 * @param jobs the page
 * @param next the cursor of the next page, or {@code null} when this page is the last
 */
public record CompletedJobPage(long total, List<JobInfo> jobs, @Nullable String next) {

}
