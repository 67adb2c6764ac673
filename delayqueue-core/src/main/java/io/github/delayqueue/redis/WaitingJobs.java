package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.WaitingJobPage;
import org.jspecify.annotations.Nullable;

/**
 * Reads the pages of {@link DelayQueueAdmin#waitingJobs} and {@link DelayQueueAdmin#deadJobs}:
 * each bucket's next jobs after the cursor ({@code waiting.lua}), merged up to the first place
 * where a bucket stopped reading; a RESERVED page names the holders its tokens carry
 * ({@link QueueScripts#holders}).
 */
final class WaitingJobs {

	private static final Set<JobState> WAITING = Set.of(JobState.DELAYED, JobState.READY, JobState.RESERVED);

	private WaitingJobs() {
	}

	static WaitingJobPage page(QueueScripts scripts, String topic, JobState state, @Nullable String cursor, int limit,
			boolean payloads) {
		if (!WAITING.contains(state)) {
			throw new IllegalArgumentException("state must be DELAYED, READY or RESERVED, was " + state);
		}
		DeadJobPage page = read(scripts, topic, state, PageCursor.parse(topic, cursor, limit, "waiting jobs"), limit,
				payloads);
		return new WaitingJobPage(page.jobs(), page.next());
	}

	/** A page of a topic's DEAD jobs, the oldest death first, and how many the topic has. */
	static DeadJobPage dead(QueueScripts scripts, String topic, @Nullable String cursor, int limit, boolean payloads) {
		return read(scripts, topic, JobState.DEAD, PageCursor.parse(topic, cursor, limit, "dead jobs"), limit, payloads);
	}

	/** A page of a topic's jobs of a state after a cursor, with the topic's DEAD jobs (0 for another state). */
	@SuppressWarnings("NullAway") // a RESERVED job read has its deadline, a DEAD one its time of death
	private static DeadJobPage read(QueueScripts scripts, String topic, JobState state, @Nullable PageCursor after,
			int limit, boolean payloads) {
		List<Read> reads = scripts.waiting(topic, state, limit + 1, payloads, after)
			.stream()
			.map((reply) -> Read.decode(topic, state, reply))
			.toList();
		Place stop = reads.stream().map(Read::stop).filter(Objects::nonNull).min(Comparator.naturalOrder()).orElse(null);
		List<Listed> listed = reads.stream()
			.flatMap((read) -> read.listed().stream())
			.filter((row) -> stop == null || row.place().compareTo(stop) <= 0)
			.sorted(Comparator.comparing(Listed::place))
			.limit(limit + 1)
			.toList();
		Map<Long, String> holders = (state != JobState.RESERVED) ? Map.of()
				: scripts.holders(listed.stream().map(Listed::token).toList());
		List<JobInfo> jobs = listed.stream().map((row) -> row.heldBy(holders.get(row.token()))).toList();
		long total = reads.stream().mapToLong(Read::total).sum();
		if (stop == null || jobs.size() > limit) {
			return PageCursor.page(jobs, limit, (job) -> time(state, job),
					(page, next) -> new DeadJobPage(total, page, next));
		}
		// every bucket was read up to the stop: the next page starts after it
		String prefix = topic + ":";
		String next = stop.member().startsWith(prefix)
				? PageCursor.text(stop.score(), stop.member().substring(prefix.length()))
				: PageCursor.text((Place.compare(stop.member(), prefix) < 0) ? stop.score() : stop.score() + 1, "");
		return new DeadJobPage(total, jobs, next);
	}

	private static Instant time(JobState state, JobInfo job) {
		return (state == JobState.RESERVED) ? Objects.requireNonNull(job.reservedUntil())
				: (state == JobState.DEAD) ? Objects.requireNonNull(job.diedAt()) : job.dueAt();
	}

	/** A place in a sorted set: a score, then a member's bytes. */
	record Place(long score, String member) implements Comparable<Place> {

		@Override
		public int compareTo(Place other) {
			return (this.score != other.score) ? Long.compare(this.score, other.score)
					: compare(this.member, other.member);
		}

		static int compare(String a, String b) {
			return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
		}

	}

	/** A job read, its place in its index and its fencing token. */
	record Listed(Place place, JobInfo job, long token) {

		@SuppressWarnings("NullAway") // a compact constructor's byte @Nullable [] is not seen by NullAway
		JobInfo heldBy(@Nullable String holder) {
			JobInfo j = this.job;
			return (holder == null) ? j
					: new JobInfo(j.topic(), j.id(), j.state(), j.attempt(), j.maxAttempts(), j.ttr(), j.dueAt(),
							j.createdAt(), j.reservedUntil(), holder, j.diedAt(), j.lastError(), j.payload(),
							j.headers(), j.finishedAt(), j.runTime(), j.priority());
		}

	}

	/** One bucket's reply: the jobs read, and the last entry examined when the index goes on. */
	record Read(@Nullable Place stop, long total, List<Listed> listed) {

		@SuppressWarnings("NullAway") // the script's reply has these values
		static Read decode(String topic, JobState state, @Nullable Object reply) {
			List<Object> v = ScriptReplies.list(reply);
			String stopScore = ScriptReplies.asString(v.get(1));
			Place stop = stopScore.isEmpty() ? null
					: new Place(Long.parseLong(stopScore), ScriptReplies.asString(v.get(2)));
			List<Listed> jobs = new ArrayList<>((v.size() - 4) / 12);
			for (int i = 4; i + 11 < v.size(); i += 12) {
				String jobKey = ScriptReplies.asString(v.get(i));
				JobInfo job = ScriptReplies.jobInfo(topic, jobKey.substring(topic.length() + 1), state, v, i + 1);
				jobs.add(new Listed(new Place(time(state, job).toEpochMilli(), jobKey), job,
						ScriptReplies.asLong(v.get(i + 11))));
			}
			return new Read(stop, ScriptReplies.asLong(v.get(3)), jobs);
		}

	}

}
