package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleResult;
import org.jspecify.annotations.Nullable;

/**
 * The replies of the queue's Lua scripts, decoded: one method or record per script, each the
 * only code that reads that script's reply by position (the order is the one the script's
 * header comment gives). Integers arrive as {@code Long}, strings as {@code byte[]}
 * ({@link Replies}). Called by {@link QueueScripts} only.
 */
final class ScriptReplies {

	private ScriptReplies() {
	}

	/**
	 * The reply of {@code schedule.lua}: Redis's now, the number (from 1) of the job that
	 * became the bucket's head or 0, then three values per job.
	 *
	 * @param now Redis's time, ms
	 * @param head the index (from 0) of the job that became the bucket's head, or -1
	 * @param results one per job of the call, in order
	 */
	record Scheduled(long now, int head, List<ScheduleResult> results) {

		static Scheduled decode(@Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			List<ScheduleResult> results = new ArrayList<>((v.size() - 2) / 3);
			for (int at = 2; at + 2 < v.size(); at += 3) {
				results.add(new ScheduleResult(Replies.asLong(v.get(at)) == 1, stateOf(v.get(at + 1)),
						instant(v.get(at + 2))));
			}
			return new Scheduled(Replies.asLong(v.get(0)), (int) Replies.asLong(v.get(1)) - 1, results);
		}

	}

	/**
	 * The reply of {@code cancel.lua}: the state the job had, or nothing.
	 * @return whether there was such a job
	 */
	static boolean cancelled(@Nullable Object reply) {
		return !Replies.list(reply).isEmpty();
	}

	/**
	 * The reply of {@code reschedule.lua}: 1, the new state, due ms, 1 for a new head; or 0
	 * for no such job; or -1 and the state of a job that cannot be rescheduled.
	 *
	 * @param result what happened
	 * @param state the job's new state when it was rescheduled, else {@code null}
	 * @param dueMillis its new due time when it was rescheduled, else 0
	 * @param head whether it became the earliest of the bucket's delay queue
	 */
	record Rescheduled(RescheduleResult result, @Nullable JobState state, long dueMillis, boolean head) {

		static Rescheduled decode(@Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			long code = Replies.asLong(v.get(0));
			if (code == 0) {
				return new Rescheduled(RescheduleResult.NOT_FOUND, null, 0, false);
			}
			if (code < 0) {
				return new Rescheduled(RescheduleResult.NOT_WAITING, null, 0, false);
			}
			return new Rescheduled(RescheduleResult.RESCHEDULED, stateOf(v.get(1)), Replies.asLong(v.get(2)),
					Replies.asLong(v.get(3)) == 1);
		}

	}

	/**
	 * The reply of {@code find.lua}: nothing, or state, attempt, max attempts, ttr ms, due ms,
	 * created ms, reserved until ms, died at ms, last error, payload, priority.
	 * @return the job, or empty when there is none
	 */
	static Optional<JobInfo> found(String topic, String id, @Nullable Object reply) {
		List<Object> v = Replies.list(reply);
		if (v.isEmpty()) {
			return Optional.empty();
		}
		String error = Replies.asString(v.get(8));
		StoredPayload.Read stored = StoredPayload.decode(Replies.asBytes(v.get(9)));
		return Optional.of(new JobInfo(topic, id, stateOf(v.get(0)), (int) Replies.asLong(v.get(1)),
				(int) Replies.asLong(v.get(2)), Duration.ofMillis(Replies.asLong(v.get(3))), instant(v.get(4)),
				instant(v.get(5)), instantOrNull(v.get(6)), instantOrNull(v.get(7)),
				(error == null || error.isEmpty()) ? null : error, stored.payload(), stored.headers(), null, null,
				(int) Replies.asLong(v.get(10))));
	}

	/**
	 * What {@code lib/apply_take.lua} appends to the reply of {@code reserve.lua}
	 * and {@code finish.lua}: ready-list entries left, now ms, announced deadline or 0, then nine
	 * values per job.
	 *
	 * @param readyLeft the entries left in the bucket's ready list of the topic, -1 when the
	 * take was too late ({@code reserve.lua}'s latest time)
	 * @param now Redis's time, ms, or 0 when no job was taken (the script then does not read
	 * the clock)
	 * @param announced the earliest new TTR deadline when it became the bucket's next timer
	 * event (the script announced it as a head), else 0
	 * @param jobs the jobs taken
	 */
	record Taken(long readyLeft, long now, long announced, List<ReservedJob> jobs) {

		/**
		 * Whether the take found READY jobs after the latest time it was given, and took none
		 * (the bucket still has them).
		 * @return {@code true} when too late
		 */
		boolean late() {
			return this.readyLeft < 0;
		}

		static Taken decode(String topic, @Nullable Object reply) {
			return decode(topic, Replies.list(reply), 0);
		}

		private static Taken decode(String topic, List<Object> v, int at) {
			long now = Replies.asLong(v.get(at + 1));
			List<ReservedJob> jobs = reservedJobs(topic, v, at + 3, (v.size() - at - 3) / 9, now);
			return new Taken(Replies.asLong(v.get(at)), now, Replies.asLong(v.get(at + 2)), jobs);
		}

	}

	/**
	 * The reply of {@code finish.lua}: one code per job to finish (1 finished, or the record the
	 * job had when the topic keeps finished jobs), then, when next jobs were wanted, what
	 * {@link Taken} reads, then (keeping) the finish time.
	 *
	 * @param finished the jobs finished
	 * @param stale the jobs not finished because their reservation was stale
	 * @param next the jobs taken next, or {@code null} when none were wanted
	 * @param records the records the finished jobs had, in their order, when asked for (the
	 * topic keeps finished jobs), else empty
	 * @param finishedAt Redis's time of the finish when the records were asked for and a job
	 * finished, else 0
	 */
	record Finished(List<ReservedJob> finished, List<ReservedJob> stale, @Nullable Taken next,
			List<byte[]> records, long finishedAt) {

		static Finished decode(String topic, List<ReservedJob> jobs, boolean wanted, boolean keep,
				@Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			List<ReservedJob> finished = new ArrayList<>(jobs.size());
			List<ReservedJob> stale = new ArrayList<>();
			List<byte[]> records = new ArrayList<>();
			for (int i = 0; i < jobs.size(); i++) {
				Object code = v.get(i);
				if (keep && code instanceof byte[] record && record.length > 0 && record[0] == 'S') {
					// finished, answered with the record it had (a RESERVED job's: 'S' first;
					// a client may hand integers over as their digits)
					finished.add(jobs.get(i));
					records.add(record);
				}
				else {
					((Replies.asLong(code) == 1) ? finished : stale).add(jobs.get(i));
				}
			}
			List<Object> rest = keep ? v.subList(0, v.size() - 1) : v;
			long finishedAt = keep ? Replies.asLong(v.get(v.size() - 1)) : 0;
			return new Finished(finished, stale, wanted ? Taken.decode(topic, rest, jobs.size()) : null, records,
					finishedAt);
		}

	}

	/**
	 * The reply of {@code fail.lua}: 1 retrying, 2 dead, 0 no such job or -1 stale token; the
	 * due time (or the time of death); 1 when the job became the bucket's head.
	 *
	 * @param result what happened
	 * @param dueMillis when the job is due again (retrying) or died
	 * @param head whether a retried job became the earliest of the bucket's delay queue
	 */
	record Failed(FailResult result, long dueMillis, boolean head) {

		static Failed decode(@Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			long code = Replies.asLong(v.get(0));
			FailResult result = (code == 2) ? FailResult.DEAD : (code == 1) ? FailResult.RETRYING : FailResult.STALE;
			if (result == FailResult.STALE) {
				return new Failed(result, 0, false);
			}
			return new Failed(result, Replies.asLong(v.get(1)), Replies.asLong(v.get(2)) == 1);
		}

	}

	/**
	 * The reply of {@code touch.lua}: 1 and the new deadline, or 0 (no such job) or -1 (stale
	 * token) and 0.
	 * @return the new deadline, or empty when the reservation is stale
	 */
	static Optional<Instant> touched(@Nullable Object reply) {
		List<Object> v = Replies.list(reply);
		return (Replies.asLong(v.get(0)) == 1) ? Optional.of(instant(v.get(1))) : Optional.empty();
	}

	/**
	 * The reply of {@code release.lua}: how many jobs were released.
	 * @return the jobs released
	 */
	static int released(@Nullable Object reply) {
		return (int) Replies.asLong(Replies.list(reply).get(0));
	}

	/**
	 * The reply of {@code replay.lua}: jobs replayed, dead-list entries left, then the keys of
	 * the first replayed jobs.
	 *
	 * @param count the jobs replayed
	 * @param left the dead-list entries left in the bucket
	 * @param ids the ids of the first replayed jobs, as many as were asked for
	 */
	record Replayed(long count, long left, List<String> ids) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static Replayed decode(String topic, @Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			List<String> ids = new ArrayList<>(v.size() - 2);
			for (int i = 2; i < v.size(); i++) {
				ids.add(Replies.asString(v.get(i)).substring(topic.length() + 1));
			}
			return new Replayed(Replies.asLong(v.get(0)), Replies.asLong(v.get(1)), ids);
		}

	}

	/**
	 * The reply of {@code stats.lua} for one bucket: now ms, next due ms, earliest DELAYED due
	 * ms, then pairs of a field ({@code <letter>:<topic>}) and its value.
	 *
	 * @param now Redis's time, ms
	 * @param nextDue the bucket's next timer event, or {@code null}
	 * @param earliestDelayed the due time of its earliest DELAYED job, or {@code null}
	 * @param figures the counts per state and topic ({@link JobState#code()} letters) and the
	 * due time of each topic's oldest overdue job (letter {@code O}); tombstone counts left out
	 */
	record Figures(long now, @Nullable Instant nextDue, @Nullable Instant earliestDelayed, List<Figure> figures) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static Figures decode(@Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			List<Figure> figures = new ArrayList<>((v.size() - 3) / 2);
			for (int i = 3; i + 1 < v.size(); i += 2) {
				String field = Replies.asString(v.get(i));
				if (field.charAt(0) != 'T') {
					figures.add(new Figure(field.charAt(0), field.substring(2), Replies.asLong(v.get(i + 1))));
				}
			}
			return new Figures(Replies.asLong(v.get(0)), instantOrNull(v.get(1)), instantOrNull(v.get(2)), figures);
		}

	}

	/**
	 * One figure of a bucket.
	 *
	 * @param kind a state letter, or {@code O} for the due time of the oldest overdue job
	 * @param topic the topic
	 * @param value the count, or the due time in ms
	 */
	record Figure(char kind, String topic, long value) {

		static final char OLDEST_OVERDUE = 'O';

	}

	/**
	 * The reply of {@code dead.lua} for one bucket: the topic's DEAD jobs in the bucket, then
	 * ten values per job read.
	 *
	 * @param total the topic's DEAD jobs in the bucket
	 * @param jobs the jobs read
	 */
	record DeadJobs(long total, List<JobInfo> jobs) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static DeadJobs decode(String topic, boolean payloads, @Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			List<JobInfo> jobs = new ArrayList<>((v.size() - 1) / 10);
			for (int i = 1; i + 9 < v.size(); i += 10) {
				String jobKey = Replies.asString(v.get(i));
				String error = Replies.asString(v.get(i + 7));
				StoredPayload.Read stored = payloads ? StoredPayload.decode(Replies.asBytes(v.get(i + 8)))
						: new StoredPayload.Read(Map.of(), null);
				jobs.add(new JobInfo(topic, jobKey.substring(topic.length() + 1), JobState.DEAD,
						(int) Replies.asLong(v.get(i + 2)), (int) Replies.asLong(v.get(i + 3)),
						Duration.ofMillis(Replies.asLong(v.get(i + 4))), instant(v.get(i + 5)), instant(v.get(i + 6)),
						null, instant(v.get(i + 1)), error.isEmpty() ? null : error, stored.payload(),
						stored.headers(), null, null, (int) Replies.asLong(v.get(i + 9))));
			}
			return new DeadJobs(Replies.asLong(v.get(0)), jobs);
		}

	}

	/**
	 * The reply of {@code repair.lua}: jobs, jobs put back into their index, index entries
	 * and last errors dropped, count fields corrected, unreadable records.
	 * @return what was (or would be) repaired in the bucket
	 */
	static RepairResult repaired(@Nullable Object reply) {
		List<Object> v = Replies.list(reply);
		return new RepairResult(Replies.asLong(v.get(0)), Replies.asLong(v.get(1)), Replies.asLong(v.get(2)),
				Replies.asLong(v.get(3)), Replies.asLong(v.get(4)));
	}

	/**
	 * The reply of {@code promote.lua}, in the order its header comment gives.
	 *
	 * @param promotion what the timer needs
	 * @param expired the topics with expired reservations
	 * @param unannounced the topics whose ready list the step made non-empty without announcing
	 * it, with the list's length, in the order of the reply
	 * @param reserved the jobs the step reserved for offers, by topic, in the order of the reply
	 */
	record Promoted(TimerBackend.Promotion promotion, List<Expired> expired, Map<String, Long> unannounced,
			Map<String, List<ReservedJob>> reserved) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static Promoted decode(@Nullable Object reply) {
			List<Object> v = Replies.list(reply);
			long now = Replies.asLong(v.get(3));
			int readyTopics = (int) Replies.asLong(v.get(5));
			List<String> topics = new ArrayList<>(readyTopics);
			Map<String, Long> unannounced = new LinkedHashMap<>();
			int at = 6;
			for (int t = 0; t < readyTopics; t++, at += 2) {
				String topic = Replies.asString(v.get(at));
				topics.add(topic);
				long length = Replies.asLong(v.get(at + 1));
				if (length >= 0) {
					unannounced.put(topic, length);
				}
			}
			int expiryTopics = (int) Replies.asLong(v.get(at++));
			List<Expired> expired = new ArrayList<>(expiryTopics);
			for (int t = 0; t < expiryTopics; t++, at += 3) {
				expired.add(new Expired(Replies.asString(v.get(at)), Replies.asLong(v.get(at + 1)),
						Replies.asLong(v.get(at + 2))));
			}
			int reservedTopics = (int) Replies.asLong(v.get(at++));
			Map<String, List<ReservedJob>> reserved = new LinkedHashMap<>();
			for (int t = 0; t < reservedTopics; t++) {
				String topic = Replies.asString(v.get(at));
				int jobs = (int) Replies.asLong(v.get(at + 1));
				reserved.put(topic, reservedJobs(topic, v, at + 2, jobs, now));
				at += 2 + 9 * jobs;
			}
			return new Promoted(new TimerBackend.Promotion((int) Replies.asLong(v.get(0)),
					(int) Replies.asLong(v.get(1)), Replies.asLong(v.get(2)), now, topics, Replies.asLong(v.get(4))),
					expired, unannounced, reserved);
		}

	}

	/**
	 * Jobs a script reserved, as {@code lib/apply_take.lua} answers them: 9 values
	 * per job (id, payload, attempt, max attempts, due, created, token, deadline, ttr).
	 * @param topic their topic
	 * @param v the reply
	 * @param from where the first job starts
	 * @param count how many jobs
	 * @param now Redis's time of the reservation (ms)
	 * @return the jobs
	 */
	@SuppressWarnings("NullAway") // the script's reply has these values
	private static List<ReservedJob> reservedJobs(String topic, List<Object> v, int from, int count, long now) {
		List<ReservedJob> jobs = new ArrayList<>(count);
		for (int i = from; i < from + 9 * count; i += 9) {
			StoredPayload.Read stored = StoredPayload.decode(Replies.asBytes(v.get(i + 1)));
			jobs.add(new ReservedJob(topic, Replies.asString(v.get(i)), stored.payload(),
					(int) Replies.asLong(v.get(i + 2)), (int) Replies.asLong(v.get(i + 3)), instant(v.get(i + 4)),
					instant(v.get(i + 5)), Instant.ofEpochMilli(now), instant(v.get(i + 7)),
					Duration.ofMillis(Replies.asLong(v.get(i + 8))), Replies.asLong(v.get(i + 6)), stored.headers()));
		}
		return jobs;
	}

	/**
	 * Expired reservations of one topic, handled by a promotion.
	 *
	 * @param topic the topic
	 * @param requeued how many are READY again
	 * @param dead how many are DEAD (their attempts used up)
	 */
	record Expired(String topic, long requeued, long dead) {

	}

	/**
	 * The reply of {@code coordinate.lua}: live instances, now ms, the namespace's epoch, then
	 * the buckets this instance owns.
	 * @return the outcome, the buckets sorted
	 */
	static TimerBackend.Coordination coordination(@Nullable Object reply) {
		List<Object> v = Replies.list(reply);
		int[] owned = new int[v.size() - 3];
		for (int i = 3; i < v.size(); i++) {
			owned[i - 3] = (int) Replies.asLong(v.get(i));
		}
		Arrays.sort(owned);
		return new TimerBackend.Coordination((int) Replies.asLong(v.get(0)), Replies.asLong(v.get(1)),
				Objects.requireNonNullElse(Replies.asString(v.get(2)), ""), owned);
	}

	/**
	 * The reply of {@code namespace.lua}: the pinned value.
	 * @return the value
	 */
	@SuppressWarnings("NullAway") // the script's reply has these values
	static String pinned(@Nullable Object reply) {
		return Replies.asString(Replies.list(reply).get(0));
	}

	@SuppressWarnings("NullAway") // the script's reply has these values
	private static JobState stateOf(@Nullable Object code) {
		return JobState.fromCode(Replies.asString(code).charAt(0));
	}

	private static Instant instant(@Nullable Object millis) {
		return Instant.ofEpochMilli(Replies.asLong(millis));
	}

	private static @Nullable Instant instantOrNull(@Nullable Object millis) {
		long value = Replies.asLong(millis);
		return (value > 0) ? Instant.ofEpochMilli(value) : null;
	}

}
