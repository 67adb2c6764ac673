package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records the deliveries of one scenario phase: how often each job arrived, the lag of its
 * first delivery, and when the first delivery and the last completion happened.
 */
final class Recorder {

	private final int jobs;

	private final AtomicIntegerArray deliveries;

	private final long[] lagMicros;

	private final AtomicInteger distinct = new AtomicInteger();

	private final AtomicInteger completed = new AtomicInteger();

	private final AtomicLong firstDeliveryNanos = new AtomicLong(Long.MAX_VALUE);

	private final AtomicLong lastCompletionNanos = new AtomicLong();

	private final int offset;

	Recorder(int jobs) {
		this(jobs, 0);
	}

	/**
	 * A recorder of the jobs numbered {@code offset} to {@code offset + jobs - 1}; others
	 * (late jobs of an earlier phase) are ignored.
	 */
	Recorder(int jobs, int offset) {
		this.jobs = jobs;
		this.offset = offset;
		this.deliveries = new AtomicIntegerArray(jobs);
		this.lagMicros = new long[jobs];
	}

	static long nowMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	/**
	 * A job reached a handler.
	 * @param seq the job's number
	 * @param dueMillis when it was due, by the implementation's own clock
	 */
	void delivered(int seq, long dueMillis) {
		long now = nowMicros();
		this.firstDeliveryNanos.accumulateAndGet(System.nanoTime(), Math::min);
		int index = seq - this.offset;
		if (index < 0 || index >= this.jobs) {
			return;
		}
		if (this.deliveries.getAndIncrement(index) == 0) {
			this.lagMicros[index] = now - dueMillis * 1_000L;
			this.distinct.incrementAndGet();
		}
	}

	/**
	 * A job's handling is complete (for delayqueue: finished in Redis).
	 */
	void completed() {
		this.completed.incrementAndGet();
		this.lastCompletionNanos.accumulateAndGet(System.nanoTime(), Math::max);
	}

	/**
	 * Waits until every job was delivered once and completed, or the timeout passed.
	 * @return whether all arrived
	 */
	boolean await(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.distinct.get() < this.jobs || this.completed.get() < this.jobs) {
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			Thread.sleep(5);
		}
		return true;
	}

	int lost() {
		return this.jobs - this.distinct.get();
	}

	int duplicates() {
		int duplicates = 0;
		for (int i = 0; i < this.jobs; i++) {
			duplicates += Math.max(0, this.deliveries.get(i) - 1);
		}
		return duplicates;
	}

	/**
	 * Jobs per second from the first delivery to the last completion.
	 */
	double drainRate() {
		long span = this.lastCompletionNanos.get() - this.firstDeliveryNanos.get();
		return (span > 0) ? (this.completed.get() - 1) * 1e9 / span : Double.NaN;
	}

	/** The lag columns, as {@link #putLag} writes them, for tables without a prefix. */
	static final String LAG_P50 = "lag p50 (ms)";

	static final String LAG_P99 = "lag p99 (ms)";

	static final String LAG_MAX = "lag max (ms)";

	/**
	 * The lag columns of a table, each label after {@code prefix}.
	 */
	static List<Table.Column> lagColumns(String prefix) {
		return List.of(Table.Column.millis(prefix + LAG_P50), Table.Column.millis(prefix + LAG_P99),
				Table.Column.millis(prefix + LAG_MAX));
	}

	/**
	 * Writes the lag of the first deliveries, p50 / p99 / max in milliseconds, under the
	 * labels of {@link #lagColumns}.
	 */
	void putLag(Map<String, Double> figures, String prefix) {
		long[] lags = new long[this.distinct.get()];
		int n = 0;
		for (int i = 0; i < this.jobs && n < lags.length; i++) {
			if (this.deliveries.get(i) > 0) {
				lags[n++] = this.lagMicros[i];
			}
		}
		Arrays.sort(lags, 0, n);
		figures.put(prefix + LAG_P50, percentile(lags, n, 50));
		figures.put(prefix + LAG_P99, percentile(lags, n, 99));
		figures.put(prefix + LAG_MAX, percentile(lags, n, 100));
	}

	private static double percentile(long[] sorted, int n, double percentile) {
		if (n == 0) {
			return Double.NaN;
		}
		int rank = (int) Math.ceil(percentile / 100.0 * n) - 1;
		return sorted[Math.max(0, Math.min(n - 1, rank))] / 1000.0;
	}

}
