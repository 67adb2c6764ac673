package io.github.delayqueue.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * An {@link ObservationConvention} for {@link DelayQueueObservation#LISTENER}, given to the
 * container factory's {@code setObservationConvention}.
 */
public interface DelayedListenerObservationConvention extends ObservationConvention<DelayedJobReceiverContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedJobReceiverContext;
	}

}
