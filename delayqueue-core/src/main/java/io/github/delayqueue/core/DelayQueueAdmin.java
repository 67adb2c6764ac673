package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The operator's side of the delay queue: the figures of every bucket and topic, pages of
 * DEAD jobs and of the finished jobs a topic keeps, the replay of DEAD jobs, and the repair of
 * the indexes. The Actuator endpoint, the health
 * indicator's sampler and the metrics are built on it.
 *
 * <p>
 * Arguments are checked first ({@link JobConstraints}): a broken rule throws
 * {@link IllegalArgumentException} and changes nothing. When Redis cannot be reached a
 * {@link DelayQueueConnectionException} is thrown. Implementations are thread-safe.
 *
 * @see DelayQueueOperations
 */
public interface DelayQueueAdmin {

	/**
	 * The most DEAD jobs one {@link #replayDead(String, int)} call replays.
	 */
	int MAX_REPLAY = 100_000;

	/**
	 * The most jobs one {@link #deadJobs} page holds.
	 */
	int MAX_DEAD_PAGE = 1_000;

	/**
	 * Reads the figures of every bucket and topic.
	 * @return the figures
	 */
	QueueStats stats();

	/**
	 * Reads the instances that take part in running the bucket timers, each with the time its
	 * heartbeat runs out. An instance whose heartbeat ran out stays listed, with its past
	 * expiry, until the next coordination removes it.
	 * @return instance name to heartbeat expiry by Redis's clock, ordered by name; empty for
	 * an implementation without instances
	 */
	default Map<String, Instant> instances() {
		return Map.of();
	}

	/**
	 * Reads a page of a topic's DEAD jobs in order of death, the oldest first. A page costs
	 * Redis work in proportion to its size, wherever it starts.
	 * @param topic the topic
	 * @param cursor {@code null} for the first page, else the {@link DeadJobPage#next()} of
	 * the page before
	 * @param limit the most jobs to read (1 to {@value #MAX_DEAD_PAGE})
	 * @param payloads whether to read the payloads too
	 * @return the page
	 * @throws IllegalArgumentException for a cursor that no page gave out
	 */
	DeadJobPage deadJobs(String topic, @Nullable String cursor, int limit, boolean payloads);

	/**
	 * Reads a page of the finished jobs a topic keeps ({@link Retention}), the latest finish
	 * first. A page costs Redis work in proportion to its size, wherever it starts. A topic
	 * that keeps none has an empty page.
	 * @param topic the topic
	 * @param cursor {@code null} for the first page, else the {@link CompletedJobPage#next()}
	 * of the page before
	 * @param limit the most jobs to read (1 to {@value #MAX_DEAD_PAGE})
	 * @param payloads whether to read the payloads too (where the topic keeps them)
	 * @return the page
	 * @throws IllegalArgumentException for a cursor that no page gave out
	 */
	CompletedJobPage completedJobs(String topic, @Nullable String cursor, int limit, boolean payloads);


	/**
	 * Makes up to {@code max} DEAD jobs of a topic READY again, oldest deaths first, with
	 * their attempts reset.
	 * @param topic the topic
	 * @param max the most jobs to replay (1 to {@value #MAX_REPLAY})
	 * @return how many were replayed
	 * @see #replayDeadJobs(String, int)
	 */
	default int replayDead(String topic, int max) {
		return replayDeadJobs(topic, max).count();
	}

	/**
	 * Makes up to {@code max} DEAD jobs of a topic READY again, as
	 * {@link #replayDead(String, int)} does, and says which.
	 * @param topic the topic
	 * @param max the most jobs to replay (1 to {@value #MAX_REPLAY})
	 * @return how many were replayed, and the ids of the first
	 * {@value ReplayResult#MAX_IDS} of them
	 */
	ReplayResult replayDeadJobs(String topic, int max);

	/**
	 * Makes one DEAD job READY again with its attempts reset.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code true} when the job was DEAD and was replayed
	 */
	boolean replayDead(String topic, String id);

	/**
	 * Brings every bucket back to the queue's invariant, from the job records: each job into
	 * the index its state names (a RESERVED job in no index is delivered again), index entries
	 * without a job in that state and last errors without a job dropped, the state counts
	 * recounted. For operators, after a
	 * failure that the scripts could not rule out (or data written by another version); it
	 * reads every bucket whole, one at a time.
	 * @param write {@code false} to only count what would be repaired
	 * @return what was (or would be) repaired
	 */
	RepairResult repair(boolean write);

}
