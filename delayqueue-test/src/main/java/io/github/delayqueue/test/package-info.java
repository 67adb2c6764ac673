/**
 * Test support: a real Redis server for tests,
 * {@link io.github.delayqueue.test.AutoConfigureTestRedis @AutoConfigureTestRedis} for Spring
 * tests, local Cluster and Sentinel set-ups and a checker of the queue's invariant.
 */
@NullMarked
package io.github.delayqueue.test;

import org.jspecify.annotations.NullMarked;
