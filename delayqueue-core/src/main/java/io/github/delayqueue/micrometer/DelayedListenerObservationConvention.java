package io.github.delayqueue.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * An {@link ObservationConvention} for {@link DelayQueueObservation#LISTENER}: implement it
 * (or extend {@link DefaultDelayedListenerObservationConvention}) to change its name or keys,
 * and give it to the container factory's {@code setObservationConvention}.
 */
public interface DelayedListenerObservationConvention extends ObservationConvention<DelayedJobReceiverContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedJobReceiverContext;
	}

}
