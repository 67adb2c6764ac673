package io.github.delayqueue.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Stream;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The observations of one {@link DelayedJobTemplate}'s writes and the trace headers they
 * store with the jobs; a tracer's failure is logged at debug level, never thrown.
 */
final class TemplateObservations {

	private static final Log logger = LogFactory.getLog(DelayedJobTemplate.class);

	private final DelayQueueProducer producer;

	private volatile boolean enabled;

	private volatile ObservationRegistry registry = ObservationRegistry.NOOP;

	private volatile @Nullable DelayedJobTemplateObservationConvention convention;

	TemplateObservations(DelayQueueProducer producer) {
		this.producer = producer;
	}

	void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	void setRegistry(ObservationRegistry registry) {
		Assert.notNull(registry, "observationRegistry must not be null");
		this.registry = registry;
	}

	void setConvention(@Nullable DelayedJobTemplateObservationConvention convention) {
		this.convention = convention;
	}

	boolean isObserved() {
		return this.enabled && !this.registry.isNoop();
	}

	/** Runs a write, observed when on; it gets the trace headers, empty outside a trace. */
	<T> T observe(String operation, String topic, @Nullable String id, int jobs,
			Function<Map<String, String>, Written<T>> write, Function<T, String> outcome) {
		DelayedJobSenderContext context = isObserved() ? new DelayedJobSenderContext(operation, topic, id, jobs) : null;
		Observation observation = (context != null) ? start(context) : null;
		if (context == null || observation == null) {
			return write.apply(Map.of()).result();
		}
		Written<T> written = inScope(observation, context, write);
		context.setOutcome(written.afterCommit() ? "after-commit" : outcome.apply(written.result()));
		stop(observation);
		return written.result();
	}

	/** Runs an asynchronous schedule, observed until its future completes. */
	CompletableFuture<ScheduleResult> observeAsync(ScheduleRequest request,
			Function<Map<String, String>, CompletableFuture<ScheduleResult>> submit) {
		DelayedJobSenderContext context = isObserved()
				? new DelayedJobSenderContext("schedule-async", request.topic(), request.id(), 1) : null;
		Observation observation = (context != null) ? start(context) : null;
		if (context == null || observation == null) {
			return submit.apply(Map.of());
		}
		CompletableFuture<ScheduleResult> result = inScope(observation, context, submit);
		return result.whenComplete((written, failure) -> {
			if (failure instanceof CancellationException) {
				context.setOutcome("rolled-back");
			}
			else if (failure != null) {
				error(observation, failure);
			}
			else {
				context.setOutcome(outcomeOf(written));
			}
			stop(observation);
		});
	}

	/** The request with the trace headers, when they fit; the job's own headers win. */
	ScheduleRequest traced(ScheduleRequest request, Map<String, String> trace) {
		if (trace.isEmpty()) {
			return request;
		}
		Map<String, String> headers = new LinkedHashMap<>(request.headers());
		trace.forEach(headers::putIfAbsent);
		try {
			ScheduleRequest traced = new ScheduleRequest(request.topic(), request.id(), request.payload(),
					request.delay(), request.dueAt(), request.ttr(), request.maxAttempts(), request.onDuplicate(),
					headers, request.priority());
			// the trace headers count against the size limit: without room, none
			this.producer.check(traced);
			return traced;
		}
		catch (IllegalArgumentException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Job " + request.id() + " of topic " + request.topic()
						+ " is stored without its trace headers " + trace.keySet() + ": " + ex.getMessage());
			}
			return request;
		}
	}

	static String outcomeOf(ScheduleResult result) {
		if (result.afterCommit()) {
			return "after-commit";
		}
		return result.created() ? "created" : "kept";
	}

	static String outcomeOf(List<ScheduleResult> results) {
		return mixed(results.stream().map(TemplateObservations::outcomeOf));
	}

	/** The one value, {@code mixed} for several, {@code none} for none. */
	static String mixed(Stream<String> values) {
		return values.distinct().reduce((one, other) -> "mixed").orElse("none");
	}

	/** Starts an observation; {@code null} when the tracer failed. */
	private @Nullable Observation start(DelayedJobSenderContext context) {
		try {
			return Observation.createNotStarted(this.convention, DefaultDelayedJobTemplateObservationConvention.INSTANCE,
					() -> context, this.registry)
				.start();
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not start; the write goes on without it", ex);
			return null;
		}
	}

	/** Runs work in the observation's scope, with the trace headers when another observation is current. */
	private <T> T inScope(Observation observation, DelayedJobSenderContext context,
			Function<Map<String, String>, T> work) {
		Map<String, String> trace = (this.registry.getCurrentObservation() != null) ? context.getTraceHeaders() : Map.of();
		try (Observation.Scope scope = openScope(observation)) {
			return work.apply(trace);
		}
		catch (RuntimeException | Error ex) {
			error(observation, ex);
			stop(observation);
			throw ex;
		}
	}

	private static Observation.Scope openScope(Observation observation) {
		try {
			return observation.openScope();
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not open its scope", ex);
			return Observation.Scope.NOOP;
		}
	}

	private static void error(Observation observation, Throwable failure) {
		quietly(() -> observation.error(failure), "take its error");
	}

	private static void stop(Observation observation) {
		quietly(observation::stop, "stop");
	}

	private static void quietly(Runnable step, String what) {
		try {
			step.run();
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not " + what, ex);
		}
	}

	/** What a write returned, and whether it waits for its transaction's commit. */
	record Written<T>(T result, boolean afterCommit) {

	}

}
