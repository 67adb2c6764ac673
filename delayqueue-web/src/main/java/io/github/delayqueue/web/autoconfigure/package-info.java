/**
 * Auto-configuration of the HTTP job API and the dashboard.
 */
@NullMarked
package io.github.delayqueue.web.autoconfigure;

import org.jspecify.annotations.NullMarked;
