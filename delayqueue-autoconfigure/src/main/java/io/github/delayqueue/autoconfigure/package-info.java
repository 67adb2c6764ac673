/**
 * Auto-configuration for delayqueue, with its configuration properties and failure analyzers.
 */
@NullMarked
package io.github.delayqueue.autoconfigure;

import org.jspecify.annotations.NullMarked;
