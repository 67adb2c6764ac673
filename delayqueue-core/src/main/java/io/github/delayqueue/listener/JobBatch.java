package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * The jobs one call handed to a handler thread: which are yet to start, and which succeeded
 * and are yet to be finished; each is handed out once. Thread-safe.
 */
final class JobBatch {

	private final List<ReservedJob> jobs;

	private final long receivedNanos;

	private final List<ReservedJob> succeeded = new ArrayList<>();

	private int next;

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

	/** The next job to run, or {@code null} when none is left. */
	synchronized @Nullable ReservedJob claimNext() {
		return (this.next < this.jobs.size()) ? this.jobs.get(this.next++) : null;
	}

	/** Records a claimed job that succeeded, to be finished. */
	synchronized void succeeded(ReservedJob job) {
		this.succeeded.add(job);
	}

	/** Takes the jobs that succeeded since the last call. */
	synchronized List<ReservedJob> takeSucceeded() {
		List<ReservedJob> taken = List.copyOf(this.succeeded);
		this.succeeded.clear();
		return taken;
	}

	/** Takes the jobs not claimed yet; {@link #claimNext()} returns {@code null} from now on. */
	synchronized List<ReservedJob> takeUnstarted() {
		List<ReservedJob> rest = List.copyOf(this.jobs.subList(this.next, this.jobs.size()));
		this.next = this.jobs.size();
		return rest;
	}

	/** How long the batch may run before it is settled: the budget, or half its shortest TTR. */
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
