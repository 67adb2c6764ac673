/**
 * The JDBC transactional outbox of the template's writes in a transaction, and its recovery pass.
 */
@NullMarked
package io.github.delayqueue.outbox;

import org.jspecify.annotations.NullMarked;
