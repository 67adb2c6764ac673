package io.github.delayqueue.micrometer;

import io.github.delayqueue.micrometer.DelayQueueObservation.ListenerHighCardinalityTags;
import io.github.delayqueue.micrometer.DelayQueueObservation.ListenerLowCardinalityTags;
import io.micrometer.common.KeyValues;

/**
 * The default {@link DelayedListenerObservationConvention}: named {@code delayqueue.listener},
 * its span {@code process <topic>}.
 */
public class DefaultDelayedListenerObservationConvention implements DelayedListenerObservationConvention {

	/** A shared instance. */
	public static final DefaultDelayedListenerObservationConvention INSTANCE = new DefaultDelayedListenerObservationConvention();

	@Override
	public String getName() {
		return "delayqueue.listener";
	}

	@Override
	public String getContextualName(DelayedJobReceiverContext context) {
		return "process " + context.getJob().topic();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(DelayedJobReceiverContext context) {
		return KeyValues.of(ListenerLowCardinalityTags.TOPIC.withValue(context.getJob().topic()),
				ListenerLowCardinalityTags.LISTENER_ID.withValue(context.getListenerId()),
				ListenerLowCardinalityTags.OUTCOME.withValue(context.getOutcome()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(DelayedJobReceiverContext context) {
		return KeyValues.of(ListenerHighCardinalityTags.JOB_ID.withValue(context.getJob().id()),
				ListenerHighCardinalityTags.ATTEMPT.withValue(String.valueOf(context.getJob().attempt())));
	}

}
