package io.github.delayqueue.core;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * An {@link ObservationConvention} for the template's {@code delayqueue.template}
 * observations: implement it (or extend {@link DefaultDelayedJobTemplateObservationConvention})
 * and give it to {@link DelayedJobTemplate#setObservationConvention}.
 */
public interface DelayedJobTemplateObservationConvention extends ObservationConvention<DelayedJobSenderContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedJobSenderContext;
	}

	/**
	 * Low cardinality keys of the template's observations.
	 */
	enum TemplateLowCardinalityTags implements KeyName {

		/** {@code schedule}, {@code schedule-all}, {@code schedule-async}, {@code cancel} or {@code reschedule}. */
		OPERATION("delayqueue.operation"),

		/** The job's topic; {@code mixed} for a batch of several topics. */
		TOPIC("delayqueue.topic"),

		/**
		 * What the write did: {@code created}, {@code kept}, {@code cancelled},
		 * {@code not-found}, {@code rescheduled}, {@code not-waiting}, {@code after-commit} or
		 * {@code error}.
		 */
		OUTCOME("delayqueue.outcome");

		private final String key;

		TemplateLowCardinalityTags(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

	/**
	 * High cardinality keys of the template's observations.
	 */
	enum TemplateHighCardinalityTags implements KeyName {

		/** The job's id (not set for a batch). */
		JOB_ID("delayqueue.job.id"),

		/** How many jobs the write is for. */
		JOBS("delayqueue.jobs");

		private final String key;

		TemplateHighCardinalityTags(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

}
