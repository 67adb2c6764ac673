package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayedJobSenderContext;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.ScheduleResult;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A tracer whose handler throws decides no write's outcome: the template's writes go on
 * without their observation, as a listener's jobs do
 * ({@code DelayQueueObservationTests#aTracerThatThrowsDecidesNoJobsFate}). A write applied in
 * Redis and reported failed would make the caller roll back or retry a job that exists.
 */
class DelayedJobTemplateFaultyTracerTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private final List<DelayedJobTemplate> templates = new ArrayList<>();

	@AfterEach
	void closeTemplates() {
		this.templates.forEach(DelayedJobTemplate::close);
	}

	/** Throws at the step named by the job id: start, scope or stop. */
	private static ObservationRegistry faultyRegistry() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<DelayedJobSenderContext>() {

			@Override
			public void onStart(DelayedJobSenderContext context) {
				fail(context, "start");
			}

			@Override
			public void onScopeOpened(DelayedJobSenderContext context) {
				fail(context, "scope");
			}

			@Override
			public void onStop(DelayedJobSenderContext context) {
				fail(context, "stop");
				String id = context.getJobId();
				if (id != null && id.startsWith("linkage-")) {
					// a tracing bridge built against another version
					throw new NoSuchMethodError("tracer broken at stop");
				}
			}

			private void fail(DelayedJobSenderContext context, String step) {
				String id = context.getJobId();
				if (id != null && id.startsWith(step + "-")) {
					throw new IllegalStateException("tracer broken at " + step);
				}
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof DelayedJobSenderContext;
			}

		});
		return registry;
	}

	private DelayedJobTemplate template(RedisDelayQueue queue) {
		DelayedJobTemplate template = new DelayedJobTemplate(queue,
				new JacksonJobPayloadConverter(JsonMapper.builder().build()));
		template.setObservationRegistry(faultyRegistry());
		this.templates.add(template);
		return template;
	}

	@Test
	void aTracerThatThrowsDecidesNoScheduleOrCancelOutcome() {
		RedisDelayQueue queue = this.queues.start();
		DelayedJobTemplate template = template(queue);
		for (String id : Set.of("start-1", "scope-1", "stop-1")) {
			assertThat(template.schedule("traced", id, "p", Duration.ofMinutes(5))).as(id).isTrue();
			assertThat(queue.find("traced", id)).as(id).isPresent();
			// a scope whose opening threw is not left current: the thread's next write would be its child
			assertThat(ObservationRegistry.create().getCurrentObservation()).as(id).isNull();
		}
		for (String id : Set.of("start-1", "scope-1", "stop-1")) {
			assertThat(template.cancel("traced", id)).as(id).isTrue();
			assertThat(queue.find("traced", id)).as(id).isEmpty();
		}
	}

	@Test
	void aTracerThatThrowsDecidesNoAsynchronousScheduleOutcome() {
		RedisDelayQueue queue = this.queues.start();
		DelayedJobTemplate template = template(queue);
		for (String id : Set.of("start-2", "scope-2", "stop-2")) {
			ScheduleResult result = template.job("traced", id).payload("p").delay(Duration.ofMinutes(5))
				.scheduleAsync().join();
			assertThat(result.created()).as(id).isTrue();
			assertThat(queue.find("traced", id)).as(id).isPresent();
			assertThat(ObservationRegistry.create().getCurrentObservation()).as(id).isNull();
		}
	}

	@Test
	void aTracerThatThrowsAnErrorAtStopLeavesNoWriteWaiting() {
		RedisDelayQueue queue = this.queues.start();
		DelayedJobTemplate template = template(queue);
		assertTimeoutPreemptively(Duration.ofSeconds(10),
				() -> assertThat(template.schedule("traced", "linkage-1", "p", Duration.ofMinutes(5))).isTrue());
		assertThat(queue.find("traced", "linkage-1")).isPresent();
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThat(template.cancel("traced", "linkage-1")).isTrue());
		ScheduleResult result = assertTimeoutPreemptively(Duration.ofSeconds(10),
				() -> template.job("traced", "linkage-2").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync()
					.get(10, TimeUnit.SECONDS));
		assertThat(result.created()).isTrue();
		assertThat(queue.find("traced", "linkage-2")).isPresent();
	}

}
