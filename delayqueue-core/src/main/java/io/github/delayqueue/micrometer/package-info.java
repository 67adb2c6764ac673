/**
 * Micrometer observations of the delay queue, with the listeners' convention and context.
 */
@NullMarked
package io.github.delayqueue.micrometer;

import org.jspecify.annotations.NullMarked;
