package io.github.delayqueue.benchmarks;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The recorder of the current phase; consumers live across phases of one scenario run.
 */
final class RecorderHolder {

	private final AtomicReference<Recorder> current = new AtomicReference<>();

	void set(Recorder recorder) {
		this.current.set(recorder);
	}

	void delivered(int seq, long dueMillis) {
		recorder().delivered(seq, dueMillis);
	}

	void completed() {
		recorder().completed();
	}

	private Recorder recorder() {
		Recorder recorder = this.current.get();
		if (recorder == null) {
			throw new IllegalStateException("a job was delivered outside a measured phase");
		}
		return recorder;
	}

}
