/**
 * Actuator support: the {@code delayqueue} endpoint, health indicator and metrics.
 */
@NullMarked
package io.github.delayqueue.actuate;

import org.jspecify.annotations.NullMarked;
