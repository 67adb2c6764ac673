package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.benchmarks.Table.Column;

/**
 * Jobs scheduled one call at a time at 100 per second with delays uniform in a range: D.
 * Precision at low load (2,000 jobs, delays 1–10 s) and F. Trickle (3,000 jobs, delays
 * 50–500 ms). Measures the lag and the Redis commands per job.
 */
final class PrecisionScenario extends Scenario {

	private static final long INTERVAL_NANOS = Duration.ofMillis(10).toNanos();

	private final String key;

	private final String name;

	private final int jobs;

	private final Duration minDelay;

	private final Duration maxDelay;

	private PrecisionScenario(Settings settings, String key, String name, int jobs, Duration minDelay,
			Duration maxDelay) {
		super(settings);
		this.key = key;
		this.name = name;
		this.jobs = jobs;
		this.minDelay = minDelay;
		this.maxDelay = maxDelay;
	}

	static PrecisionScenario precision(Settings settings) {
		return new PrecisionScenario(settings, "D", "Precision at low load", 2_000, Duration.ofSeconds(1),
				Duration.ofSeconds(10));
	}

	static PrecisionScenario trickle(Settings settings) {
		return new PrecisionScenario(settings, "F", "Trickle", 3_000, Duration.ofMillis(50), Duration.ofMillis(500));
	}

	@Override
	String key() {
		return this.key;
	}

	private String topic() {
		return this.name.toLowerCase(Locale.ROOT).replace(' ', '-');
	}

	@Override
	String title() {
		boolean seconds = this.minDelay.toMillisPart() == 0 && this.maxDelay.toMillisPart() == 0;
		String delays = seconds ? this.minDelay.toSeconds() + "–" + this.maxDelay.toSeconds() + " s"
				: this.minDelay.toMillis() + "–" + this.maxDelay.toMillis() + " ms";
		return this.key + ". " + this.name + ": " + String.format("%,d", scaled(this.jobs)) + " jobs at 100/s, delays "
				+ delays + ", concurrency 8";
	}

	@Override
	List<Column> columns() {
		List<Column> columns = new ArrayList<>(Recorder.lagColumns(""));
		columns.addAll(commandColumns());
		columns.addAll(List.of(Column.count("lost"), Column.count("duplicates")));
		return columns;
	}

	@Override
	Subject.Layout layout() {
		return new Subject.Layout(2, 4, List.of(topic()));
	}

	@Override
	Map<String, Double> run(Subject subject, BenchRedis redis, RecorderHolder holder) throws Exception {
		int n = scaled(this.jobs);
		SplittableRandom random = new SplittableRandom(n);
		Recorder recorder = new Recorder(n);
		holder.set(recorder);
		BenchRedis.Calls calls = redis.calls();
		long start = System.nanoTime();
		for (int i = 0; i < n; i++) {
			long next = start + i * INTERVAL_NANOS;
			while (System.nanoTime() - next < 0) {
				LockSupport.parkNanos(next - System.nanoTime());
			}
			long delay = this.minDelay.toMillis()
					+ random.nextLong(this.maxDelay.toMillis() - this.minDelay.toMillis() + 1);
			subject.schedule(Job.in(topic(), this.key.toLowerCase(Locale.ROOT) + i, i, delay));
		}
		await(recorder, this.maxDelay.plusSeconds(50));
		Map<String, Double> figures = new LinkedHashMap<>();
		recorder.putLag(figures, "");
		putCommands(figures, redis.calls().since(calls), n);
		figures.put("lost", (double) recorder.lost());
		figures.put("duplicates", (double) recorder.duplicates());
		return figures;
	}

	@Override
	String notes() {
		return "One producer thread, one call per job every 10 ms. Lag = handler start − the job's due time "
				+ "(delayqueue: the due time Redis assigned; Redisson and the floor design: the one the producer "
				+ "computed). " + COMMANDS_NOTE + ", from the first schedule to the end of the deliveries. The "
				+ "EVALSHA floor has no timer, so it has no row here.";
	}

}
