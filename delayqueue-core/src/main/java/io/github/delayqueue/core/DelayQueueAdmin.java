package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The operator's side of the delay queue: figures, pages of DEAD and completed jobs, replays
 * and repair. Arguments are checked by {@link JobConstraints} first; an unreachable Redis
 * throws {@link DelayQueueConnectionException}. Implementations are thread-safe.
 */
public interface DelayQueueAdmin {

	/** The most DEAD jobs one {@link #replayDeadJobs(String, int)} call replays. */
	int MAX_REPLAY = 100_000;

	/** The most jobs one {@link #deadJobs} page holds. */
	int MAX_DEAD_PAGE = 1_000;

	/** The most index entries of one bucket that one {@link #waitingJobs} page examines. */
	int MAX_EXAMINED = 5_000;

	/** Reads the figures of every bucket and topic. */
	QueueStats stats();

	/**
	 * Reads the figures of one topic: {@link #stats()} as if no other topic had jobs (each
	 * bucket's counts are the topic's; its next due times stay the bucket's), with work that
	 * does not grow with the number of topics.
	 * @param topic the topic
	 * @return the figures, without other topics
	 */
	QueueStats stats(String topic);

	/**
	 * Reads the instances that run the bucket timers, each with the time its heartbeat runs out.
	 * @return instance name to heartbeat expiry by Redis's clock, ordered by name
	 */
	Map<String, Instant> instances();

	/**
	 * Reads a page of a topic's DEAD jobs, the oldest death first.
	 * @param topic the topic
	 * @param cursor {@code null} for the first page, else the page before's {@link DeadJobPage#next()}
	 * @param limit the most jobs to read (1 to {@value #MAX_DEAD_PAGE})
	 * @param payloads whether to read the payloads too
	 * @return the page
	 * @throws IllegalArgumentException for a cursor that no page gave out
	 */
	DeadJobPage deadJobs(String topic, @Nullable String cursor, int limit, boolean payloads);

	/**
	 * Reads a page of the finished jobs a topic keeps ({@link Retention}), the latest first.
	 * @param topic the topic
	 * @param cursor {@code null} for the first page, else the page before's {@link CompletedJobPage#next()}
	 * @param limit the most jobs to read (1 to {@value #MAX_DEAD_PAGE})
	 * @param payloads whether to read the payloads too
	 * @return the page
	 * @throws IllegalArgumentException for a cursor that no page gave out
	 */
	CompletedJobPage completedJobs(String topic, @Nullable String cursor, int limit, boolean payloads);

	/**
	 * Reads a page of a topic's DELAYED jobs by due time, RESERVED jobs by TTR deadline, or
	 * READY jobs by due time among the first {@value #MAX_EXAMINED} entries of each bucket's
	 * ready lists. One page examines at most {@value #MAX_EXAMINED} index entries per bucket,
	 * whatever the queue's size. A RESERVED job names the instance that holds it ({@link JobInfo#reservedBy()}).
	 * @param topic the topic
	 * @param state {@link JobState#DELAYED}, {@link JobState#READY} or {@link JobState#RESERVED}
	 * @param cursor {@code null} for the first page, else the page before's {@link WaitingJobPage#next()}
	 * @param limit the most jobs to read (1 to {@value #MAX_DEAD_PAGE})
	 * @param payloads whether to read the payloads too
	 * @return the page
	 * @throws IllegalArgumentException for another state or a cursor that no page gave out
	 */
	WaitingJobPage waitingJobs(String topic, JobState state, @Nullable String cursor, int limit, boolean payloads);

	/**
	 * Makes up to {@code max} DEAD jobs of a topic READY again, oldest deaths first, with
	 * their attempts reset.
	 * @param topic the topic
	 * @param max the most jobs to replay (1 to {@value #MAX_REPLAY})
	 * @return how many were replayed, and the first ids
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
	 * Brings every bucket back to the queue's invariant, from the job records, in script calls
	 * that each read at most 1,000 records or index entries. Safe beside traffic: every job ends
	 * in its index; the counts are corrected only from a tally no state change crossed (else
	 * left, with a warning logged).
	 * @param write {@code false} to only count what would be repaired
	 * @return what was (or would be) repaired
	 */
	RepairResult repair(boolean write);

}
