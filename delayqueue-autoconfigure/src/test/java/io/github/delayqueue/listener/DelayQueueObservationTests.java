package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.micrometer.DefaultDelayedJobTemplateObservationConvention;
import io.github.delayqueue.micrometer.DelayedJobSenderContext;
import io.github.delayqueue.micrometer.DelayedJobTemplateObservationConvention;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
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
				"delayqueue.listener.back-off.initial-interval=10ms", "delayqueue.listener.max-attempts=1");
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
