package io.github.delayqueue.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

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

}
