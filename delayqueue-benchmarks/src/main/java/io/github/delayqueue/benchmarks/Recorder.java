package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
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

	private final AtomicInteger strays = new AtomicInteger();

	Recorder(int jobs) {
		this(jobs, 0);
	}

	/**
	 * A recorder of the jobs numbered {@code offset} to {@code offset + jobs - 1}; others
	 * (late jobs of an earlier phase) are counted as strays and otherwise ignored.
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
			this.strays.incrementAndGet();
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

	int strays() {
		return this.strays.get();
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

	/**
	 * Lag percentiles of the first deliveries, in milliseconds.
	 * @param percentiles e.g. 50, 99, 100
	 */
	double[] lagMillis(double... percentiles) {
		long[] lags = new long[this.distinct.get()];
		int n = 0;
		for (int i = 0; i < this.jobs && n < lags.length; i++) {
			if (this.deliveries.get(i) > 0) {
				lags[n++] = this.lagMicros[i];
			}
		}
		Arrays.sort(lags, 0, n);
		double[] result = new double[percentiles.length];
		for (int p = 0; p < percentiles.length; p++) {
			if (n == 0) {
				result[p] = Double.NaN;
				continue;
			}
			int rank = (int) Math.ceil(percentiles[p] / 100.0 * n) - 1;
			result[p] = lags[Math.max(0, Math.min(n - 1, rank))] / 1000.0;
		}
		return result;
	}

}
