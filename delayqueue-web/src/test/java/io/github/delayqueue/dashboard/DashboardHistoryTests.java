package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the dashboard keeps of the sampler's readings: the chart window, and no more than its
 * bounds whatever the number of topics or readings.
 */
class DashboardHistoryTests {

	private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

	private static QueueStats reading(Instant at, Map<String, TopicStats> topics) {
		return new QueueStats(List.of(), topics, at, Map.of());
	}

	@Test
	void keepsTheReadingsOfTheWindowWithDepthAndLag() {
		DashboardHistory history = new DashboardHistory(Duration.ofMinutes(1));
		for (int second = 0; second <= 120; second += 10) {
			Instant at = START.plusSeconds(second);
			history.accept(reading(at, Map.of("orders", new TopicStats(second, 2, 1, 7, at.minusSeconds(3)))));
		}
		List<DashboardHistory.Sample> samples = history.samples();
		assertThat(samples).extracting(DashboardHistory.Sample::at)
			.containsExactly(START.plusSeconds(60), START.plusSeconds(70), START.plusSeconds(80), START.plusSeconds(90),
					START.plusSeconds(100), START.plusSeconds(110), START.plusSeconds(120));
		DashboardHistory.Point last = samples.get(samples.size() - 1).topics().get("orders");
		assertThat(last.depth()).as("delayed + ready + reserved, not dead").isEqualTo(123);
		assertThat(last.lag()).isEqualTo(3_000);
	}

	@Test
	void keepsAtMostItsBoundsOfTopicsAndReadingsAcrossTheWholeWindow() {
		DashboardHistory history = new DashboardHistory(Duration.ofHours(1));
		Map<String, TopicStats> topics = new TreeMap<>();
		for (int i = 0; i < DashboardHistory.MAX_TOPICS + 50; i++) {
			topics.put("topic-" + (1000 + i), new TopicStats(1, 0, 0, 0, null));
		}
		// a reading every 250 ms for two hours: four times what the window keeps; every third
		// is kept (750 ms apart, three quarters of the window's share), the latest 3,600 of them
		Instant end = START.plus(Duration.ofHours(2));
		for (Instant at = START; !at.isAfter(end); at = at.plusMillis(250)) {
			history.accept(reading(at, topics));
		}
		List<DashboardHistory.Sample> samples = history.samples();
		assertThat(samples).hasSize(DashboardHistory.MAX_SAMPLES);
		assertThat(samples.get(0).at()).isBetween(end.minus(Duration.ofMinutes(45)).minusSeconds(1),
				end.minus(Duration.ofMinutes(44)));
		assertThat(samples.get(samples.size() - 1).at()).isAfterOrEqualTo(end.minusSeconds(1));
		for (int i = 1; i < samples.size(); i++) {
			assertThat(Duration.between(samples.get(i - 1).at(), samples.get(i).at())).isGreaterThanOrEqualTo(
					Duration.ofMillis(750));
		}
		// readings as often as the window's share, a little early or late, are all kept
		DashboardHistory jittered = new DashboardHistory(Duration.ofHours(1));
		Instant at = START;
		for (int i = 0; i < 100; i++) {
			at = at.plusMillis((i % 2 == 0) ? 950 : 1050);
			jittered.accept(reading(at, topics));
		}
		assertThat(jittered.samples()).hasSize(100);
		assertThat(samples.get(0).topics()).hasSize(DashboardHistory.MAX_TOPICS).containsKey("topic-1000");
	}

}
