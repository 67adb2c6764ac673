package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The consumer side of the delay queue, on serialized payloads: the programmatic consumer API
 * that listener containers and the HTTP API's reserve use (and that an application may use
 * directly).
 *
 * <p>
 * Consumers follow the at-least-once contract: {@link #reserve} hands out jobs with a fencing
 * token; each must be {@link #finish finished}, {@link #fail failed} or
 * {@link #release released} before its TTR runs out, else it is delivered again (with the
 * attempt counted) and the old token is refused. {@link #awaitWork} waits, in this JVM and
 * without commands to Redis, until jobs of a topic may be READY.
 *
 * <p>
 * Every other operation is one atomic step in Redis, timed by Redis's clock. Arguments are
 * checked first ({@link JobConstraints}): a broken rule throws
 * {@link IllegalArgumentException} and changes nothing. When Redis cannot be reached a
 * {@link DelayQueueConnectionException} is thrown. Implementations are thread-safe.
 *
 * @see DelayQueueOperations
 */
public interface DelayQueueConsumer {

	/**
	 * The most jobs one {@link #reserve} call takes.
	 */
	int MAX_RESERVE = 10_000;

	/**
	 * The most jobs one {@link #finishAndReserve} call reserves next.
	 */
	int MAX_NEXT = 1_000;

	/**
	 * Takes up to {@code max} READY jobs of a topic without waiting, each with its own
	 * attempts limit.
	 * @param topic the topic
	 * @param max the most jobs to take (1 to {@value #MAX_RESERVE})
	 * @param ttr how long the consumer may hold them, or {@code null} for each job's own TTR
	 * @return the jobs taken, possibly none
	 */
	default List<ReservedJob> reserve(String topic, int max, @Nullable Duration ttr) {
		return reserve(topic, max, ttr, null);
	}

	/**
	 * Takes up to {@code max} READY jobs of a topic without waiting. When jobs come from
	 * several buckets and a later bucket fails (Redis unreachable part-way), the jobs already
	 * taken are returned; the call throws only when it took none.
	 * @param topic the topic
	 * @param max the most jobs to take (1 to {@value #MAX_RESERVE})
	 * @param ttr how long the consumer may hold them, or {@code null} for each job's own TTR
	 * @param maxAttempts the attempts limit of the jobs taken, from this delivery on, or
	 * {@code null} to keep each job's own. It is stored with the job, so the one limit decides
	 * everywhere: a {@link #fail} on the last attempt and a TTR that runs out on it make the job
	 * DEAD, and {@link ReservedJob#maxAttempts()} says which attempt is the last.
	 * @return the jobs taken, possibly none
	 */
	List<ReservedJob> reserve(String topic, int max, @Nullable Duration ttr, @Nullable Integer maxAttempts);

	/**
	 * Waits until jobs of a topic may be READY: returns at once when the queue knows of some,
	 * else blocks until a promotion announces some or the timeout passes. Without busy
	 * polling: a waiting consumer sends no commands.
	 * @param topic the topic
	 * @param timeout the longest wait
	 * @return {@code true} when work may be there (a following {@link #reserve} may still
	 * find none, when another consumer was faster), {@code false} on timeout
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	boolean awaitWork(String topic, Duration timeout) throws InterruptedException;

	/**
	 * Waits as {@link #awaitWork(String, Duration)} does, for a caller that reserves next with
	 * {@code reserve(topic, max, ttr, maxAttempts)} on the same thread: while it waits, the
	 * queue may reserve jobs that become due for it at once, as that reserve would (their
	 * attempt counted, under a fencing token, until their TTR), and that reserve, called on
	 * this thread after this method returned {@code true}, returns them without asking Redis.
	 * Jobs reserved so that such a reserve does not collect soon (within about 50 ms) are given
	 * back, READY again at the front of their list and with the attempt not counted. The
	 * default waits as {@link #awaitWork(String, Duration)} does and reserves nothing.
	 * @param topic the topic
	 * @param timeout the longest wait
	 * @param max the most jobs the next reserve takes
	 * @param ttr the TTR the next reserve asks for, or {@code null} for each job's own
	 * @param maxAttempts the attempts limit the next reserve stores, or {@code null} for each
	 * job's own
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
	 * @return {@code true} when finished, {@code false} when the reservation is stale (the job
	 * was redelivered, cancelled, replaced or is gone) and nothing was changed
	 */
	boolean finish(ReservedJob job);

	/**
	 * Finishes reserved jobs of one topic and reserves up to {@code max} READY jobs of that
	 * topic in the same step: what a consumer that wants more work does, in one round trip
	 * per bucket where {@link #finish} and {@link #reserve} take one per job and call. The
	 * next jobs come from one bucket of the finished jobs only (in the Redis queue the first
	 * of them that this instance does not know to be empty of READY jobs of the topic: where a
	 * {@link #reserve} would look), so fewer (or none) may come back while other buckets still
	 * hold READY jobs; a {@link #reserve} then finds those. The default implementation makes
	 * the separate calls.
	 * @param jobs the reservations to finish, all of one topic
	 * @param max the most jobs to reserve next (0 to {@value #MAX_NEXT})
	 * @param ttr the time to run of the next jobs, or {@code null} for each job's own
	 * @return the jobs not finished because their reservation was stale, and the jobs
	 * reserved next
	 */
	default FinishResult finishAndReserve(List<ReservedJob> jobs, int max, @Nullable Duration ttr) {
		return finishAndReserve(jobs, max, ttr, null);
	}

	/**
	 * {@link #finishAndReserve(List, int, Duration)} with the attempts limit of the jobs
	 * reserved next, as {@link #reserve(String, int, Duration, Integer)} takes it.
	 * @param jobs the reservations to finish, all of one topic
	 * @param max the most jobs to reserve next (0 to {@value #MAX_NEXT})
	 * @param ttr the time to run of the next jobs, or {@code null} for each job's own
	 * @param maxAttempts the attempts limit of the next jobs, or {@code null} for each job's own
	 * @return the jobs not finished because their reservation was stale, and the jobs
	 * reserved next
	 */
	default FinishResult finishAndReserve(List<ReservedJob> jobs, int max, @Nullable Duration ttr,
			@Nullable Integer maxAttempts) {
		String topic = JobConstraints.topicOf(jobs);
		JobConstraints.count("max", max, MAX_NEXT);
		List<ReservedJob> stale = new ArrayList<>();
		for (ReservedJob job : jobs) {
			if (!finish(job)) {
				stale.add(job);
			}
		}
		return new FinishResult(stale, (max > 0) ? reserve(topic, max, ttr, maxAttempts) : List.of());
	}

	/**
	 * Fails a reserved job: it is delivered again after {@code backOff}, unless its attempts
	 * are used up, in which case it is DEAD. The error text is recorded either way.
	 * @param job the reservation
	 * @param backOff the wait before the next delivery (zero: at once)
	 * @param error the error text (cut to {@value JobConstraints#MAX_ERROR_LENGTH} characters)
	 * @return what happened
	 */
	FailResult fail(ReservedJob job, Duration backOff, String error);

	/**
	 * Fails a reserved job for good: it is DEAD with the error recorded, whatever its
	 * attempts.
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
	 * Gives back a reservation that was never started: the job is READY again at once, at the
	 * front of its topic, and the attempt is not counted.
	 * @param job the reservation
	 * @return {@code true} when released, {@code false} when stale
	 */
	boolean release(ReservedJob job);

	/**
	 * Gives back reservations that were never started, keeping their order: each job is READY
	 * again at once, at the front of its topic, the first given taken first again, and the
	 * attempts are not counted.
	 * @param jobs the reservations
	 * @return how many were released (the others were stale)
	 */
	default int release(List<ReservedJob> jobs) {
		// each release puts its job at the front: the last first
		int released = 0;
		for (int i = jobs.size() - 1; i >= 0; i--) {
			released += release(jobs.get(i)) ? 1 : 0;
		}
		return released;
	}

	/**
	 * Limits how many jobs of a topic this instance's reserves hand out ({@link RateLimit}):
	 * at most the limit's permits in any window of its interval, counted in Redis across every
	 * instance that limits the topic alike. Give every instance that consumes the topic the
	 * same limit (the property or the listener's attribute does); a reserve on an instance
	 * without it is not limited.
	 * @param topic the topic
	 * @param limit the limit, or {@code null} to remove it
	 * @throws IllegalStateException when the topic has another limit here already
	 * @throws UnsupportedOperationException when this consumer cannot limit rates (the
	 * default)
	 */
	default void limitRate(String topic, @Nullable RateLimit limit) {
		throw new UnsupportedOperationException(getClass().getName() + " does not limit the rate of topics");
	}

	/**
	 * The rate limit of a topic on this instance.
	 * @param topic the topic
	 * @return the limit, or empty when it has none (always, for a consumer that cannot limit
	 * rates)
	 */
	default Optional<RateLimit> rateLimit(String topic) {
		return Optional.empty();
	}

}
