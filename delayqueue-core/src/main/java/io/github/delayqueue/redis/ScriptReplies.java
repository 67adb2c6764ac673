package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleResult;
import org.jspecify.annotations.Nullable;

/**
 * The replies of the queue's Lua scripts, decoded in the order each script's header gives,
 * and the readers of one value: integers arrive as {@code Long}, strings as {@code byte[]}.
 */
final class ScriptReplies {

	private ScriptReplies() {
	}

	@SuppressWarnings("unchecked")
	static List<@Nullable Object> list(@Nullable Object reply) {
		if (reply instanceof List<?> list) {
			return (List<@Nullable Object>) list;
		}
		throw new IllegalStateException("Expected a list reply from Redis, got " + describe(reply));
	}

	static long asLong(@Nullable Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		if (value instanceof byte[] bytes) {
			return Long.parseLong(new String(bytes, StandardCharsets.US_ASCII));
		}
		throw new IllegalStateException("Expected an integer reply from Redis, got " + describe(value));
	}

	static @Nullable String asString(@Nullable Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		return (value != null) ? value.toString() : null;
	}

	static byte[] asBytes(@Nullable Object value) {
		if (value instanceof byte[] bytes) {
			return bytes;
		}
		return (value != null) ? value.toString().getBytes(StandardCharsets.UTF_8) : new byte[0];
	}

	private static String describe(@Nullable Object value) {
		return (value != null) ? value.getClass().getName() + " " + value : "null";
	}

	/** {@code schedule.lua}: Redis's now, the index of the job that became the head (or -1), the results. */
	record Scheduled(long now, int head, List<ScheduleResult> results) {

		static Scheduled decode(@Nullable Object reply) {
			List<Object> v = list(reply);
			List<ScheduleResult> results = new ArrayList<>((v.size() - 2) / 3);
			for (int at = 2; at + 2 < v.size(); at += 3) {
				results.add(new ScheduleResult(asLong(v.get(at)) == 1, stateOf(v.get(at + 1)), instant(v.get(at + 2))));
			}
			return new Scheduled(asLong(v.get(0)), (int) asLong(v.get(1)) - 1, results);
		}

	}

	/** {@code reschedule.lua}: the result; when rescheduled the new state, due time, whether head. */
	record Rescheduled(RescheduleResult result, @Nullable JobState state, long dueMillis, boolean head) {

		static Rescheduled decode(@Nullable Object reply) {
			List<Object> v = list(reply);
			long code = asLong(v.get(0));
			if (code <= 0) {
				return new Rescheduled((code == 0) ? RescheduleResult.NOT_FOUND : RescheduleResult.NOT_WAITING, null, 0,
						false);
			}
			return new Rescheduled(RescheduleResult.RESCHEDULED, stateOf(v.get(1)), asLong(v.get(2)),
					asLong(v.get(3)) == 1);
		}

	}

	/** {@code find.lua}: the job, or empty. */
	static Optional<JobInfo> found(String topic, String id, @Nullable Object reply) {
		List<Object> v = list(reply);
		return v.isEmpty() ? Optional.empty() : Optional.of(jobInfo(topic, id, stateOf(v.get(0)), v, 1));
	}

	/**
	 * A take ({@code lib/apply_take.lua}, in {@code finish.lua}): ready entries left (-1: too
	 * late), Redis's now (0 when none was taken), the deadline announced as the bucket's head (or
	 * 0), and the jobs taken.
	 */
	record Taken(long readyLeft, long now, long announced, List<ReservedJob> jobs) {

		/** Whether the take came after its latest time and took nothing. */
		boolean late() {
			return this.readyLeft < 0;
		}

		static Taken decode(String topic, List<Object> v, int at) {
			long now = asLong(v.get(at + 1));
			List<ReservedJob> jobs = reservedJobs(topic, v, at + 3, (v.size() - at - 3) / 9, now);
			return new Taken(asLong(v.get(at)), now, asLong(v.get(at + 2)), jobs);
		}

	}

	/**
	 * {@code finish.lua}: the jobs finished and stale, the next jobs taken (null when none were
	 * wanted), and when the topic keeps finished jobs their records and the finish time.
	 */
	record Finished(List<ReservedJob> finished, List<ReservedJob> stale, @Nullable Taken next,
			List<byte[]> records, long finishedAt) {

		static Finished decode(String topic, List<ReservedJob> jobs, boolean wanted, boolean keep,
				@Nullable Object reply) {
			List<Object> v = list(reply);
			List<ReservedJob> finished = new ArrayList<>(jobs.size());
			List<ReservedJob> stale = new ArrayList<>();
			List<byte[]> records = new ArrayList<>();
			for (int i = 0; i < jobs.size(); i++) {
				Object code = v.get(i);
				// a kept job answers with its RESERVED record ('S' first), not with 1
				if (keep && code instanceof byte[] record && record.length > 0 && record[0] == 'S') {
					finished.add(jobs.get(i));
					records.add(record);
				}
				else {
					((asLong(code) == 1) ? finished : stale).add(jobs.get(i));
				}
			}
			List<Object> rest = keep ? v.subList(0, v.size() - 1) : v;
			long finishedAt = keep ? asLong(v.get(v.size() - 1)) : 0;
			return new Finished(finished, stale, wanted ? Taken.decode(topic, rest, jobs.size()) : null, records,
					finishedAt);
		}

	}

	/** {@code fail.lua}: the result, the due time or time of death, whether it became the head. */
	record Failed(FailResult result, long dueMillis, boolean head) {

		static Failed decode(@Nullable Object reply) {
			List<Object> v = list(reply);
			long code = asLong(v.get(0));
			FailResult result = (code == 2) ? FailResult.DEAD : (code == 1) ? FailResult.RETRYING : FailResult.STALE;
			return (result == FailResult.STALE) ? new Failed(result, 0, false)
					: new Failed(result, asLong(v.get(1)), asLong(v.get(2)) == 1);
		}

	}

	/** {@code replay.lua}: jobs replayed, dead-list entries left, the ids of the first replayed. */
	record Replayed(long count, long left, List<String> ids) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static Replayed decode(String topic, @Nullable Object reply) {
			List<Object> v = list(reply);
			List<String> ids = v.subList(2, v.size())
				.stream()
				.map((jobKey) -> asString(jobKey).substring(topic.length() + 1))
				.toList();
			return new Replayed(asLong(v.get(0)), asLong(v.get(1)), ids);
		}

	}

	/** {@code stats.lua} for a bucket: now, next timer event, earliest DELAYED due time, figures. */
	record Figures(long now, @Nullable Instant nextDue, @Nullable Instant earliestDelayed, List<Figure> figures) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static Figures decode(@Nullable Object reply) {
			List<Object> v = list(reply);
			List<Figure> figures = new ArrayList<>((v.size() - 3) / 2);
			for (int i = 3; i + 1 < v.size(); i += 2) {
				String field = asString(v.get(i));
				if (field.charAt(0) != 'T') {
					figures.add(new Figure(field.charAt(0), field.substring(2), asLong(v.get(i + 1))));
				}
			}
			return new Figures(asLong(v.get(0)), instantOrNull(v.get(1)), instantOrNull(v.get(2)), figures);
		}

	}

	/** A topic's count of a state letter, or (kind {@code O}) its oldest overdue due time. */
	record Figure(char kind, String topic, long value) {

		static final char OLDEST_OVERDUE = 'O';

	}

	/**
	 * {@code promote.lua}: what the timer needs, the expired reservations, the topics whose
	 * ready list became non-empty unannounced (with its length) and the jobs reserved for
	 * offers, in the order of the reply.
	 */
	record Promoted(TimerBackend.Promotion promotion, List<Expired> expired, Map<String, Long> unannounced,
			Map<String, List<ReservedJob>> reserved) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static Promoted decode(@Nullable Object reply) {
			List<Object> v = list(reply);
			long now = asLong(v.get(3));
			int readyTopics = (int) asLong(v.get(5));
			List<String> topics = new ArrayList<>(readyTopics);
			Map<String, Long> unannounced = new LinkedHashMap<>();
			int at = 6;
			for (int t = 0; t < readyTopics; t++, at += 2) {
				String topic = asString(v.get(at));
				topics.add(topic);
				long length = asLong(v.get(at + 1));
				if (length >= 0) {
					unannounced.put(topic, length);
				}
			}
			int expiryTopics = (int) asLong(v.get(at++));
			List<Expired> expired = new ArrayList<>(expiryTopics);
			for (int t = 0; t < expiryTopics; t++, at += 3) {
				expired.add(new Expired(asString(v.get(at)), asLong(v.get(at + 1)), asLong(v.get(at + 2))));
			}
			int reservedTopics = (int) asLong(v.get(at++));
			Map<String, List<ReservedJob>> reserved = new LinkedHashMap<>();
			for (int t = 0; t < reservedTopics; t++) {
				String topic = asString(v.get(at));
				int jobs = (int) asLong(v.get(at + 1));
				reserved.put(topic, reservedJobs(topic, v, at + 2, jobs, now));
				at += 2 + 9 * jobs;
			}
			return new Promoted(new TimerBackend.Promotion((int) asLong(v.get(0)),
					(int) asLong(v.get(1)), asLong(v.get(2)), now, topics, asLong(v.get(4))),
					expired, unannounced, reserved);
		}

	}

	/** A topic's expired reservations: how many are READY again, how many DEAD. */
	record Expired(String topic, long requeued, long dead) {

	}

	/**
	 * {@code coordinate.lua}: live instances, now, the namespace's epoch, this instance's number,
	 * the buckets owned (sorted).
	 */
	static TimerBackend.Coordination coordination(@Nullable Object reply) {
		List<Object> v = list(reply);
		int[] owned = v.subList(4, v.size()).stream().mapToInt((bucket) -> (int) asLong(bucket)).sorted()
			.toArray();
		return new TimerBackend.Coordination((int) asLong(v.get(0)), asLong(v.get(1)),
				Objects.requireNonNullElse(asString(v.get(2)), ""), (int) asLong(v.get(3)), owned);
	}

	/** Jobs reserved, 9 values each as {@code lib/apply_take.lua} answers them. */
	@SuppressWarnings("NullAway") // the script's reply has these values
	private static List<ReservedJob> reservedJobs(String topic, List<Object> v, int from, int count, long now) {
		List<ReservedJob> jobs = new ArrayList<>(count);
		for (int i = from; i < from + 9 * count; i += 9) {
			StoredPayload.Read stored = StoredPayload.decode(asBytes(v.get(i + 1)));
			jobs.add(new ReservedJob(topic, asString(v.get(i)), stored.payload(),
					(int) asLong(v.get(i + 2)), (int) asLong(v.get(i + 3)), instant(v.get(i + 4)),
					instant(v.get(i + 5)), Instant.ofEpochMilli(now), instant(v.get(i + 7)),
					Duration.ofMillis(asLong(v.get(i + 8))), asLong(v.get(i + 6)), stored.headers()));
		}
		return jobs;
	}

	/** A job from the 10 values {@code find.lua} answers after the state, from {@code at}. */
	@SuppressWarnings("NullAway") // JobInfo's compact constructor hides from NullAway that its payload may be null
	static JobInfo jobInfo(String topic, String id, JobState state, List<Object> v, int at) {
		String error = asString(v.get(at + 7));
		StoredPayload.Read stored = StoredPayload.decode((v.get(at + 8) instanceof byte[] bytes) ? bytes : null);
		return new JobInfo(topic, id, state, (int) asLong(v.get(at)), (int) asLong(v.get(at + 1)),
				Duration.ofMillis(asLong(v.get(at + 2))), instant(v.get(at + 3)), instant(v.get(at + 4)),
				instantOrNull(v.get(at + 5)), null, instantOrNull(v.get(at + 6)),
				(error == null || error.isEmpty()) ? null : error, stored.payload(), stored.headers(), null, null,
				(int) asLong(v.get(at + 9)));
	}

	@SuppressWarnings("NullAway") // the script's reply has these values
	private static JobState stateOf(@Nullable Object code) {
		return JobState.fromCode(asString(code).charAt(0));
	}

	static Instant instant(@Nullable Object millis) {
		return Instant.ofEpochMilli(asLong(millis));
	}

	private static @Nullable Instant instantOrNull(@Nullable Object millis) {
		long value = asLong(millis);
		return (value > 0) ? Instant.ofEpochMilli(value) : null;
	}

}
