package io.github.delayqueue.web.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * Binds {@code delayqueue.http.*} and {@code delayqueue.dashboard.*} whenever this module is on
 * the class path, so that a misspelt name fails the start also while the API and the
 * dashboard are off.
 */
@AutoConfiguration
@EnableConfigurationProperties({ DelayQueueHttpProperties.class, DelayQueueDashboardProperties.class })
public final class DelayQueueWebPropertiesAutoConfiguration {

}
