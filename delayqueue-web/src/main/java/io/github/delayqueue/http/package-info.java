/**
 * The JSON-over-HTTP job API for services that are not written in Java.
 */
@NullMarked
package io.github.delayqueue.http;

import org.jspecify.annotations.NullMarked;
