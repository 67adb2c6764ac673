package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DefaultDelayedJobTemplateObservationConvention;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobSenderContext;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.DelayedJobTemplateObservationConvention;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.micrometer.DelayedJobReceiverContext;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.micrometer.tracing.test.simple.SpansAssert;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Observations of the template and the listeners, through the auto-configuration: a job
 * scheduled in a trace is handled in that trace (W3C {@code traceparent} through Micrometer
 * Tracing's OpenTelemetry bridge), a job scheduled outside one stores nothing more, and the
 * observations carry the documented keys.
 */
class DelayQueueObservationTests {

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	static class TracedListener {

		final List<String> traces = new CopyOnWriteArrayList<>();

		final Tracer tracer;

		TracedListener(Tracer tracer) {
			this.tracer = tracer;
		}

		@DelayedListener(id = "closer", topic = "order-close")
		void close(DelayedJob<String> job) {
			this.traces.add(job.id() + " " + ((this.tracer.currentSpan() != null)
					? this.tracer.currentSpan().context().traceId() : "none"));
			if (job.id().startsWith("fail")) {
				throw new IllegalStateException("payment provider unreachable");
			}
		}

	}

	/** Micrometer Tracing with the OpenTelemetry SDK and W3C propagation, spans in memory. */
	@Configuration(proxyBeanMethods = false)
	static class Tracing {

		@Bean
		InMemorySpanExporter spanExporter() {
			return InMemorySpanExporter.create();
		}

		@Bean(destroyMethod = "close")
		SdkTracerProvider tracerProvider(InMemorySpanExporter exporter) {
			return SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
		}

		@Bean
		OtelTracer tracer(SdkTracerProvider provider) {
			OtelCurrentTraceContext current = new OtelCurrentTraceContext();
			return new OtelTracer(provider.get("test"), current, (event) -> {
			}, new OtelBaggageManager(current, List.of(), List.of()));
		}

		@Bean
		ObservationRegistry observationRegistry(OtelTracer tracer, SdkTracerProvider provider) {
			OtelPropagator propagator = new OtelPropagator(
					ContextPropagators.create(W3CTraceContextPropagator.getInstance()), provider.get("test"));
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig()
				.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
						new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
						new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
						new DefaultTracingObservationHandler(tracer)));
			return registry;
		}

		@Bean
		TracedListener tracedListener(Tracer tracer) {
			return new TracedListener(tracer);
		}

	}

	@Test
	void aJobScheduledInATraceIsHandledInThatTrace() {
		ConfigurableApplicationContext context = this.apps.run(Tracing.class, "delayqueue.buckets=1",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.observation-enabled=true");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		ObservationRegistry registry = context.getBean(ObservationRegistry.class);
		TracedListener listener = context.getBean(TracedListener.class);
		InMemorySpanExporter spans = context.getBean(InMemorySpanExporter.class);
		Observation request = Observation.start("http.server.requests", registry);
		String traceId;
		try (Observation.Scope scope = request.openScope()) {
			traceId = context.getBean(Tracer.class).currentSpan().context().traceId();
			template.schedule("order-close", "traced", "p", Duration.ofMillis(200));
		}
		finally {
			request.stop();
		}
		// outside the trace: a root trace of the listener's own, and nothing stored
		template.schedule("order-close", "untraced", "p", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(listener.traces).hasSize(2));
		assertThat(listener.traces).contains("traced " + traceId);
		assertThat(listener.traces).noneMatch((seen) -> seen.equals("untraced " + traceId));

		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName)
				.contains("schedule order-close", "process order-close"));
		SpanData http = span(spans, "http.server.requests", traceId);
		SpanData schedule = span(spans, "schedule order-close", traceId);
		SpanData process = span(spans, "process order-close", traceId);
		assertThat(schedule.getParentSpanId()).isEqualTo(http.getSpanId());
		assertThat(process.getParentSpanId()).isEqualTo(schedule.getSpanId());
		assertThat(process.getAttributes().asMap()).anySatisfy(
				(key, value) -> assertThat(key.getKey() + "=" + value).isEqualTo("delayqueue.job.id=traced"));

		JobInfo untraced = template.find("order-close", "untraced").orElse(null);
		assertThat(untraced).as("finished and removed").isNull();
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	private static SpanData span(InMemorySpanExporter spans, String name, String traceId) {
		return spans.getFinishedSpanItems()
			.stream()
			.filter((span) -> span.getName().equals(name) && span.getTraceId().equals(traceId))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no span " + name + " in trace " + traceId + ": "
					+ spans.getFinishedSpanItems()));
	}

	@Test
	void theTraceIsStoredAsW3cHeadersOnlyForAJobScheduledInATrace() {
		ConfigurableApplicationContext context = this.apps.run(Tracing.class, "delayqueue.buckets=1",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.auto-startup=false");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		ObservationRegistry registry = context.getBean(ObservationRegistry.class);
		Observation.createNotStarted("request", registry).observe(() -> {
			template.schedule("order-close", "traced", "p", Duration.ofMinutes(5));
			template.job("order-close", "own-header")
				.payload("p")
				.header("traceparent", "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01")
				.delay(Duration.ofMinutes(5))
				.schedule();
		});
		template.schedule("order-close", "untraced", "p", Duration.ofMinutes(5));
		assertThat(template.find("order-close", "traced").orElseThrow().headers()).containsOnlyKeys("traceparent")
			.hasEntrySatisfying("traceparent", (value) -> assertThat(value).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}"));
		// the job's own header wins
		assertThat(template.find("order-close", "own-header").orElseThrow().headers())
			.containsEntry("traceparent", "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01");
		// outside a trace: not one header, so not one byte more
		assertThat(template.find("order-close", "untraced").orElseThrow().headers()).isEmpty();
	}

	@Test
	void aJobWhoseHeadersLeaveNoRoomIsStoredWithoutTheTrace() {
		ConfigurableApplicationContext context = this.apps.run(Tracing.class, "delayqueue.buckets=1",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.auto-startup=false");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		ObservationRegistry registry = context.getBean(ObservationRegistry.class);
		Map<String, String> full = new java.util.LinkedHashMap<>();
		for (int i = 0; i < io.github.delayqueue.core.JobConstraints.MAX_HEADERS; i++) {
			full.put("h" + i, "v");
		}
		Observation.createNotStarted("request", registry)
			.observe(() -> template.job("order-close", "full").payload("p").headers(full).delay(Duration.ofMinutes(5))
				.schedule());
		assertThat(template.find("order-close", "full").orElseThrow().headers()).isEqualTo(full);
	}

	@Test
	void traceHeadersWithoutRoomUnderTheSizeLimitAreLeftOut() {
		ConfigurableApplicationContext context = this.apps.run(Tracing.class, "delayqueue.buckets=1",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.auto-startup=false",
				"delayqueue.max-payload-size=100B");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		ObservationRegistry registry = context.getBean(ObservationRegistry.class);
		// fits alone, not with a traceparent
		Observation.createNotStarted("request", registry)
			.observe(() -> template.schedule("order-close", "near-the-limit", "x".repeat(90), Duration.ofMinutes(5)));
		assertThat(template.find("order-close", "near-the-limit").orElseThrow().headers()).isEmpty();
	}

	/**
	 * Micrometer's test tracer, spans kept in memory, with a propagator of the test's own (the
	 * test tracer has none) that writes and reads a W3C-shaped {@code traceparent}.
	 */
	@Configuration(proxyBeanMethods = false)
	static class SimpleTracing {

		@Bean
		SimpleTracer simpleTracer() {
			return new SimpleTracer();
		}

		@Bean
		ObservationRegistry observationRegistry(SimpleTracer tracer) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig()
				.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
						new PropagatingSenderTracingObservationHandler<>(tracer, new TraceparentPropagator(tracer)),
						new PropagatingReceiverTracingObservationHandler<>(tracer, new TraceparentPropagator(tracer)),
						new DefaultTracingObservationHandler(tracer)));
			return registry;
		}

		@Bean
		TracedListener tracedListener(Tracer tracer) {
			return new TracedListener(tracer);
		}

	}

	static final class TraceparentPropagator implements Propagator {

		private final SimpleTracer tracer;

		TraceparentPropagator(SimpleTracer tracer) {
			this.tracer = tracer;
		}

		@Override
		public List<String> fields() {
			return List.of("traceparent");
		}

		@Override
		public <C> void inject(TraceContext context, @Nullable C carrier, Setter<C> setter) {
			setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
		}

		@Override
		public <C> Span.Builder extract(C carrier, Getter<C> getter) {
			String traceparent = getter.get(carrier, "traceparent");
			if (traceparent == null) {
				return this.tracer.spanBuilder();
			}
			String[] parts = traceparent.split("-");
			return this.tracer.spanBuilder()
				.setParent(this.tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(true).build());
		}

	}

	@Test
	void theSpansAsMicrometersTestTracerRecordsThem() {
		ConfigurableApplicationContext context = this.apps.run(SimpleTracing.class, "delayqueue.buckets=1",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.observation-enabled=true");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		SimpleTracer tracer = context.getBean(SimpleTracer.class);
		Observation.createNotStarted("http.server.requests", context.getBean(ObservationRegistry.class))
			.observe(() -> template.schedule("order-close", "o-1", "p", Duration.ZERO));
		TracedListener listener = context.getBean(TracedListener.class);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(listener.traces).hasSize(1));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> SpansAssert.assertThat(tracer.getSpans()).hasASpanWithName("process order-close"));
		SpansAssert.assertThat(tracer.getSpans())
			.hasASpanWithName("schedule order-close",
					(span) -> span.hasTag("delayqueue.operation", "schedule")
						.hasTag("delayqueue.topic", "order-close")
						.hasTag("delayqueue.outcome", "created")
						.hasTag("delayqueue.job.id", "o-1")
						.hasRemoteServiceNameEqualTo("delayqueue")
						.hasKindEqualTo(Span.Kind.PRODUCER))
			.hasASpanWithName("process order-close",
					(span) -> span.hasTag("delayqueue.listener.id", "closer")
						.hasTag("delayqueue.outcome", "success")
						.hasTag("delayqueue.job.id", "o-1")
						.hasTag("delayqueue.attempt", "1")
						.hasRemoteServiceNameEqualTo("delayqueue")
						.hasKindEqualTo(Span.Kind.CONSUMER));
		// request -> schedule -> process (through Redis): one trace
		SpansAssert.assertThat(tracer.getSpans()).hasNumberOfSpansEqualTo(3).haveSameTraceId();
	}

	/** A tracer that throws when a listener's observation starts, opens or closes its scope, or stops. */
	@Configuration(proxyBeanMethods = false)
	static class FaultyTracer {

		/** The jobs whose observation started inside another's scope. */
		final List<String> nested = new CopyOnWriteArrayList<>();

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<DelayedJobReceiverContext>() {

				@Override
				public void onStart(DelayedJobReceiverContext context) {
					if (context.getParentObservation() != null) {
						FaultyTracer.this.nested.add(context.getJob().id());
					}
					if (context.getJob().id().equals("start")) {
						throw new IllegalStateException("tracer broken at start");
					}
				}

				@Override
				public void onScopeOpened(DelayedJobReceiverContext context) {
					if (context.getJob().id().equals("scope")) {
						throw new IllegalStateException("tracer broken at scope");
					}
				}

				@Override
				public void onScopeClosed(DelayedJobReceiverContext context) {
					if (context.getJob().id().equals("closed")) {
						throw new IllegalStateException("tracer broken at scope close");
					}
				}

				@Override
				public void onError(DelayedJobReceiverContext context) {
					if (context.getJob().id().equals("fail-error")) {
						throw new IllegalStateException("tracer broken at error");
					}
				}

				@Override
				public void onStop(DelayedJobReceiverContext context) {
					if (context.getJob().id().equals("stop")) {
						throw new IllegalStateException("tracer broken at stop");
					}
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return context instanceof DelayedJobReceiverContext;
				}

			});
			return registry;
		}

		@Bean
		TracedListener tracedListener() {
			return new TracedListener(Tracer.NOOP);
		}

		/** The outcome events, as "<id> <outcome>". */
		final List<String> outcomes = new CopyOnWriteArrayList<>();

		@EventListener
		void outcome(DelayedJobOutcomeEvent event) {
			this.outcomes.add(event.getJob().id() + " " + event.getOutcome());
		}

	}

	@Test
	void aTracerThatThrowsDecidesNoJobsFate() {
		ConfigurableApplicationContext context = this.apps.run(FaultyTracer.class, "delayqueue.buckets=1",
				"delayqueue.listener.observation-enabled=true", "delayqueue.default-ttr=2s",
				"delayqueue.listener.concurrency=1", "delayqueue.listener.outcome-events=true");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		TracedListener listener = context.getBean(TracedListener.class);
		// a failed job whose error the tracer refuses still has its outcome reported
		template.job("order-close", "fail-error").payload("p").delay(Duration.ZERO).maxAttempts(1).schedule();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(
				() -> assertThat(context.getBean(FaultyTracer.class).outcomes).anyMatch((o) -> o.startsWith("fail-error ")));
		for (String id : List.of("start", "scope", "closed", "stop")) {
			template.schedule("order-close", id, "p", Duration.ZERO);
		}
		// each ran and finished: not left to be delivered again after its TTR
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(listener.traces).extracting((trace) -> trace.split(" ")[0])
				.containsExactlyInAnyOrder("fail-error", "start", "scope", "closed", "stop");
			assertThat(List.of("start", "scope", "closed", "stop")).allSatisfy(
					(id) -> assertThat(template.find("order-close", id)).as("finished and removed").isEmpty());
		});
		// the scope whose opening threw is not left current on the one handler thread
		template.schedule("order-close", "after", "p", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(listener.traces).anyMatch((trace) -> trace.startsWith("after ")));
		assertThat(context.getBean(FaultyTracer.class).nested).isEmpty();
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	/** A registry that keeps the observations, and a convention of the application's own. */
	@Configuration(proxyBeanMethods = false)
	static class Observed {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

		@Bean
		DelayedJobTemplateObservationConvention tenantConvention() {
			return new DefaultDelayedJobTemplateObservationConvention() {

				@Override
				public KeyValues getLowCardinalityKeyValues(DelayedJobSenderContext context) {
					return super.getLowCardinalityKeyValues(context).and("tenant", "acme");
				}

			};
		}

		@Bean
		TracedListener tracedListener() {
			return new TracedListener(Tracer.NOOP);
		}

	}

	@Test
	void observationsCarryTheDocumentedKeysAndTheApplicationsConvention() {
		ConfigurableApplicationContext context = this.apps.run(Observed.class, "delayqueue.buckets=1",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.observation-enabled=true",
				"delayqueue.listener.back-off.initial-interval=10ms");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
		template.schedule("order-close", "ok", "p", Duration.ZERO);
		template.schedule("order-close", "later", "p", Duration.ofMinutes(5));
		template.schedule("order-close", "later", "p", Duration.ofMinutes(5));
		template.job("order-close", "fail-1").payload("p").maxAttempts(2).delay(Duration.ZERO).schedule();
		template.cancel("order-close", "never-there");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("order-close", "fail-1")).map(JobInfo::state)
				.contains(JobState.DEAD));
		TestObservationRegistryAssert.assertThat(registry)
			.hasAnObservation((observation) -> observation.hasNameEqualTo("delayqueue.template")
				.hasContextualNameEqualTo("schedule order-close")
				.hasLowCardinalityKeyValue("delayqueue.operation", "schedule")
				.hasLowCardinalityKeyValue("delayqueue.topic", "order-close")
				.hasLowCardinalityKeyValue("delayqueue.outcome", "created")
				.hasLowCardinalityKeyValue("tenant", "acme")
				.hasHighCardinalityKeyValue("delayqueue.job.id", "ok"))
			.hasAnObservation((observation) -> observation.hasNameEqualTo("delayqueue.template")
				.hasLowCardinalityKeyValue("delayqueue.outcome", "kept"))
			.hasAnObservation((observation) -> observation.hasNameEqualTo("delayqueue.template")
				.hasLowCardinalityKeyValue("delayqueue.operation", "cancel")
				.hasLowCardinalityKeyValue("delayqueue.outcome", "not-found"))
			.hasAnObservation((observation) -> observation.hasNameEqualTo("delayqueue.listener")
				.hasContextualNameEqualTo("process order-close")
				.hasLowCardinalityKeyValue("delayqueue.listener.id", "closer")
				.hasLowCardinalityKeyValue("delayqueue.outcome", "success")
				.hasHighCardinalityKeyValue("delayqueue.job.id", "ok")
				.hasHighCardinalityKeyValue("delayqueue.attempt", "1"))
			.hasAnObservation((observation) -> observation.hasNameEqualTo("delayqueue.listener")
				.hasLowCardinalityKeyValue("delayqueue.outcome", "retry")
				.hasHighCardinalityKeyValue("delayqueue.job.id", "fail-1")
				.assertThatError()
				.hasMessage("payment provider unreachable"))
			.hasAnObservation((observation) -> observation.hasNameEqualTo("delayqueue.listener")
				.hasLowCardinalityKeyValue("delayqueue.outcome", "dead")
				.hasHighCardinalityKeyValue("delayqueue.attempt", "2"));
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	@Test
	void inATransactionTheOutcomeIsAfterCommitAndTheTraceStillReachesTheListener() {
		ConfigurableApplicationContext context = this.apps.run(Tracing.class, "delayqueue.buckets=1",
				"delayqueue.template.observation-enabled=true", "delayqueue.listener.observation-enabled=true");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		ObservationRegistry registry = context.getBean(ObservationRegistry.class);
		TracedListener listener = context.getBean(TracedListener.class);
		EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		try {
			TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(database));
			String[] traceId = new String[1];
			Observation.createNotStarted("request", registry).observe(() -> {
				traceId[0] = context.getBean(Tracer.class).currentSpan().context().traceId();
				transactions.executeWithoutResult(
						(status) -> template.schedule("order-close", "in-tx", "p", Duration.ZERO));
			});
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(listener.traces).containsExactly("in-tx " + traceId[0]));
		}
		finally {
			database.shutdown();
		}
	}

	@Test
	void observationsAreOffByDefault() {
		ConfigurableApplicationContext context = this.apps.run(Observed.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		TracedListener listener = context.getBean(TracedListener.class);
		template.schedule("order-close", "ok", "p", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(listener.traces).hasSize(1));
		TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
			.doesNotHaveAnyObservation();
	}

}
