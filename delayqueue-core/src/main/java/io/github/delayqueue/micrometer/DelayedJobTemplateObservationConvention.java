package io.github.delayqueue.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * An {@link ObservationConvention} for {@link DelayQueueObservation#TEMPLATE}: implement it
 * (or extend {@link DefaultDelayedJobTemplateObservationConvention}) to change its name or
 * keys, and give it to {@code DelayedJobTemplate.setObservationConvention}.
 */
public interface DelayedJobTemplateObservationConvention extends ObservationConvention<DelayedJobSenderContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedJobSenderContext;
	}

}
