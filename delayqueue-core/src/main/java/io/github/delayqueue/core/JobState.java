package io.github.delayqueue.core;

/**
 * The states of a job; a cancelled or finished job is gone, unless its topic keeps finished
 * jobs ({@link Retention}).
 *
 * <pre>
 * DELAYED -> READY -> RESERVED -> (finished: removed, or COMPLETED when its topic keeps them)
 * RESERVED -> DELAYED (retry after back-off) | READY (TTR expired) | DEAD (attempts exhausted)
 * DEAD -> READY (replay)
 * </pre>
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

	/** Finished, and kept by its topic's {@link Retention} as a record of the run. */
	COMPLETED('C');

	private final char code;

	JobState(char code) {
		this.code = code;
	}

	/** The one-letter code used in Redis. */
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
