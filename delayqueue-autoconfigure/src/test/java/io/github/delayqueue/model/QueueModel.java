package io.github.delayqueue.model;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringSchedule;

/**
 * A plain Java model of a delay queue namespace: per bucket the job records, the ready lists
 * entry by entry (tombstones included), one per topic and priority, the fencing token counter;
 * the delay, reserved and dead indexes follow from the records, and the sentinel that heads a
 * topic's first list from its lists of other priorities ({@link Ready#sentinel}). Every method
 * is one engine script call (or the engine's documented sequence of them) and says what the
 * call must answer and leave.
 *
 * <p>
 * Times come from Redis's clock, which the model does not run: each script call's "now" is a
 * {@link Moment} known to lie between two readings of Redis's {@code TIME} taken around the
 * call, and learned exactly from the first reply that shows it. The model needs exact times
 * only where they order jobs (due times and deadlines of promoted jobs, times of death), and
 * the driver makes sure it has them there.
 *
 * <p>
 * Recurring jobs are modelled just enough to say which occurrences they create: which
 * definitions exist (each in its bucket), their spec, whether paused, their next tick, the last
 * tick a firing scheduled, and what {@code RecurringJobInfo} shows of them (fired, skipped,
 * misfired, last occurrence). A firing's plan follows the misfire policy (FIRE_ONCE, SKIP,
 * FIRE_ALL with the max catch-up), the overlap policy and the fixed delay, worked out for one
 * exact now ({@link #plan}). An occurrence is an ordinary job, created like a schedule with
 * {@link OnDuplicate#KEEP}.
 */
final class QueueModel {

	/** The priority of a job that names none: its READY jobs are in the topic's first list. */
	static final int DEFAULT_PRIORITY = JobConstraints.DEFAULT_PRIORITY;

	/** Tombstones one take may skip beyond the jobs it wants (TAKE_SLACK in lib/plan_take.lua). */
	static final int TAKE_SLACK = 1000;

	/** Tombstones of a ready list from which a guard re-check compacts it (promote.lua). */
	static final int COMPACT_AT = 1000;

	/** The ready-list entries one guard re-check's compactions read in all (promote.lua). */
	static final int COMPACT_WINDOW = 10_000;

	static final Comparator<String> KEY_ORDER = (a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
			b.getBytes(StandardCharsets.UTF_8));

	final int buckets;

	final int batchSize;

	final long defaultTtr;

	final int defaultMaxAttempts;

	final Bucket[] bucket;

	/**
	 * The topics that keep their finished jobs, with payloads and no limit that a run reaches
	 * (the trimming is tested on its own).
	 */
	static final Set<String> RETAINED = Set.of("orders");

	/** The finished jobs kept, by job key: each as it finished, in state 'C'. */
	final Map<String, Job> completed = new HashMap<>();

	/**
	 * The topics that limit their DEAD jobs ({@code Retention#lastFailed}), with the limit: a
	 * small one, so that runs trim often. (Age limits are tested on their own: they depend on
	 * the clock, which the model does not run.)
	 */
	static final Map<String, Integer> FAILED_LIMITS = Map.of("mail.v2", 3);

	/** Entries one failed.lua call names at most beyond the deaths it adds (Retention.TRIM_SLACK). */
	static final int TRIM_SLACK = 100;

	/** Deaths one failed.lua call adds at most (RetainedJobs.BATCH). */
	static final int DEATH_BATCH = 1_000;

	/**
	 * The deaths listed of each topic with a limit, oldest first, as failed.lua keeps them: a
	 * job key and the death it names. Every script call of a run comes after the last one
	 * ended, by Redis's clock, so each call's deaths are later than all before (and those of
	 * one promotion share its time, in job key order).
	 */
	final Map<String, List<Death>> deaths = new HashMap<>();

	/** Deaths so far: each death's number, so that an entry knows whether it names the job's latest. */
	private long deathCount;

	/** DEAD jobs deleted under a topic's limit. */
	long deadTrimmed;

	/** The recurring definitions, by name. */
	final Map<String, Definition> definitions = new TreeMap<>();

	QueueModel(int buckets, int batchSize, long defaultTtr, int defaultMaxAttempts) {
		this.buckets = buckets;
		this.batchSize = batchSize;
		this.defaultTtr = defaultTtr;
		this.defaultMaxAttempts = defaultMaxAttempts;
		this.bucket = new Bucket[buckets];
		for (int b = 0; b < buckets; b++) {
			this.bucket[b] = new Bucket(b);
		}
	}

	static String key(String topic, String id) {
		return topic + ":" + id;
	}

	Job find(int b, String key) {
		return this.bucket[b].jobs.get(key);
	}

	int size() {
		int n = 0;
		for (Bucket b : this.bucket) {
			n += b.jobs.size();
		}
		return n;
	}

	/** Counts of a topic's jobs by state: D, R, S, X. */
	long[] counts(String topic) {
		long[] counts = new long[4];
		for (Bucket b : this.bucket) {
			for (Job job : b.jobs.values()) {
				if (job.topic.equals(topic)) {
					counts["DRSX".indexOf(job.state)]++;
				}
			}
		}
		return counts;
	}

	// ------------------------------------------------------------------ schedule

	/**
	 * What schedule.lua answers for one job.
	 */
	record Scheduled(boolean created, char state, Time due) {
	}

	/**
	 * One schedule script call: the jobs of one bucket, at most a batch of them.
	 */
	List<Scheduled> schedule(int b, List<ScheduleRequest> requests, Moment now) {
		Bucket bucket = this.bucket[b];
		Map<String, Job> existing = new HashMap<>();
		for (ScheduleRequest request : requests) {
			String key = key(request.topic(), request.id());
			Job job = bucket.jobs.get(key);
			if (job != null) {
				existing.put(key, job);
			}
		}
		Map<String, Job> current = new HashMap<>();
		List<String> order = new ArrayList<>();
		List<Job> replaced = new ArrayList<>();
		List<Scheduled> results = new ArrayList<>();
		for (ScheduleRequest request : requests) {
			String key = key(request.topic(), request.id());
			Job mine = current.get(key);
			Job old = existing.get(key);
			boolean replace = request.onDuplicate() == OnDuplicate.REPLACE;
			if ((mine != null || old != null) && !replace) {
				Job kept = (mine != null) ? mine : old;
				results.add(new Scheduled(false, kept.state, kept.due));
				continue;
			}
			if (mine == null && old != null) {
				replaced.add(old);
				existing.remove(key);
			}
			if (mine == null) {
				order.add(key);
			}
			Time due;
			char state;
			if (request.delay() != null) {
				long delay = request.delay().toMillis();
				due = new Time(now, delay);
				state = (delay <= 0) ? 'R' : 'D';
			}
			else {
				long at = request.dueAt().toEpochMilli();
				due = Time.at(at);
				if (at <= now.lo()) {
					state = 'R';
				}
				else if (at > now.hi()) {
					state = 'D';
				}
				else {
					throw new ModelError("the due time " + at + " of " + key + " is within the call's time "
							+ now + ": the generator must not ask that");
				}
			}
			long ttr = (request.ttr() != null) ? request.ttr().toMillis() : this.defaultTtr;
			int max = (request.maxAttempts() != null) ? request.maxAttempts() : this.defaultMaxAttempts;
			Job job = new Job(request.topic(), request.id(), request.payload(), request.headers(), ttr,
					new Time(now, 0), request.effectivePriority());
			job.state = state;
			job.max = max;
			job.due = due;
			current.put(key, job);
			results.add(new Scheduled(true, state, due));
		}
		// writes
		for (Job old : replaced) {
			bucket.jobs.remove(old.key);
		}
		for (String key : order) {
			Job job = current.get(key);
			bucket.jobs.put(key, job);
			if (job.state == 'R') {
				bucket.push(job);
			}
		}
		return results;
	}

	// ------------------------------------------------------------------ cancel, reschedule

	boolean cancel(int b, String key) {
		return this.bucket[b].jobs.remove(key) != null;
	}

	/** reschedule.lua: 1 rescheduled, 0 not found, -1 not waiting. */
	int reschedule(int b, String key, Long delay, Long at, Moment now) {
		Bucket bucket = this.bucket[b];
		Job job = bucket.jobs.get(key);
		if (job == null) {
			return 0;
		}
		if (job.state != 'D' && job.state != 'R') {
			return -1;
		}
		if (delay != null) {
			job.due = new Time(now, delay);
			job.state = (delay <= 0) ? 'R' : 'D';
		}
		else {
			job.due = Time.at(at);
			if (at <= now.lo()) {
				job.state = 'R';
			}
			else if (at > now.hi()) {
				job.state = 'D';
			}
			else {
				throw new ModelError("reschedule of " + key + " to " + at + " within the call's time " + now);
			}
		}
		if (job.state == 'R') {
			bucket.push(job);
		}
		return 1;
	}

	// ------------------------------------------------------------------ reserve, finish

	/**
	 * What lib/plan_take.lua would take from a topic's ready lists: the jobs, how many entries
	 * it looks at in all and in the list of each priority, and how many of those are entries of
	 * a READY job in a list of another priority than the job's.
	 */
	record Take(int bucket, String topic, List<Job> jobs, int scanned, int[] scannedByPriority, int otherPriority) {

		/** How many of the topic's lists the take looks at. */
		int lists() {
			return (int) Arrays.stream(this.scannedByPriority).filter((n) -> n > 0).count();
		}

	}

	/**
	 * plan_take: the lists from the highest priority to the lowest (9 to 6, the default 5, 4 to
	 * 0), each from its head, up to max jobs and max + {@link #TAKE_SLACK} entries looked at in
	 * all. An entry is a job only when its record is READY, of the list's priority, and not
	 * taken already by this take.
	 */
	Take planTake(int b, String topic, int max) {
		Bucket bucket = this.bucket[b];
		Ready ready = bucket.ready.get(topic);
		List<Job> jobs = new ArrayList<>();
		int[] scannedByPriority = new int[JobConstraints.MAX_PRIORITY + 1];
		int scanned = 0;
		int otherPriority = 0;
		if (ready != null) {
			Set<String> seen = new HashSet<>();
			long limit = (long) max + TAKE_SLACK;
			for (int p = JobConstraints.MAX_PRIORITY; p >= JobConstraints.MIN_PRIORITY; p--) {
				Iterator<String> entries = ready.list(p).iterator();
				while (jobs.size() < max && scanned < limit && entries.hasNext()) {
					String key = entries.next();
					scanned++;
					scannedByPriority[p]++;
					Job job = bucket.jobs.get(key);
					if (live(job, p, seen)) {
						jobs.add(job);
					}
					else if (job != null && job.state == 'R' && job.priority != p) {
						otherPriority++;
					}
				}
			}
		}
		return new Take(b, topic, jobs, scanned, scannedByPriority, otherPriority);
	}

	/**
	 * Whether an entry of the list of priority p is a job (lib/live_entry.lua): READY, of
	 * that priority, and not seen before (seen then holds it); else it is a tombstone.
	 */
	static boolean live(Job job, int p, Set<String> seen) {
		return job != null && job.state == 'R' && job.priority == p && seen.add(job.key);
	}

	/**
	 * The fencing token of a reservation (lib/token.lua): the run's one instance is the first
	 * numbered in its namespace, so its number is 1.
	 */
	static long token(long seq) {
		return 1_000_000_000_000_000L + (seq % 800_000_000_000L) * 10_000 + 1;
	}

	/**
	 * Applies a take (lib/apply_take.lua): the scanned entries leave the head of each list,
	 * the jobs are RESERVED under consecutive tokens.
	 */
	void applyTake(Take take, long ttrOverride, int maxOverride, Moment now) {
		Bucket bucket = this.bucket[take.bucket()];
		Ready ready = bucket.ready(take.topic());
		for (int p = 0; p < take.scannedByPriority().length; p++) {
			ArrayDeque<String> list = ready.list(p);
			for (int i = 0; i < take.scannedByPriority()[p]; i++) {
				list.removeFirst();
			}
		}
		for (Job job : take.jobs()) {
			bucket.seq++;
			job.state = 'S';
			job.attempt++;
			job.token = token(bucket.seq);
			if (maxOverride > 0) {
				job.max = maxOverride;
			}
			job.reservationTtr = (ttrOverride > 0) ? ttrOverride : job.ttr;
			job.deadline = new Time(now, job.reservationTtr);
		}
	}

	/** The refusal of a held-job script: 0 no job, -1 not this reservation, 1 held. */
	int held(int b, String key, long token) {
		Job job = this.bucket[b].jobs.get(key);
		if (job == null) {
			return 0;
		}
		return (job.state == 'S' && job.token == token) ? 1 : -1;
	}

	/**
	 * The finishing half of one finish script call; returns per job 1, 0 or -1.
	 */
	List<Integer> finish(int b, List<String> keys, List<Long> tokens) {
		Bucket bucket = this.bucket[b];
		List<Integer> replies = new ArrayList<>();
		Set<String> done = new HashSet<>();
		for (int i = 0; i < keys.size(); i++) {
			String key = keys.get(i);
			int reply = done.contains(key) ? 0 : held(b, key, tokens.get(i));
			if (reply == 1) {
				done.add(key);
			}
			replies.add(reply);
		}
		for (String key : done) {
			Job job = bucket.jobs.remove(key);
			if (RETAINED.contains(job.topic)) {
				// as it is kept: its record's attempt, attempts limit and ttr, no error
				job.state = 'C';
				job.error = null;
				job.deadline = null;
				this.completed.put(key, job);
			}
		}
		return replies;
	}

	// ------------------------------------------------------------------ fail, touch, release

	/** fail.lua: 1 retrying, 2 dead, 0 no job, -1 stale. */
	int fail(int b, String key, long token, long backOff, String error, Moment now) {
		int held = held(b, key, token);
		if (held != 1) {
			return held;
		}
		Job job = this.bucket[b].jobs.get(key);
		job.error = error;
		job.deadline = null;
		if (backOff < 0 || job.attempt >= job.max) {
			job.state = 'X';
			job.died = new Time(now, 0);
			died(job.topic, List.of(job));
			return 2;
		}
		job.due = new Time(now, backOff);
		if (backOff == 0) {
			job.state = 'R';
			this.bucket[b].push(job);
		}
		else {
			job.state = 'D';
		}
		return 1;
	}

	/** touch.lua: the new deadline, or null when not held. */
	Time touch(int b, String key, long token, long ttr, Moment now) {
		if (held(b, key, token) != 1) {
			return null;
		}
		Job job = this.bucket[b].jobs.get(key);
		job.deadline = new Time(now, ttr);
		return job.deadline;
	}

	/**
	 * release.lua: the jobs of one bucket held under their tokens (each once) are READY again,
	 * at the front of their priority's list (after the sentinel) in the order given.
	 * @return how many were released
	 */
	int release(int b, List<Map.Entry<String, Long>> given) {
		List<Job> released = new ArrayList<>();
		for (Map.Entry<String, Long> entry : given) {
			Job job = this.bucket[b].jobs.get(entry.getKey());
			if (held(b, entry.getKey(), entry.getValue()) == 1 && !released.contains(job)) {
				released.add(job);
			}
		}
		for (int i = released.size() - 1; i >= 0; i--) {
			Job job = released.get(i);
			job.state = 'R';
			job.attempt--;
			job.token = 0;
			job.deadline = null;
			this.bucket[b].ready(job.topic).list(job.priority).addFirst(job.key);
		}
		return released.size();
	}

	// ------------------------------------------------------------------ dead jobs

	/**
	 * Jobs of a topic died in one script call (in the order failed.lua gets them): when the
	 * topic limits its DEAD jobs, their deaths are listed (failed.lua 'add', a batch at a
	 * time), the oldest entries beyond the limit named, the named jobs deleted where they are
	 * DEAD by the death named (trimdead.lua 'drop'), and the entries removed ('remove').
	 */
	private void died(String topic, List<Job> jobs) {
		Integer limit = FAILED_LIMITS.get(topic);
		for (Job job : jobs) {
			job.death = ++this.deathCount;
		}
		if (limit == null) {
			return;
		}
		List<Death> listed = this.deaths.computeIfAbsent(topic, (t) -> new ArrayList<>());
		for (int from = 0; from < jobs.size(); from += DEATH_BATCH) {
			List<Job> batch = jobs.subList(from, Math.min(jobs.size(), from + DEATH_BATCH));
			for (Job job : batch) {
				listed.removeIf((death) -> death.key().equals(job.key));
				listed.add(new Death(job.key, job.death));
			}
			int named = Math.min(Math.max(0, listed.size() - limit), batch.size() + TRIM_SLACK);
			List<Death> drop = new ArrayList<>(listed.subList(0, named));
			listed.subList(0, named).clear();
			for (Death death : drop) {
				for (Bucket bucket : this.bucket) {
					Job dead = bucket.jobs.get(death.key());
					if (dead != null && dead.state == 'X' && dead.death == death.number()) {
						bucket.jobs.remove(death.key());
						this.deadTrimmed++;
					}
				}
			}
		}
	}

	/** An entry of a topic's deaths: a job key and the number of the death it names. */
	record Death(String key, long number) {
	}

	/** The DEAD jobs of a topic in one bucket, in the dead list's order. */
	List<Job> dead(int b, String topic) {
		List<Job> dead = new ArrayList<>();
		for (Job job : this.bucket[b].jobs.values()) {
			if (job.state == 'X' && job.topic.equals(topic)) {
				dead.add(job);
			}
		}
		dead.sort(order((job) -> job.died.exactly("the time of death of " + job.key)));
		return dead;
	}

	/** The DEAD jobs of a topic in all buckets, in the order of a page. */
	List<Job> dead(String topic) {
		List<Job> dead = new ArrayList<>();
		for (int b = 0; b < this.buckets; b++) {
			dead.addAll(dead(b, topic));
		}
		dead.sort(order((job) -> job.died.exactly("the time of death of " + job.key)));
		return dead;
	}

	/**
	 * One replay script call: {replayed, dead entries left}.
	 */
	int[] replay(int b, String topic, int max, String onlyKey, Moment now) {
		List<Job> dead = dead(b, topic);
		List<Job> chosen;
		if (onlyKey != null) {
			chosen = dead.stream().filter((job) -> job.key.equals(onlyKey)).toList();
		}
		else {
			chosen = dead.subList(0, Math.min(max, dead.size()));
		}
		for (Job job : chosen) {
			job.state = 'R';
			job.attempt = 0;
			job.replayed = true;
			job.token = 0;
			job.due = new Time(now, 0);
			job.died = null;
			this.bucket[b].push(job);
		}
		return new int[] { chosen.size(), dead.size() - chosen.size() };
	}

	// ------------------------------------------------------------------ promote

	/**
	 * What promote.lua must do and answer.
	 */
	record Promoted(int moved, int expired, long nextDue, Set<String> topics, Set<String> announced, int dead,
			int compactions, int partialCompactions, Map<String, List<Job>> reserved) {
	}

	/**
	 * A waiting consumer's offer to a step: the most jobs, the reservation's ttr (0: each job's
	 * own) and the attempts limit stored (0: each job's own).
	 */
	record Offer(String topic, int max, long ttr, int maxAttempts) {
	}

	Promoted promote(int b, long now, boolean guard, List<String> tombstoneTopics) {
		return promote(b, now, guard, tombstoneTopics, List.of());
	}

	/**
	 * One promote.lua call at time now.
	 * @param tombstoneTopics on a guard re-check, the topics of the fields {@code T:<topic>} of
	 * the bucket's stats hash in the order Redis reads them (the compactions share one window in
	 * that order; the model does not know a hash's order)
	 */
	Promoted promote(int b, long now, boolean guard, List<String> tombstoneTopics, List<Offer> offers) {
		Bucket bucket = this.bucket[b];
		List<Job> delayed = new ArrayList<>();
		List<Job> reserved = new ArrayList<>();
		for (Job job : bucket.jobs.values()) {
			if (job.state == 'D' && isDue(job.due, now, job)) {
				delayed.add(job);
			}
			else if (job.state == 'S' && isDue(job.deadline, now, job)) {
				reserved.add(job);
			}
		}
		delayed.sort(order((job) -> job.due.exactly("the due time of " + job.key)));
		List<Job> due = delayed.subList(0, Math.min(this.batchSize, delayed.size()));
		List<Job> expired = List.of();
		if (due.size() < this.batchSize) {
			reserved.sort(order((job) -> job.deadline.exactly("the deadline of " + job.key)));
			expired = reserved.subList(0, Math.min(this.batchSize - due.size(), reserved.size()));
		}
		// the offers a step (no guard re-check) serves: every due job of the topic fits, its ready
		// lists are empty, and none of its reservations runs out in this step; the jobs the
		// highest priority first, then in due order
		Map<String, List<Job>> reservedFor = new LinkedHashMap<>();
		Map<String, Offer> served = new HashMap<>();
		if (!guard) {
			Set<String> expiring = new HashSet<>();
			expired.forEach((job) -> expiring.add(job.topic));
			for (Offer offer : offers) {
				List<Job> of = new ArrayList<>(due.stream().filter((job) -> job.topic.equals(offer.topic())).toList());
				Ready ready = bucket.ready.get(offer.topic());
				if (!of.isEmpty() && of.size() <= offer.max() && !expiring.contains(offer.topic())
						&& (ready == null || ready.entries() == 0)) {
					of.sort(Comparator.comparingInt((Job job) -> job.priority).reversed());
					reservedFor.put(offer.topic(), of);
					served.put(offer.topic(), offer);
				}
			}
		}
		// reads of a guard re-check: the topics to re-announce, and the ready lists to compact:
		// of each topic whose tombstones are many and outnumber its READY jobs, every list with
		// entries (and the first list), the highest priority first, COMPACT_WINDOW entries at
		// most in all
		List<Compaction> compactions = new ArrayList<>();
		Set<String> announced = new HashSet<>();
		if (guard) {
			bucket.ready.forEach((topic, ready) -> {
				if (ready.entries() > 0) {
					announced.add(topic);
				}
			});
			int budget = COMPACT_WINDOW;
			for (String topic : tombstoneTopics) {
				Ready ready = bucket.ready.get(topic);
				if (budget <= 0 || ready == null) {
					continue;
				}
				long live = bucket.jobs.values().stream().filter((j) -> j.state == 'R' && j.topic.equals(topic)).count();
				long tombstones = ready.entries() - live;
				if (tombstones < COMPACT_AT || tombstones <= live) {
					continue;
				}
				for (int p = JobConstraints.MAX_PRIORITY; p >= JobConstraints.MIN_PRIORITY && budget > 0; p--) {
					ArrayDeque<String> list = ready.list(p);
					if (list.isEmpty() && p != DEFAULT_PRIORITY) {
						// (a list that the sentinel does not name)
						continue;
					}
					int window = Math.min(budget, list.size());
					budget -= window;
					List<String> keep = new ArrayList<>();
					Set<String> seen = new HashSet<>();
					Iterator<String> entries = list.iterator();
					for (int i = 0; i < window; i++) {
						String key = entries.next();
						if (live(bucket.jobs.get(key), p, seen)) {
							keep.add(key);
						}
					}
					compactions.add(new Compaction(topic, p, window, keep, window == list.size()));
				}
			}
		}
		// writes: the compactions first (the window leaves the head of the list; the live
		// entries go back to the head when it was the whole list, else to the tail), then the
		// jobs made READY, each at the tail of its priority's list
		for (Compaction compaction : compactions) {
			ArrayDeque<String> list = bucket.list(compaction.topic(), compaction.priority());
			for (int i = 0; i < compaction.window(); i++) {
				list.removeFirst();
			}
			if (compaction.whole()) {
				for (int i = compaction.keep().size() - 1; i >= 0; i--) {
					list.addFirst(compaction.keep().get(i));
				}
			}
			else {
				list.addAll(compaction.keep());
			}
		}
		Set<String> topics = new LinkedHashSet<>();
		for (Job job : due) {
			if (reservedFor.containsKey(job.topic)) {
				continue;
			}
			job.state = 'R';
			bucket.push(job);
			topics.add(job.topic);
		}
		int dead = 0;
		Map<String, List<Job>> deadByTopic = new TreeMap<>();
		for (Job job : expired) {
			job.due = job.deadline;
			job.deadline = null;
			if (job.attempt >= job.max) {
				job.state = 'X';
				job.died = Time.at(now);
				// as promote.lua writes it (RedisDelayQueueExpiryErrorTests)
				job.error = "the reservation ran out (TTR) on attempt " + job.attempt + " of " + job.max;
				dead++;
				deadByTopic.computeIfAbsent(job.topic, (topic) -> new ArrayList<>()).add(job);
			}
			else {
				job.state = 'R';
				bucket.push(job);
				topics.add(job.topic);
			}
		}
		// the timer lists the deaths of each topic (trimdead.lua 'at': in job key order)
		deadByTopic.forEach((topic, jobs) -> {
			jobs.sort((x, y) -> KEY_ORDER.compare(x.key, y.key));
			died(topic, jobs);
		});
		// the jobs reserved for offers (after the expired reservations), one token sequence per
		// topic in the offers' order
		reservedFor.forEach((topic, jobs) -> {
			Offer offer = served.get(topic);
			for (Job job : jobs) {
				bucket.seq++;
				job.state = 'S';
				job.attempt++;
				job.token = token(bucket.seq);
				if (offer.maxAttempts() > 0) {
					job.max = offer.maxAttempts();
				}
				job.reservationTtr = (offer.ttr() > 0) ? offer.ttr() : job.ttr;
				job.deadline = Time.at(now + job.reservationTtr);
			}
		});
		announced.removeAll(topics);
		return new Promoted(due.size(), expired.size(), nextDue(b), topics, announced, dead, compactions.size(),
				(int) compactions.stream().filter((c) -> !c.whole()).count(), reservedFor);
	}

	/** A compaction of one ready list: the topic, the list's priority, its window. */
	private record Compaction(String topic, int priority, int window, List<String> keep, boolean whole) {
	}

	private static boolean isDue(Time time, long now, Job job) {
		if (time.hi() <= now) {
			return true;
		}
		if (time.lo() > now) {
			return false;
		}
		throw new ModelError("whether " + job.key + " is due at " + now + " is not known: " + time);
	}

	/**
	 * The earliest due time of a DELAYED job or deadline of a RESERVED one in a bucket, -1 for
	 * none; {@link Long#MIN_VALUE} when it is not known exactly.
	 */
	long nextDue(int b) {
		long next = Long.MAX_VALUE;
		boolean exact = true;
		for (Job job : this.bucket[b].jobs.values()) {
			Time time = (job.state == 'D') ? job.due : (job.state == 'S') ? job.deadline : null;
			if (time != null && time.lo() < next) {
				next = time.lo();
				exact = time.isExact();
			}
		}
		if (next == Long.MAX_VALUE) {
			return -1;
		}
		return exact ? next : Long.MIN_VALUE;
	}

	/** The earliest due time of a DELAYED job of a bucket, -1 for none, MIN_VALUE unknown. */
	long earliestDelayed(int b) {
		long next = Long.MAX_VALUE;
		boolean exact = true;
		for (Job job : this.bucket[b].jobs.values()) {
			if (job.state == 'D' && job.due.lo() < next) {
				next = job.due.lo();
				exact = job.due.isExact();
			}
		}
		if (next == Long.MAX_VALUE) {
			return -1;
		}
		return exact ? next : Long.MIN_VALUE;
	}

	/**
	 * The latest due time or deadline that is set but not far ahead: what a promotion must
	 * wait for so that the short ones are all due and no far one is.
	 */
	long latestShortTime(long horizon) {
		long latest = Long.MIN_VALUE;
		for (Bucket b : this.bucket) {
			for (Job job : b.jobs.values()) {
				Time time = (job.state == 'D') ? job.due : (job.state == 'S') ? job.deadline : null;
				if (time != null && time.hi() < horizon) {
					latest = Math.max(latest, time.hi());
				}
			}
		}
		return latest;
	}

	static Comparator<Job> order(ToLongFunction<Job> time) {
		return Comparator.comparingLong(time).thenComparing((job) -> job.key, KEY_ORDER);
	}

	// ------------------------------------------------------------------ recurring jobs

	/**
	 * recurring.lua put: a new or changed spec takes the bucket's next token number as its gen
	 * and forgets the last scheduled tick; its next tick is the schedule's first after now,
	 * unless it is paused or its current next tick has come (that one stays).
	 */
	PutResult putRecurring(int b, RecurringJob job, String spec, Moment now) {
		Definition d = this.definitions.get(job.getName());
		if (d != null && d.spec.equals(spec)) {
			return PutResult.UNCHANGED;
		}
		PutResult result = (d != null) ? PutResult.UPDATED : PutResult.CREATED;
		if (d == null) {
			d = new Definition(job.getName(), b);
			this.definitions.put(d.name, d);
		}
		this.bucket[b].seq++;
		d.version++;
		d.job = job;
		d.spec = spec;
		// the changed schedule starts afresh (recurring.lua put)
		d.lastScheduled = -1;
		if (!d.paused) {
			long current = d.nextTick();
			Set<Long> next = new TreeSet<>();
			if (current >= 0 && current <= now.hi()) {
				next.add(current);
			}
			if (current < 0 || current > now.lo()) {
				next.addAll(d.ticksAfter(now));
			}
			d.nextTicks = next;
		}
		return result;
	}

	/** recurring.lua pause: false for no such definition. */
	boolean pauseRecurring(String name) {
		Definition d = this.definitions.get(name);
		if (d == null) {
			return false;
		}
		d.paused = true;
		d.nextTicks = new TreeSet<>(Set.of(-1L));
		return true;
	}

	/** recurring.lua resume: a paused one goes on from the schedule's first tick after now. */
	boolean resumeRecurring(String name, Moment now) {
		Definition d = this.definitions.get(name);
		if (d == null) {
			return false;
		}
		if (d.paused) {
			d.paused = false;
			d.nextTicks = d.ticksAfter(now);
		}
		return true;
	}

	/** recurring.lua delete: its occurrences stay. */
	boolean deleteRecurring(String name) {
		return this.definitions.remove(name) != null;
	}

	/**
	 * recurring.lua trigger: an occurrence due now, unless a job with its key exists. It becomes
	 * the definition's last occurrence (the one overlap and a fixed delay watch) only when the
	 * last one left the queue, and never for a fixed delay.
	 * @return the occurrence created, or null when one with its key was kept
	 */
	Job triggerRecurring(Definition d, String id, Moment now) {
		Time at = new Time(now, 0);
		String last = lastState(d);
		Job made = createOccurrence(d, id, at, at, 'R');
		if (made != null) {
			d.fired++;
			if (d.job.getSchedule().getDelay() == null && (last.isEmpty() || last.equals("X"))) {
				d.lastTick = at;
				d.lastKey = made.key;
			}
		}
		return made;
	}

	/** The state letter of a definition's last occurrence, "" when it is gone or there is none. */
	String lastState(Definition d) {
		Job last = d.lastKey.isEmpty() ? null : this.bucket[d.bucket].jobs.get(d.lastKey);
		return (last != null) ? String.valueOf(last.state) : "";
	}

	/** The most occurrences one firing creates (RedisRecurringJobs.MAX_OCCURRENCES). */
	static final int MAX_OCCURRENCES = 1_000;

	/** How often a fixed delay looks whether its occurrence left, at most. */
	static final long FIXED_DELAY_LOOK = 1_000;

	/**
	 * A time of a firing's plan: a fixed one, or an offset from the now the firing read its due
	 * definitions at.
	 */
	record At(long value, boolean relative) {

		static At abs(long value) {
			return new At(value, false);
		}

		static At rel(long offset) {
			return new At(offset, true);
		}

		long at(long now) {
			return this.relative ? now + this.value : this.value;
		}

		Time time(Moment now) {
			return this.relative ? new Time(now, this.value) : Time.at(this.value);
		}

		long exactly(Moment now, String what) {
			return this.relative ? time(now).exactly(what) : this.value;
		}

		/** Every value it may have. */
		Set<Long> values(Moment now) {
			Set<Long> values = new TreeSet<>();
			if (!this.relative) {
				values.add(this.value);
				return values;
			}
			if (now.hi() - now.lo() > 100_000) {
				throw new ModelError("a firing's now is not known within 100 s: " + now);
			}
			for (long n = now.lo(); n <= now.hi(); n++) {
				values.add(n + this.value);
			}
			return values;
		}

		@Override
		public String toString() {
			return this.relative ? "now+" + this.value : String.valueOf(this.value);
		}

	}

	/** One occurrence of a plan: the tick its id names, its due time, the tick it is recorded as. */
	record Occurrence(At idTick, At due, At tick) {
	}

	/**
	 * What a firing does with one definition whose tick came (RedisRecurringJobs.plan and the fire
	 * op of recurring.lua): 'f' fire its occurrences, 'k' skip them all (overlap: its last
	 * occurrence is still in the queue), 'l' a fixed delay only looks again later.
	 */
	record Plan(char result, At nextTick, long skipped, long misfired, List<Occurrence> occurrences) {
	}

	/**
	 * The plan of a definition for a firing that reads its due definitions at now; null when it
	 * is not due then (paused, no tick, or its tick has not come).
	 */
	Plan plan(Definition d, long now) {
		if (d.paused) {
			return null;
		}
		long tick = d.nextTick();
		if (tick < 0 || tick > now) {
			return null;
		}
		RecurringJob job = d.job;
		RecurringSchedule schedule = job.getSchedule();
		String last = lastState(d);
		boolean inQueue = !last.isEmpty() && !last.equals("X");
		if (schedule.getDelay() != null) {
			long delay = schedule.getDelay().toMillis();
			if (inQueue) {
				return new Plan('l', At.rel(Math.min(delay, FIXED_DELAY_LOOK)), 0, 0, List.of());
			}
			At due = At.rel(delay);
			return new Plan('f', due, 0, 0, List.of(new Occurrence(due, due, due)));
		}
		Instant next = schedule.next(Instant.ofEpochMilli(now));
		At nextTick = At.abs((next != null) ? next.toEpochMilli() : -1);
		// every tick from the definition's next one up to now, counted one by one
		long lateBefore = now - job.getMisfireThreshold().toMillis();
		int cap = Math.max(1, Math.min(job.getMaxCatchUp(), MAX_OCCURRENCES));
		ArrayDeque<Long> recent = new ArrayDeque<>();
		long total = 0;
		long late = 0;
		for (long t = tick; t >= 0 && t <= now;) {
			if (++total > 10_000_000) {
				throw new ModelError("recurring job " + d.name + " has too many ticks from " + tick + " to " + now);
			}
			if (t < lateBefore) {
				late++;
			}
			if (recent.size() == cap) {
				recent.removeFirst();
			}
			recent.addLast(t);
			Instant following = schedule.next(Instant.ofEpochMilli(t));
			t = (following != null) ? following.toEpochMilli() : -1;
		}
		List<Occurrence> occurrences = new ArrayList<>();
		if (late == 0 || job.getMisfirePolicy() == MisfirePolicy.FIRE_ALL) {
			recent.forEach((t) -> occurrences.add(new Occurrence(At.abs(t), At.abs(t), At.abs(t))));
		}
		else if (job.getMisfirePolicy() == MisfirePolicy.FIRE_ONCE) {
			occurrences.add(new Occurrence(At.abs(tick), At.rel(0), At.abs(recent.getLast())));
		}
		else {
			// SKIP: the late ticks create nothing
			recent.stream()
				.filter((t) -> t >= lateBefore)
				.forEach((t) -> occurrences.add(new Occurrence(At.abs(t), At.abs(t), At.abs(t))));
		}
		boolean overlap = job.getOverlapPolicy() == OverlapPolicy.SKIP;
		if (overlap && occurrences.size() > 1) {
			occurrences.subList(0, occurrences.size() - 1).clear();
		}
		long skipped = total - occurrences.size();
		return new Plan((overlap && inQueue) ? 'k' : 'f', nextTick, skipped, late, List.copyOf(occurrences));
	}

	/**
	 * What a plan leaves of a definition's counters, without doing it: {fired, skipped,
	 * misfired}. An occurrence whose id is an offset from now is taken to be new.
	 */
	long[] predict(Definition d, Plan plan, long now, java.util.function.LongFunction<String> keyOfTick) {
		if (plan == null) {
			return new long[] { d.fired, d.skipped, d.misfired };
		}
		if (plan.result() == 'l') {
			return new long[] { d.fired, d.skipped, d.misfired };
		}
		if (plan.result() == 'k') {
			return new long[] { d.fired, d.skipped + plan.skipped() + plan.occurrences().size(),
					d.misfired + plan.misfired() };
		}
		long created = 0;
		long misses = plan.skipped();
		long after = d.lastScheduled;
		for (Occurrence o : plan.occurrences()) {
			long tick = o.tick().at(now);
			if (tick <= after) {
				misses++;
				continue;
			}
			boolean exists = !o.idTick().relative()
					&& this.bucket[d.bucket].jobs.containsKey(keyOfTick.apply(o.idTick().value()));
			if (exists) {
				misses++;
			}
			else {
				created++;
			}
			after = Math.max(after, tick);
		}
		return new long[] { d.fired + created, d.skipped + misses, d.misfired + plan.misfired() };
	}

	/**
	 * Does a plan (the fire op of recurring.lua): occurrences whose tick is not after the last
	 * scheduled one, or whose key exists, are missed; each one created is the last.
	 * @param dueNow the now the firing read its due definitions at (due times of late ones)
	 * @param fireNow the now of the script call that creates them
	 * @return the occurrences created
	 */
	List<Job> fire(Definition d, Plan plan, Moment dueNow, Moment fireNow,
			java.util.function.LongFunction<String> idOfTick) {
		List<Job> made = new ArrayList<>();
		if (plan.result() == 'k') {
			d.skipped += plan.skipped() + plan.occurrences().size();
			d.misfired += plan.misfired();
		}
		else if (plan.result() == 'f') {
			long misses = plan.skipped();
			for (Occurrence o : plan.occurrences()) {
				long tick = o.tick().exactly(dueNow, "the tick of an occurrence of " + d.name);
				if (tick <= d.lastScheduled) {
					misses++;
					continue;
				}
				String id = idOfTick.apply(o.idTick().exactly(dueNow, "the id tick of an occurrence of " + d.name));
				Time due = o.due().time(dueNow);
				char state = (o.due().relative() && o.due().value() > 0) ? 'D' : 'R';
				Job job = createOccurrence(d, id, due, new Time(fireNow, 0), state);
				if (job == null) {
					misses++;
				}
				else {
					made.add(job);
					d.lastTick = o.tick().time(dueNow);
					d.lastKey = job.key;
				}
				d.lastScheduled = Math.max(d.lastScheduled, tick);
			}
			d.fired += made.size();
			d.skipped += misses;
			d.misfired += plan.misfired();
		}
		d.nextTicks = plan.nextTick().values(dueNow);
		return made;
	}

	/**
	 * create in recurring.lua: an ordinary job, none when its key exists (HSETNX); READY (due by
	 * the script's now) or DELAYED (a fixed delay's).
	 */
	private Job createOccurrence(Definition d, String id, Time due, Time created, char state) {
		RecurringJob spec = d.job;
		Bucket bucket = this.bucket[d.bucket];
		String key = key(spec.getTopic(), id);
		if (bucket.jobs.containsKey(key)) {
			return null;
		}
		long ttr = (spec.getTtr() != null) ? spec.getTtr().toMillis() : this.defaultTtr;
		Job job = new Job(spec.getTopic(), id, spec.getPayload(), spec.getHeaders(), ttr, created, DEFAULT_PRIORITY);
		job.state = state;
		job.max = (spec.getMaxAttempts() != null) ? spec.getMaxAttempts() : this.defaultMaxAttempts;
		job.due = due;
		bucket.jobs.put(key, job);
		if (state == 'R') {
			// of the default priority (recurring.lua)
			bucket.push(job);
		}
		return job;
	}

	/** The definitions of a bucket, by name. */
	List<Definition> definitions(int b) {
		return this.definitions.values().stream().filter((d) -> d.bucket == b).toList();
	}

	/**
	 * A recurring definition as the model knows it.
	 */
	static final class Definition {

		final String name;

		final int bucket;

		RecurringJob job;

		/** What put compares: every field of the definition. */
		String spec;

		long version;

		boolean paused;

		long fired;

		long skipped;

		long misfired;

		/** The latest tick a firing scheduled, -1 for none. */
		long lastScheduled = -1;

		/** The tick of the last occurrence created (a trigger's now), null for none. */
		Time lastTick;

		/** The job key of the last occurrence created, "" for none. */
		String lastKey = "";

		/** What its next tick may be (-1: none), one value once learned. */
		Set<Long> nextTicks = new TreeSet<>(Set.of(-1L));

		Definition(String name, int bucket) {
			this.name = name;
			this.bucket = bucket;
		}

		/** The next tick, -1 for none. */
		long nextTick() {
			if (this.nextTicks.size() != 1) {
				throw new ModelError("the next tick of recurring job " + this.name + " is not known: " + this.nextTicks);
			}
			return this.nextTicks.iterator().next();
		}

		/** The schedule's first tick after a moment, for each time it may be. */
		Set<Long> ticksAfter(Moment now) {
			if (this.job.getSchedule().getDelay() != null) {
				// right after now
				return At.rel(1).values(now);
			}
			Set<Long> ticks = new TreeSet<>();
			for (long at : new long[] { now.lo(), now.hi() }) {
				Instant next = this.job.getSchedule().next(Instant.ofEpochMilli(at));
				ticks.add((next != null) ? next.toEpochMilli() : -1);
			}
			return ticks;
		}

		/** Learns the next tick, which must be one it may be. */
		void observeNextTick(long tick) {
			if (!this.nextTicks.contains(tick)) {
				throw new ModelDivergence("recurring job " + this.name + " has the next tick " + tick + ", the model says "
						+ this.nextTicks);
			}
			this.nextTicks = new TreeSet<>(Set.of(tick));
		}

		@Override
		public String toString() {
			return this.name + "[v" + this.version + (this.paused ? " paused" : "") + ", fired " + this.fired
					+ ", skipped " + this.skipped + ", misfired " + this.misfired + ", next " + this.nextTicks + ", last scheduled " + this.lastScheduled + ", last " + this.lastKey + "]";
		}

	}

	// ------------------------------------------------------------------ state

	/**
	 * One bucket: its jobs, ready lists and token counter.
	 */
	static final class Bucket {

		final int number;

		final Map<String, Job> jobs = new HashMap<>();

		/** The ready lists of each topic. */
		final Map<String, Ready> ready = new TreeMap<>();

		long seq;

		Bucket(int number) {
			this.number = number;
		}

		Ready ready(String topic) {
			return this.ready.computeIfAbsent(topic, (t) -> new Ready());
		}

		/** The ready list of a topic's jobs of a priority. */
		ArrayDeque<String> list(String topic, int priority) {
			return ready(topic).list(priority);
		}

		/** The entries of a topic's ready lists, every priority's (the sentinel is none). */
		int entries(String topic) {
			Ready ready = this.ready.get(topic);
			return (ready != null) ? ready.entries() : 0;
		}

		/** Appends a READY job to the list of its topic and priority (lib/push_ready.lua). */
		void push(Job job) {
			list(job.topic, job.priority).addLast(job.key);
		}

		Collection<Job> jobs() {
			return this.jobs.values();
		}

	}

	/**
	 * The ready lists of one topic in one bucket: one per priority, entry by entry, the
	 * tombstones included (lists of other priorities than the default are empty while unused).
	 */
	static final class Ready {

		private final List<ArrayDeque<String>> lists = new ArrayList<>();

		Ready() {
			for (int p = JobConstraints.MIN_PRIORITY; p <= JobConstraints.MAX_PRIORITY; p++) {
				this.lists.add(new ArrayDeque<>());
			}
		}

		/** The list of priority p. */
		ArrayDeque<String> list(int p) {
			return this.lists.get(p);
		}

		/** The entries of every list. */
		int entries() {
			return this.lists.stream().mapToInt(ArrayDeque::size).sum();
		}

		/**
		 * The sentinel that must head the first list: {@code ^} and the priorities whose lists
		 * (other than the default's) have entries, highest first; null while they have none.
		 */
		String sentinel() {
			StringBuilder text = new StringBuilder("^");
			for (int p = JobConstraints.MAX_PRIORITY; p >= JobConstraints.MIN_PRIORITY; p--) {
				if (p != DEFAULT_PRIORITY && !list(p).isEmpty()) {
					text.append(p);
				}
			}
			return (text.length() > 1) ? text.toString() : null;
		}

	}

	/**
	 * One job as the model knows it.
	 */
	static final class Job {

		final String topic;

		final String id;

		final String key;

		final byte[] payload;

		/** The headers it was scheduled with, empty for none. */
		final Map<String, String> headers;

		final long ttr;

		final Time created;

		/** Its priority, {@link #DEFAULT_PRIORITY} unless it was scheduled with another. */
		final int priority;

		char state;

		int attempt;

		int max;

		Time due;

		long token;

		/** The ttr of the current reservation. */
		long reservationTtr;

		Time deadline;

		Time died;

		/** The number of its latest death (0: it never died). */
		long death;

		/** The error kept for the job ("" kept as empty), null for none. */
		String error;

		/** Whether it was replayed: its record marks it (its attempt written after a '0'). */
		boolean replayed;

		Job(String topic, String id, byte[] payload, Map<String, String> headers, long ttr, Time created,
				int priority) {
			this.topic = topic;
			this.id = id;
			this.key = key(topic, id);
			this.payload = payload;
			this.headers = headers;
			this.ttr = ttr;
			this.created = created;
			this.priority = priority;
		}

		@Override
		public String toString() {
			return this.key + "[" + this.state + ((this.priority != DEFAULT_PRIORITY) ? " priority " + this.priority : "")
					+ " attempt " + this.attempt + "/" + this.max + (this.replayed ? " (replayed)" : "") + ", token "
					+ this.token + ", due " + this.due
					+ ((this.deadline != null) ? ", deadline " + this.deadline : "")
					+ ((this.died != null) ? ", died " + this.died : "") + "]";
		}

	}

	/**
	 * A script call's "now" by Redis's clock: between two readings until a reply shows it.
	 */
	static final class Moment {

		private long lo;

		private long hi;

		Moment(long lo, long hi) {
			this.lo = lo;
			this.hi = hi;
		}

		static Moment exact(long value) {
			return new Moment(value, value);
		}

		long lo() {
			return this.lo;
		}

		long hi() {
			return this.hi;
		}

		void observe(long value, String what) {
			if (value < this.lo || value > this.hi) {
				throw new ModelDivergence(what + " is " + value + ", outside " + this);
			}
			this.lo = value;
			this.hi = value;
		}

		/** Learns that it lies within [lo, hi], which must meet what it may be. */
		void narrow(long lo, long hi, String what) {
			if (hi < this.lo || lo > this.hi) {
				throw new ModelDivergence(what + " is within [" + lo + ".." + hi + "], outside " + this);
			}
			this.lo = Math.max(this.lo, lo);
			this.hi = Math.min(this.hi, hi);
		}

		@Override
		public String toString() {
			return (this.lo == this.hi) ? String.valueOf(this.lo) : "[" + this.lo + ".." + this.hi + "]";
		}

	}

	/**
	 * A time at a fixed offset from a script call's now.
	 */
	record Time(Moment base, long offset) {

		static Time at(long millis) {
			return new Time(Moment.exact(millis), 0);
		}

		long lo() {
			return this.base.lo() + this.offset;
		}

		long hi() {
			return this.base.hi() + this.offset;
		}

		boolean isExact() {
			return this.base.lo() == this.base.hi();
		}

		long exactly(String what) {
			if (!isExact()) {
				throw new ModelError(what + " is not known exactly: " + this);
			}
			return lo();
		}

		void observe(long value, String what) {
			this.base.observe(value - this.offset, what + " (minus " + this.offset + " ms)");
		}

		@Override
		public String toString() {
			return isExact() ? String.valueOf(lo()) : "[" + lo() + ".." + hi() + "]";
		}

	}

	/**
	 * The queue did not do what the model says.
	 */
	static class ModelDivergence extends AssertionError {

		ModelDivergence(String message) {
			super(message);
		}

	}

	/**
	 * The model cannot tell what the queue must do: a fault of the test, not of the queue.
	 */
	static class ModelError extends IllegalStateException {

		ModelError(String message) {
			super(message);
		}

	}

}
