package io.github.delayqueue.core;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

/**
 * Code that schedules jobs is tested against a mock of {@link DelayedJobOperations}, the
 * builder included.
 */
class DelayedJobOperationsTests {

	@Test
	void aMockSchedulesThroughItsOwnBuilder() {
		DelayedJobOperations jobs = mock(DelayedJobOperations.class);
		given(jobs.job("order-close", "o-1")).willAnswer((call) -> new JobBuilder(jobs, "order-close", "o-1"));
		given(jobs.schedule(any(JobBuilder.class))).willReturn(new ScheduleResult(true, JobState.DELAYED, null));
		ScheduleResult result = jobs.job("order-close", "o-1").payload("x").delay(Duration.ofMinutes(30)).schedule();
		assertThat(result.created()).isTrue();
		verify(jobs).schedule(any(JobBuilder.class));
	}

	@Test
	void aTestSeesWhatAMockWasAskedToSchedule() {
		DelayedJobOperations jobs = mock(DelayedJobOperations.class);
		given(jobs.job(any(), any())).willAnswer((call) -> new JobBuilder(jobs, call.getArgument(0), call.getArgument(1)));
		jobs.job("order-close", "o-1").payload("x").delay(Duration.ofMinutes(30)).header("tenant", "acme")
			.replaceExisting().schedule();
		ArgumentCaptor<JobBuilder> scheduled = ArgumentCaptor.forClass(JobBuilder.class);
		verify(jobs).schedule(scheduled.capture());
		JobBuilder job = scheduled.getValue();
		assertThat(job.topic()).isEqualTo("order-close");
		assertThat(job.id()).isEqualTo("o-1");
		assertThat(job.payload()).isEqualTo("x");
		assertThat(job.delay()).isEqualTo(Duration.ofMinutes(30));
		assertThat(job.dueAt()).isNull();
		assertThat(job.headers()).containsExactly(Map.entry("tenant", "acme"));
		assertThat(job.onDuplicate()).isEqualTo(OnDuplicate.REPLACE);
		assertThat(job.ttr()).isNull();
	}

}
