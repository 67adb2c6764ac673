package io.github.delayqueue.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The observations of one {@link DelayedJobTemplate}'s writes and the trace headers they
 * store with the jobs.
 */
final class TemplateObservations {

	private static final Log logger = LogFactory.getLog(DelayedJobTemplate.class);

	private final DelayQueueProducer producer;

	private volatile @Nullable ObservationRegistry registry;

	private volatile @Nullable DelayedJobTemplateObservationConvention convention;

	TemplateObservations(DelayQueueProducer producer) {
		this.producer = producer;
	}

	void setRegistry(@Nullable ObservationRegistry registry) {
		this.registry = registry;
	}

	void setConvention(@Nullable DelayedJobTemplateObservationConvention convention) {
		this.convention = convention;
	}

	/** Runs a write that answers at once, as {@link #observeAsync} does. */
	<T> T observe(String operation, String topic, @Nullable String id, int jobs,
			Function<Map<String, String>, Written<T>> write, Function<T, String> outcome) {
		return observeAsync(operation, topic, id, jobs, (trace) -> CompletableFuture.completedFuture(write.apply(trace)),
				(written) -> written.afterCommit() ? "after-commit" : outcome.apply(written.result()))
			.join()
			.result();
	}

	/**
	 * Runs a write, observed when on until its future completes; it gets the trace headers,
	 * empty outside a trace.
	 */
	<R> CompletableFuture<R> observeAsync(String operation, String topic, @Nullable String id, int jobs,
			Function<Map<String, String>, CompletableFuture<R>> write, Function<R, String> outcome) {
		ObservationRegistry registry = this.registry;
		if (registry == null || registry.isNoop()) {
			return write.apply(Map.of());
		}
		DelayedJobSenderContext context = new DelayedJobSenderContext(operation, topic, id, jobs);
		// a tracer's failure must not decide a write's outcome: the write goes on without its observation
		Observation observation = attempt("start", () -> Observation.createNotStarted(this.convention,
				DefaultDelayedJobTemplateObservationConvention.INSTANCE, () -> context, registry).start(),
				Observation.NOOP);
		// completed as the write's once the observation stopped, also when a handler threw an Error
		// there: cancelled by a rollback (a CancellationException cancels it), not failed
		CompletableFuture<R> observed = new CompletableFuture<>();
		inScope(registry, observation, () -> write.apply(trace(observation, context))).whenComplete((written, failure) -> {
			try {
				if (failure == null || failure instanceof CancellationException) {
					context.setOutcome((failure != null) ? "rolled-back" : outcome.apply(written));
					quietly("stop", observation::stop);
				}
				else {
					fail(observation, failure);
				}
			}
			finally {
				if (failure != null) {
					observed.completeExceptionally(failure);
				}
				else {
					observed.complete(written);
				}
			}
		});
		return observed;
	}

	private static <R> R inScope(ObservationRegistry registry, Observation observation, Supplier<R> work) {
		Observation.Scope enclosing = registry.getCurrentObservationScope();
		Observation.Scope scope = attempt("open its scope", observation::openScope, Observation.Scope.NOOP);
		try {
			try {
				return work.get();
			}
			finally {
				quietly("close its scope", scope::close);
				// a handler that threw while opening or closing it left the scope current on this thread
				registry.setCurrentObservationScope(enclosing);
			}
		}
		catch (RuntimeException | Error ex) {
			fail(observation, ex);
			throw ex;
		}
	}

	private static void fail(Observation observation, Throwable failure) {
		quietly("take its error", () -> observation.error(failure));
		quietly("stop", observation::stop);
	}

	private static void quietly(String what, Runnable step) {
		attempt(what, () -> {
			step.run();
			return what;
		}, what);
	}

	private static <R> R attempt(String what, Supplier<R> step, R otherwise) {
		try {
			return step.get();
		}
		catch (RuntimeException ex) {
			logger.debug("A delayqueue.template observation could not " + what + "; the write goes on without it", ex);
			return otherwise;
		}
	}

	/** The trace headers of a started observation when it has a parent, else none. */
	private static Map<String, String> trace(Observation observation, DelayedJobSenderContext context) {
		return (!observation.isNoop() && context.getParentObservation() != null) ? context.getTraceHeaders() : Map.of();
	}

	/**
	 * The request with the trace headers when it passes the queue's check with them (the job's own headers
	 * win), else as given; checked here when {@code held} back (the queue checks one it writes at once).
	 * @throws IllegalArgumentException when the queue refuses a held request as given
	 */
	ScheduleRequest checked(ScheduleRequest request, Map<String, String> trace, boolean held) {
		if (!trace.isEmpty()) {
			Map<String, String> headers = new LinkedHashMap<>(request.headers());
			trace.forEach(headers::putIfAbsent);
			try {
				ScheduleRequest traced = new ScheduleRequest(request.topic(), request.id(), request.payload(),
						request.delay(), request.dueAt(), request.ttr(), request.maxAttempts(), request.onDuplicate(),
						headers, request.priority());
				this.producer.check(traced);
				return traced;
			}
			catch (IllegalArgumentException ex) {
				logger.debug("Job " + request.id() + " of topic " + request.topic() + " is stored without its trace headers "
						+ trace.keySet() + ": " + ex.getMessage());
			}
		}
		if (held) {
			this.producer.check(request);
		}
		return request;
	}

	static String outcomeOf(ScheduleResult result) {
		return result.created() ? "created" : "kept";
	}

	static String outcomeOf(List<ScheduleResult> results) {
		return mixed(results.stream().map(TemplateObservations::outcomeOf));
	}

	/** The one value, {@code mixed} for several, {@code none} for none. */
	static String mixed(Stream<String> values) {
		return values.distinct().reduce((one, other) -> "mixed").orElse("none");
	}

	/** What a write returned, and whether it waits for its transaction's commit. */
	record Written<T>(T result, boolean afterCommit) {

	}

}
