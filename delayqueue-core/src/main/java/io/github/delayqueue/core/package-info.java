/**
 * The delay queue's API: {@link io.github.delayqueue.core.DelayedJobOperations} (implemented
 * by {@link io.github.delayqueue.core.DelayedJobTemplate}) to schedule jobs,
 * {@link io.github.delayqueue.core.DelayQueueOperations} for its producer, consumer and admin
 * sides, and the jobs, results and exceptions they exchange.
 */
@NullMarked
package io.github.delayqueue.core;

import org.jspecify.annotations.NullMarked;
