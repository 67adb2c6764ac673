package io.github.delayqueue.outbox;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * Binds {@code delayqueue.outbox.*} whenever this module is on the class path, so that a
 * misspelt name, {@code enabled} among them, fails the start also while the outbox is off.
 */
@AutoConfiguration
@EnableConfigurationProperties(DelayQueueOutboxProperties.class)
public final class DelayQueueOutboxPropertiesAutoConfiguration {

}
