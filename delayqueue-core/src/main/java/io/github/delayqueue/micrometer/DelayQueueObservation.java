package io.github.delayqueue.micrometer;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the delay queue: scheduling through the template, and handling a job
 * in a listener container. Off unless enabled
 * ({@code delayqueue.template.observation-enabled},
 * {@code delayqueue.listener.observation-enabled}, or the setters of the template and the
 * container factory), as in Spring for Apache Kafka.
 */
public enum DelayQueueObservation implements ObservationDocumentation {

	/**
	 * A write through {@code DelayedJobTemplate}: schedule (one job, a batch, asynchronously),
	 * cancel or reschedule. When an observation is current as it starts, its trace context is
	 * stored with each scheduled job (as headers, {@code traceparent} and {@code tracestate}
	 * with W3C propagation) for the listener's observation to continue.
	 */
	TEMPLATE {

		@Override
		public String getName() {
			return "delayqueue.template";
		}

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
	 * A listener container handling one job: the interceptors, the listener method and the
	 * settling of a failure. Continues the trace stored with the job when there is one.
	 */
	LISTENER {

		@Override
		public String getName() {
			return "delayqueue.listener";
		}

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
	 * Low cardinality keys of {@link #TEMPLATE}.
	 */
	public enum TemplateLowCardinalityTags implements KeyName {

		/** {@code schedule}, {@code schedule-all}, {@code schedule-async}, {@code cancel} or {@code reschedule}. */
		OPERATION {
			@Override
			public String asString() {
				return "delayqueue.operation";
			}
		},

		/** The job's topic; {@code mixed} for a batch of several topics. */
		TOPIC {
			@Override
			public String asString() {
				return "delayqueue.topic";
			}
		},

		/**
		 * What the write did: {@code created}, {@code kept}, {@code cancelled},
		 * {@code not-found}, {@code rescheduled}, {@code not-waiting}, {@code after-commit}
		 * (held back in a transaction), {@code error}.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "delayqueue.outcome";
			}
		}

	}

	/**
	 * High cardinality keys of {@link #TEMPLATE}.
	 */
	public enum TemplateHighCardinalityTags implements KeyName {

		/** The job's id (not set for a batch). */
		JOB_ID {
			@Override
			public String asString() {
				return "delayqueue.job.id";
			}
		},

		/** How many jobs the write is for. */
		JOBS {
			@Override
			public String asString() {
				return "delayqueue.jobs";
			}
		}

	}

	/**
	 * Low cardinality keys of {@link #LISTENER}.
	 */
	public enum ListenerLowCardinalityTags implements KeyName {

		/** The job's topic. */
		TOPIC {
			@Override
			public String asString() {
				return "delayqueue.topic";
			}
		},

		/** The listener container's id. */
		LISTENER_ID {
			@Override
			public String asString() {
				return "delayqueue.listener.id";
			}
		},

		/**
		 * What became of the job, as the {@code delayqueue.jobs.handled} metric says it:
		 * {@code success}, {@code skipped}, {@code retry}, {@code dead}, ...
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "delayqueue.outcome";
			}
		}

	}

	/**
	 * High cardinality keys of {@link #LISTENER}.
	 */
	public enum ListenerHighCardinalityTags implements KeyName {

		/** The job's id. */
		JOB_ID {
			@Override
			public String asString() {
				return "delayqueue.job.id";
			}
		},

		/** The delivery's attempt, from 1. */
		ATTEMPT {
			@Override
			public String asString() {
				return "delayqueue.attempt";
			}
		}

	}

}
