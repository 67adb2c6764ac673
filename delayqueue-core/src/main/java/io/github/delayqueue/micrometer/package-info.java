/**
 * Micrometer observations of the template and the listeners, with their conventions and contexts.
 */
@NullMarked
package io.github.delayqueue.micrometer;

import org.jspecify.annotations.NullMarked;
