package io.github.delayqueue.core;

/**
 * The states of a job. A cancelled job has no state: it is gone. A finished job is gone
 * too, unless its topic keeps finished jobs ({@link Retention}): then it is
 * {@link #COMPLETED} until the retention drops it.
 *
 * <pre>
 * DELAYED -> READY -> RESERVED -> (finished: removed, or COMPLETED when its topic keeps them)
 * RESERVED -> DELAYED (retry after back-off) | READY (TTR expired) | DEAD (attempts exhausted)
 * DEAD -> READY (replay)
 * </pre>
 *
 * Code that switches over the states should have a default branch: a later version may add
 * one, as {@link #COMPLETED} was added after the first four.
 */
public enum JobState {

	/** Waiting for its due time. */
	DELAYED('D'),

	/** Due, waiting for a consumer. */
	READY('R'),

	/** Held by a consumer until it finishes, fails or its time-to-run (TTR) runs out. */
	RESERVED('S'),

	/** Failed for good; kept for inspection and replay. */
	DEAD('X'),

	/**
	 * Finished, and kept by its topic's {@link Retention}: a record of the run (when, on
	 * which attempt, for how long), no longer a job. Only {@code find} and the pages of
	 * completed jobs answer it.
	 */
	COMPLETED('C');

	private final char code;

	JobState(char code) {
		this.code = code;
	}

	/**
	 * The one-letter code used in Redis.
	 * @return the code
	 */
	public char code() {
		return this.code;
	}

	/**
	 * The state for a code used in Redis.
	 * @param code the one-letter code
	 * @return the state
	 * @throws IllegalArgumentException for an unknown code
	 */
	public static JobState fromCode(char code) {
		for (JobState state : values()) {
			if (state.code == code) {
				return state;
			}
		}
		throw new IllegalArgumentException("Unknown job state code '" + code + "'");
	}

}
