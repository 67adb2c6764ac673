package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The consumer side of the delay queue, on serialized payloads. {@link #reserve} hands out
 * jobs under a fencing token; each must be finished, failed or released before its TTR runs
 * out, else it is delivered again and the old token is refused.
 *
 * <p>
 * Each operation is one atomic step in Redis, timed by Redis's clock. Arguments are checked
 * by {@link JobConstraints} first; an unreachable Redis throws
 * {@link DelayQueueConnectionException}. Implementations are thread-safe.
 */
public interface DelayQueueConsumer {

	/** The most jobs one {@link #reserve} call takes. */
	int MAX_RESERVE = 10_000;

	/** The most jobs one {@link #finishAndReserve} call reserves next. */
	int MAX_NEXT = 1_000;

	/**
	 * Takes up to {@code max} READY jobs of a topic without waiting.
	 * @param topic the topic
	 * @param max the most jobs to take (1 to {@value #MAX_RESERVE})
	 * @param ttr how long the consumer may hold them, or {@code null} for each job's own TTR
	 * @return the jobs taken, possibly none
	 */
	default List<ReservedJob> reserve(String topic, int max, @Nullable Duration ttr) {
		return reserve(topic, max, ttr, null);
	}

	/**
	 * Takes up to {@code max} READY jobs of a topic without waiting; when a later bucket
	 * fails, the jobs already taken are returned.
	 * @param topic the topic
	 * @param max the most jobs to take (1 to {@value #MAX_RESERVE})
	 * @param ttr how long the consumer may hold them, or {@code null} for each job's own TTR
	 * @param maxAttempts the attempts limit stored with the jobs taken, or {@code null} for each job's own
	 * @return the jobs taken, possibly none
	 */
	List<ReservedJob> reserve(String topic, int max, @Nullable Duration ttr, @Nullable Integer maxAttempts);

	/**
	 * Waits, without commands to Redis, until jobs of a topic may be READY.
	 * @param topic the topic
	 * @param timeout the longest wait
	 * @return {@code true} when work may be there, {@code false} on timeout
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	boolean awaitWork(String topic, Duration timeout) throws InterruptedException;

	/**
	 * Waits as {@link #awaitWork(String, Duration)} does; meanwhile the queue may reserve
	 * jobs for the same thread's next {@code reserve(topic, max, ttr, maxAttempts)}, and gives
	 * them back when it does not come soon. The default reserves nothing.
	 * @param topic the topic
	 * @param timeout the longest wait
	 * @param max the most jobs the next reserve takes
	 * @param ttr the TTR the next reserve asks for, or {@code null}
	 * @param maxAttempts the attempts limit the next reserve stores, or {@code null}
	 * @return {@code true} when work may be there, or was reserved for the next reserve
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	default boolean awaitWork(String topic, Duration timeout, int max, @Nullable Duration ttr,
			@Nullable Integer maxAttempts) throws InterruptedException {
		return awaitWork(topic, timeout);
	}

	/**
	 * Finishes a reserved job: it is removed.
	 * @param job the reservation
	 * @return {@code true} when finished, {@code false} when the reservation is stale
	 */
	boolean finish(ReservedJob job);

	/**
	 * Finishes reserved jobs of one topic and reserves up to {@code max} READY jobs of that
	 * topic, in the same step where it can (from one bucket only).
	 * @param jobs the reservations to finish, all of one topic
	 * @param max the most jobs to reserve next (0 to {@value #MAX_NEXT})
	 * @param ttr the time to run of the next jobs, or {@code null} for each job's own
	 * @return the stale reservations and the jobs reserved next
	 */
	default FinishResult finishAndReserve(List<ReservedJob> jobs, int max, @Nullable Duration ttr) {
		return finishAndReserve(jobs, max, ttr, null);
	}

	/**
	 * {@link #finishAndReserve(List, int, Duration)} with the attempts limit of the jobs
	 * reserved next.
	 * @param jobs the reservations to finish, all of one topic
	 * @param max the most jobs to reserve next (0 to {@value #MAX_NEXT})
	 * @param ttr the time to run of the next jobs, or {@code null} for each job's own
	 * @param maxAttempts the attempts limit of the next jobs, or {@code null} for each job's own
	 * @return the stale reservations and the jobs reserved next
	 */
	FinishResult finishAndReserve(List<ReservedJob> jobs, int max, @Nullable Duration ttr,
			@Nullable Integer maxAttempts);

	/**
	 * Fails a reserved job: delivered again after {@code backOff}, or DEAD when its attempts
	 * are used up; the error text is recorded.
	 * @param job the reservation
	 * @param backOff the wait before the next delivery
	 * @param error the error text (cut to {@value JobConstraints#MAX_ERROR_LENGTH} characters)
	 * @return what happened
	 */
	FailResult fail(ReservedJob job, Duration backOff, String error);

	/**
	 * Fails a reserved job for good: it is DEAD whatever its attempts.
	 * @param job the reservation
	 * @param error the error text
	 * @return {@link FailResult#DEAD}, or {@link FailResult#STALE} when nothing was changed
	 */
	FailResult kill(ReservedJob job, String error);

	/**
	 * Extends a reservation: its deadline becomes Redis's now plus {@code ttr}.
	 * @param job the reservation
	 * @param ttr the new time-to-run, or {@code null} for the reservation's own
	 * @return the new deadline, or empty when the reservation is stale
	 */
	Optional<Instant> touch(ReservedJob job, @Nullable Duration ttr);

	/**
	 * Gives back a reservation that was never started: READY again at the front of its topic,
	 * the attempt not counted.
	 * @param job the reservation
	 * @return {@code true} when released, {@code false} when stale
	 */
	boolean release(ReservedJob job);

	/**
	 * Gives back reservations that were never started, in their order, as {@link #release(ReservedJob)}
	 * (one given twice goes back once, where it was first given).
	 * @param jobs the reservations
	 * @return how many were released (the others were stale)
	 */
	int release(List<ReservedJob> jobs);

	/**
	 * Limits how many jobs of a topic reserves hand out, counted in Redis across every
	 * instance that limits the topic alike.
	 * @param topic the topic
	 * @param limit the limit, or {@code null} to remove it
	 * @throws IllegalStateException when the topic has another limit here already
	 */
	void limitRate(String topic, @Nullable RateLimit limit);

	/**
	 * The rate limit of a topic on this instance.
	 * @param topic the topic
	 * @return the limit, or empty when it has none
	 */
	Optional<RateLimit> rateLimit(String topic);

}
