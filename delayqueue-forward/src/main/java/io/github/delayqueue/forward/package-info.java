/**
 * Forwarding of due jobs into a broker: the endpoint and the forwarder contract that the
 * modules {@code delayqueue-kafka} and {@code delayqueue-rabbit} implement.
 */
@NullMarked
package io.github.delayqueue.forward;

import org.jspecify.annotations.NullMarked;
