/**
 * Listener endpoints, their registry and registrar, and the container factories that build
 * a listener container for each endpoint.
 */
@NullMarked
package io.github.delayqueue.config;

import org.jspecify.annotations.NullMarked;
