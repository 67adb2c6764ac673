package io.github.delayqueue.core;

import io.micrometer.common.KeyValues;

/**
 * The default {@link DelayedJobTemplateObservationConvention}: named
 * {@code delayqueue.template}, its span named after the operation and topic, such as
 * {@code schedule order-close}.
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
