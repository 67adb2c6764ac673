package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.QueueStats;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * The sampler applies its readings in the order it takes them: a reading still in flight when
 * another starts is applied first, so the latest reading is the one taken last.
 */
class DelayQueueSamplerTests {

	@Test
	void aReadingInFlightIsAppliedBeforeALaterOneStarts() throws Exception {
		QueueStats older = new QueueStats(List.of(), Map.of(), Instant.ofEpochMilli(1), Map.of());
		QueueStats newer = new QueueStats(List.of(), Map.of(), Instant.ofEpochMilli(2), Map.of());
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		DelayQueueAdmin admin = mock(DelayQueueAdmin.class);
		given(admin.stats()).willAnswer((invocation) -> {
			entered.countDown();
			release.await(10, TimeUnit.SECONDS);
			return older;
		}).willReturn(newer);
		DelayQueueSampler sampler = new DelayQueueSampler(admin, Duration.ofHours(1));
		List<Instant> applied = new CopyOnWriteArrayList<>();
		sampler.addListener((stats) -> applied.add(stats.readAt()));

		Thread first = new Thread(sampler::sample);
		first.start();
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		Thread second = new Thread(sampler::sample);
		second.start();
		// the second reading either waits for the first or, without that wait, is already applied
		await().atMost(Duration.ofSeconds(10))
			.until(() -> second.getState() == Thread.State.BLOCKED || !second.isAlive());
		release.countDown();
		first.join(10_000);
		second.join(10_000);

		assertThat(applied).containsExactly(older.readAt(), newer.readAt());
		assertThat(sampler.getLatest()).isSameAs(newer);
	}

}
