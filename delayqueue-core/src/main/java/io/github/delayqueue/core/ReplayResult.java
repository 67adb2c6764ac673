package io.github.delayqueue.core;

import java.util.List;

/**
 * What a replay of dead jobs did: how many jobs it made READY again, and which.
 *
 * @param count the jobs replayed
 * @param ids the ids of the first {@value #MAX_IDS} of them, in the order they were replayed
 */
public record ReplayResult(int count, List<String> ids) {

	/** The most ids a result names. */
	public static final int MAX_IDS = 100;

	public ReplayResult {
		ids = List.copyOf(ids);
	}

}
