package io.github.delayqueue.test;

import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.ScoredValue;
import org.jspecify.annotations.Nullable;

/**
 * The part of {@link QueueInvariant} that checks one bucket: its job records against their
 * indexes, the ready lists, the stats, errors, tokens and keys.
 */
final class BucketInvariant {

	private static final Pattern RECORD = Pattern
		.compile("^([A-Z])([a-eg-j]?)(\\d*),(\\d+),([0-9a-z]+),([0-9a-z]+),(-?[0-9a-z]+),(\\d*)$");

	/** The priority of a job that names none: its READY jobs are in the topic's first list. */
	private static final int DEFAULT_PRIORITY = 5;

	private final QueueInvariant invariant;

	private final int bucket;

	BucketInvariant(QueueInvariant invariant, int bucket) {
		this.invariant = invariant;
		this.bucket = bucket;
	}

	void check(Set<String> keyNames, List<String> violations) {
		int bucket = this.bucket;
		String prefix = "{" + this.invariant.namespace + ":" + bucket + "}:";
		String where = "bucket " + bucket + ": ";
		Set<String> topics = new TreeSet<>();
		for (String name : keyNames) {
			if (name.startsWith("ready:")) {
				String list = name.substring(6);
				int colon = list.indexOf(':');
				if (colon >= 0 && !list.substring(colon + 1).matches("[0-46-9]")) {
					violations.add(where + "unknown key " + prefix + name);
				}
				topics.add((colon >= 0) ? list.substring(0, colon) : list);
			}
			else if (name.startsWith("dead:")) {
				topics.add(name.substring(5));
			}
			else if (name.equals("guard")) {
				violations.add(where + "the guard key exists; it must never be written");
			}
			else if (!Set.of("jobs", "delayed", "reserved", "stats", "errors", "seq", "recurring", "recurring-due")
				.contains(name)) {
				violations.add(where + "unknown key " + prefix + name);
			}
		}
		this.invariant.checkRecurring(bucket, prefix, where, violations);
		Map<String, Job> jobs = new LinkedHashMap<>();
		Map<String, String> records = this.invariant.call(prefix, (redis) -> redis.hgetall(prefix + "jobs"));
		for (Map.Entry<String, String> record : records.entrySet()) {
			String jobKey = record.getKey();
			Job job = Job.parse(record.getValue());
			int colon = jobKey.indexOf(':');
			if (job == null || colon <= 0) {
				violations.add(where + "job " + jobKey + " has an unreadable record: " + QueueInvariant.abbreviate(record.getValue()));
				continue;
			}
			jobs.put(jobKey, job);
			topics.add(jobKey.substring(0, colon));
		}
		Map<String, Long> stats = new TreeMap<>();
		Map<String, String> statFields = this.invariant.call(prefix, (redis) -> redis.hgetall(prefix + "stats"));
		for (Map.Entry<String, String> stat : statFields.entrySet()) {
			String field = stat.getKey();
			stats.put(field, Long.parseLong(stat.getValue()));
			if (field.length() > 2 && field.charAt(1) == ':') {
				topics.add(field.substring(2));
			}
		}

		Map<String, Long> counted = new TreeMap<>();
		jobs.forEach((jobKey, job) -> counted.merge(job.state + ":" + QueueInvariant.topicOf(jobKey), 1L, Long::sum));

		// the two zsets of the bucket
		checkZset(where, prefix + "delayed", 'D', jobs, violations, true);
		checkZset(where, prefix + "reserved", 'S', jobs, violations, false);

		for (String topic : topics) {
			checkZset(where, prefix + "dead:" + topic, 'X', jobs, violations, false);
			// the lists of every priority: an entry is the READY job's only in its priority's list
			Set<String> listed = new HashSet<>();
			long entryCount = 0;
			Set<Integer> nonEmpty = new TreeSet<>();
			String sentinel = null;
			for (int priority = 0; priority <= 9; priority++) {
				String key = prefix + "ready:" + topic + ((priority != DEFAULT_PRIORITY) ? ":" + priority : "");
				List<String> entries = this.invariant.call(prefix, (redis) -> redis.lrange(key, 0, -1));
				for (int k = 0; k < entries.size(); k++) {
					String jobKey = entries.get(k);
					if (jobKey.startsWith("^")) {
						if (priority != DEFAULT_PRIORITY || k != 0) {
							violations.add(where + "ready list " + key + " holds the sentinel " + jobKey + " at " + k
									+ "; only the first entry of the topic's first list may be one");
						}
						else {
							sentinel = jobKey;
						}
						continue;
					}
					if (!QueueInvariant.topicOf(jobKey).equals(topic)) {
						violations.add(where + "ready list of " + topic + " holds " + jobKey + " of another topic");
					}
					listed.add(jobKey + "|" + priority);
					entryCount++;
				}
				if (!entries.isEmpty() && priority != DEFAULT_PRIORITY) {
					nonEmpty.add(priority);
				}
			}
			String expected = nonEmpty.isEmpty() ? null
					: "^" + nonEmpty.stream().sorted(Comparator.reverseOrder()).map(String::valueOf)
						.reduce("", String::concat);
			if (!Objects.equals(sentinel, expected)) {
				violations.add(where + "the ready lists of " + topic + " with entries are of priorities " + nonEmpty
						+ ", but the sentinel of its first list is " + sentinel);
			}
			long ready = 0;
			for (Map.Entry<String, Job> job : jobs.entrySet()) {
				if (job.getValue().state == 'R' && QueueInvariant.topicOf(job.getKey()).equals(topic)) {
					ready++;
					if (!listed.contains(job.getKey() + "|" + job.getValue().priority)) {
						violations.add(where + "READY job " + job.getKey() + " of priority " + job.getValue().priority
								+ " is not in the ready list of its priority");
					}
				}
			}
			long tombstones = entryCount - ready;
			if (tombstones > 0) {
				counted.put("T:" + topic, tombstones);
			}
		}
		// every job in exactly the index of its state: the other zsets must not hold it
		jobs.forEach((jobKey, job) -> {
			String topic = QueueInvariant.topicOf(jobKey);
			if (job.state == 'X') {
				requireMember(where, prefix + "dead:" + topic, jobKey, job, violations);
			}
			if (job.state != 'D' && job.state != 'R' && job.state != 'S' && job.state != 'X') {
				violations.add(where + "job " + jobKey + " has the unknown state " + job.state);
			}
			if (job.state == 'S' && job.token <= 0) {
				violations.add(where + "RESERVED job " + jobKey + " has no fencing token");
			}
		});

		stats.forEach((field, value) -> {
			if (value < 0) {
				violations.add(where + "stats field " + field + " is " + value + " (counts are never negative)");
			}
		});
		Set<String> fieldsSeen = new TreeSet<>(stats.keySet());
		fieldsSeen.addAll(counted.keySet());
		for (String field : fieldsSeen) {
			long expected = counted.getOrDefault(field, 0L);
			long actual = stats.getOrDefault(field, 0L);
			if (expected != actual) {
				violations.add(where + "stats field " + field + " is " + actual + " but the indexes hold " + expected);
			}
		}

		for (String jobKey : this.invariant.call(prefix, (redis) -> redis.hkeys(prefix + "errors"))) {
			Job job = jobs.get(jobKey);
			if (job == null) {
				violations.add(where + "an error is kept for " + jobKey + ", which does not exist");
			}
			else if (!job.replayed() && job.attempt() < ((job.state() == 'S') ? 2 : 1)) {
				// a finish deletes the last error only of a job past its first attempt or replayed
				violations.add(where + "an error is kept for " + jobKey + " (" + job.state() + ", attempt "
						+ job.attempt() + "), which its finish would leave behind: it is not marked as replayed");
			}
		}
		String seq = this.invariant.call(prefix, (redis) -> redis.get(prefix + "seq"));
		long counter = (seq != null) ? Long.parseLong(seq) : 0;
		jobs.forEach((jobKey, job) -> {
			// a token of 10^15 or more is 10^15 + (counter mod 8 * 10^11) * 10^4 + the holder's number
			long sequence = (job.token >= 1_000_000_000_000_000L) ? (job.token - 1_000_000_000_000_000L) / 10_000
					: job.token;
			if (job.state == 'S' && sequence > counter) {
				violations.add(where + "job " + jobKey + " holds token " + job.token + " beyond the counter " + counter);
			}
		});
	}

	/**
	 * Checks a zset whose members must all be jobs in one state, and (for the two bucket-wide
	 * zsets) that every job in that state is a member.
	 */
	private void checkZset(String where, String key, char state, Map<String, Job> jobs, List<String> violations,
			boolean scoreIsDue) {
		Map<String, Double> members = new HashMap<>();
		for (ScoredValue<String> entry : this.invariant.call(key, (redis) -> redis.zrangeWithScores(key, 0, -1))) {
			String jobKey = entry.getValue();
			double score = entry.getScore();
			members.put(jobKey, score);
			Job job = jobs.get(jobKey);
			if (job == null) {
				violations.add(where + key + " holds " + jobKey + ", which has no record");
			}
			else if (job.state != state) {
				violations.add(where + key + " holds " + jobKey + ", which is " + job.state + " not " + state);
			}
			else if (scoreIsDue && score != job.due) {
				violations.add(where + key + " scores " + jobKey + " at " + (long) score + " but it is due at " + job.due);
			}
		}
		if (state == 'X') {
			return;
		}
		jobs.forEach((jobKey, job) -> {
			if (job.state == state && !members.containsKey(jobKey)) {
				violations.add(where + "job " + jobKey + " is " + state + " but not in " + key);
			}
		});
	}

	private void requireMember(String where, String key, String jobKey, Job job, List<String> violations) {
		if (this.invariant.call(key, (redis) -> redis.zscore(key, jobKey)) == null) {
			violations.add(where + "job " + jobKey + " is " + job.state + " but not in " + key);
		}
	}

	/**
	 * The header of a job record.
	 */
	private record Job(char state, int priority, int attempt, boolean replayed, int max, long due, long token) {

		static @Nullable Job parse(String record) {
			int newline = record.indexOf('\n');
			Matcher matcher = RECORD.matcher((newline >= 0) ? record.substring(0, newline) : record);
			if (newline < 0 || !matcher.matches()) {
				return null;
			}
			long created = Long.parseLong(matcher.group(6), 36);
			long delay = Long.parseLong(matcher.group(7), 36);
			int priority = matcher.group(2).isEmpty() ? DEFAULT_PRIORITY : matcher.group(2).charAt(0) - 'a';
			// a replayed job's attempt is written after a '0'
			return new Job(matcher.group(1).charAt(0), priority, number(matcher.group(3)),
					matcher.group(3).startsWith("0"), Integer.parseInt(matcher.group(4)), created + delay,
					matcher.group(8).isEmpty() ? 0 : Long.parseLong(matcher.group(8)));
		}

		private static int number(String text) {
			return text.isEmpty() ? 0 : Integer.parseInt(text);
		}

	}

}
