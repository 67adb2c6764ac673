/**
 * Listener containers, which reserve jobs and hand them to listeners, with their error
 * handling, recoverers, interceptors, headers and events.
 */
@NullMarked
package io.github.delayqueue.listener;

import org.jspecify.annotations.NullMarked;
