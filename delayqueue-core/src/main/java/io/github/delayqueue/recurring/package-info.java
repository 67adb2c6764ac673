/**
 * Recurring jobs: cron and fixed-rate schedules that create one job per tick.
 */
@NullMarked
package io.github.delayqueue.recurring;

import org.jspecify.annotations.NullMarked;
