package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.benchmarks.Table.Column;

/**
 * D. Precision at low load: 2,000 jobs scheduled at about 100 per second with delays uniform
 * in 1–10 s.
 */
final class PrecisionScenario extends Scenario {

	private static final String TOPIC = "precision";

	private static final long INTERVAL_NANOS = Duration.ofMillis(10).toNanos();

	PrecisionScenario(Settings settings) {
		super(settings);
	}

	@Override
	String key() {
		return "D";
	}

	@Override
	String title() {
		return "D. Precision at low load: " + String.format("%,d", scaled(2_000))
				+ " jobs at 100/s, delays 1–10 s, concurrency 8";
	}

	@Override
	List<Column> columns() {
		List<Column> columns = new ArrayList<>(Recorder.lagColumns(""));
		columns.addAll(List.of(Column.count("lost"), Column.count("duplicates")));
		return columns;
	}

	@Override
	Subject.Layout layout() {
		return new Subject.Layout(2, 4, List.of(TOPIC));
	}

	@Override
	Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder holder) throws Exception {
		int n = scaled(2_000);
		SplittableRandom random = new SplittableRandom(n);
		Recorder recorder = new Recorder(n);
		holder.set(recorder);
		long start = System.nanoTime();
		for (int i = 0; i < n; i++) {
			long next = start + i * INTERVAL_NANOS;
			while (System.nanoTime() - next < 0) {
				LockSupport.parkNanos(next - System.nanoTime());
			}
			subject.schedule(Job.in(TOPIC, "p" + i, i, 1_000 + random.nextInt(9_001)));
		}
		await(recorder, Duration.ofSeconds(60));
		Map<String, Double> figures = new LinkedHashMap<>();
		recorder.putLag(figures, "");
		figures.put("lost", (double) recorder.lost());
		figures.put("duplicates", (double) recorder.duplicates());
		return figures;
	}

	@Override
	String notes() {
		return "One producer thread, one call per job every 10 ms. Lag = handler start − the job's due time "
				+ "(delayqueue: the due time Redis assigned; Redisson and the floor design: the one the producer "
				+ "computed). The EVALSHA floor has no timer, so it has no row here.";
	}

}
