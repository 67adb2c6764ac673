package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.ReactiveDelayedJobTemplate;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link ReactiveDelayedJobTemplate} when Reactor is on the class
 * path.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(Mono.class)
@ConditionalOnBean(DelayedJobOperations.class)
public final class DelayQueueReactiveAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ReactiveDelayedJobTemplate reactiveDelayedJobTemplate(DelayedJobOperations operations) {
		return new ReactiveDelayedJobTemplate(operations);
	}

}
