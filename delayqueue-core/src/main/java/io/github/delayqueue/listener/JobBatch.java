package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * The jobs one call handed to a handler thread, as that thread runs them one after the
 * other: which are yet to start, and which succeeded and are yet to be finished. The handler
 * thread claims them in order; another thread may meanwhile take what succeeded (to finish
 * it) and what has not started (to give it back), so each job is handed out once.
 * Thread-safe.
 */
final class JobBatch {

	private final List<ReservedJob> jobs;

	private final long receivedNanos;

	private final List<ReservedJob> succeeded = new ArrayList<>();

	private int next;

	/**
	 * Creates a batch.
	 * @param jobs the jobs, in the order to run them
	 * @param receivedNanos when they arrived, by {@link System#nanoTime()}
	 */
	JobBatch(List<ReservedJob> jobs, long receivedNanos) {
		this.jobs = List.copyOf(jobs);
		this.receivedNanos = receivedNanos;
	}

	int size() {
		return this.jobs.size();
	}

	long receivedNanos() {
		return this.receivedNanos;
	}

	/**
	 * The next job to run.
	 * @return the job, or {@code null} when every job was claimed or taken back
	 */
	synchronized @Nullable ReservedJob claimNext() {
		return (this.next < this.jobs.size()) ? this.jobs.get(this.next++) : null;
	}

	/**
	 * Records a claimed job that succeeded, to be finished.
	 * @param job the job
	 */
	synchronized void succeeded(ReservedJob job) {
		this.succeeded.add(job);
	}

	/**
	 * Takes the jobs that succeeded since the last call.
	 * @return the jobs, possibly none; they are no longer part of the batch
	 */
	synchronized List<ReservedJob> takeSucceeded() {
		List<ReservedJob> taken = List.copyOf(this.succeeded);
		this.succeeded.clear();
		return taken;
	}

	/**
	 * Takes the jobs not claimed yet: {@link #claimNext()} returns {@code null} from now on.
	 * @return the jobs, possibly none
	 */
	synchronized List<ReservedJob> takeUnstarted() {
		List<ReservedJob> rest = List.copyOf(this.jobs.subList(this.next, this.jobs.size()));
		this.next = this.jobs.size();
		return rest;
	}

	/**
	 * How long after its arrival the batch may run before what succeeded should be
	 * finished: {@code budgetNanos}, or half the shortest TTR of its jobs when that is less.
	 * @param budgetNanos the longest time
	 * @return the time in nanoseconds
	 */
	long settleAfterNanos(long budgetNanos) {
		long after = budgetNanos;
		for (ReservedJob job : this.jobs) {
			if (job.deliveredAt() != null && job.reservedUntil() != null) {
				after = Math.min(after, Duration.between(job.deliveredAt(), job.reservedUntil()).toNanos() / 2);
			}
		}
		return Math.max(0, after);
	}

}
