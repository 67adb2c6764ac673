/**
 * {@link io.github.delayqueue.annotation.DelayedListener @DelayedListener} methods and
 * {@link io.github.delayqueue.annotation.EnableDelayedListeners @EnableDelayedListeners}, with
 * the post-processor that registers them.
 */
@NullMarked
package io.github.delayqueue.annotation;

import org.jspecify.annotations.NullMarked;
