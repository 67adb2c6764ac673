package io.github.delayqueue.micrometer;

import io.github.delayqueue.core.DefaultDelayedJobTemplateObservationConvention;
import io.github.delayqueue.core.DelayedJobTemplateObservationConvention.TemplateHighCardinalityTags;
import io.github.delayqueue.core.DelayedJobTemplateObservationConvention.TemplateLowCardinalityTags;
import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the delay queue: writes through the template and jobs handled by a
 * listener container, named by their default conventions. Off unless enabled.
 */
public enum DelayQueueObservation implements ObservationDocumentation {

	/**
	 * A write through {@code DelayedJobTemplate}; a current trace context is stored with
	 * each scheduled job as headers.
	 */
	TEMPLATE {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultDelayedJobTemplateObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return TemplateLowCardinalityTags.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return TemplateHighCardinalityTags.values();
		}

	},

	/**
	 * A listener container handling one job, continuing the trace stored with it.
	 */
	LISTENER {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultDelayedListenerObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return ListenerLowCardinalityTags.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return ListenerHighCardinalityTags.values();
		}

	};

	/**
	 * Low cardinality keys of {@link #LISTENER}.
	 */
	public enum ListenerLowCardinalityTags implements KeyName {

		/** The job's topic. */
		TOPIC("delayqueue.topic"),

		/** The listener container's id. */
		LISTENER_ID("delayqueue.listener.id"),

		/** What became of the job, as the {@code delayqueue.jobs.handled} metric tags it. */
		OUTCOME("delayqueue.outcome");

		private final String key;

		ListenerLowCardinalityTags(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

	/**
	 * High cardinality keys of {@link #LISTENER}.
	 */
	public enum ListenerHighCardinalityTags implements KeyName {

		/** The job's id. */
		JOB_ID("delayqueue.job.id"),

		/** The delivery's attempt, from 1. */
		ATTEMPT("delayqueue.attempt");

		private final String key;

		ListenerHighCardinalityTags(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

}
