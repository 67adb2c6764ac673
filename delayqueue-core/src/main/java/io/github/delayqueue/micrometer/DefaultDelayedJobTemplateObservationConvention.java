package io.github.delayqueue.micrometer;

import io.github.delayqueue.micrometer.DelayQueueObservation.TemplateHighCardinalityTags;
import io.github.delayqueue.micrometer.DelayQueueObservation.TemplateLowCardinalityTags;
import io.micrometer.common.KeyValues;

/**
 * The default {@link DelayedJobTemplateObservationConvention}: named
 * {@code delayqueue.template}, with the operation, topic and outcome as low cardinality keys
 * and the job id and job count as high cardinality ones; the span is named after the
 * operation and topic, such as {@code schedule order-close}.
 */
public class DefaultDelayedJobTemplateObservationConvention implements DelayedJobTemplateObservationConvention {

	/** A shared instance. */
	public static final DefaultDelayedJobTemplateObservationConvention INSTANCE = new DefaultDelayedJobTemplateObservationConvention();

	@Override
	public String getName() {
		return "delayqueue.template";
	}

	@Override
	public String getContextualName(DelayedJobSenderContext context) {
		return context.getOperation() + " " + context.getTopic();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(DelayedJobSenderContext context) {
		return KeyValues.of(TemplateLowCardinalityTags.OPERATION.withValue(context.getOperation()),
				TemplateLowCardinalityTags.TOPIC.withValue(context.getTopic()),
				TemplateLowCardinalityTags.OUTCOME.withValue(context.getOutcome()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(DelayedJobSenderContext context) {
		KeyValues values = KeyValues.of(TemplateHighCardinalityTags.JOBS.withValue(String.valueOf(context.getJobs())));
		return (context.getJobId() != null) ? values.and(TemplateHighCardinalityTags.JOB_ID.withValue(context.getJobId()))
				: values;
	}

}
