package io.github.delayqueue.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RepairResult;
import org.jspecify.annotations.Nullable;

/**
 * The repair of one bucket in steps, one {@code repair.lua} call each, that read at most
 * {@link #STEP} records or index entries: every record into its index, stale entries and
 * orphaned last errors out, lost ready-list entries and sentinels back, then the counts.
 * Not thread-safe; a repair whose bucket another repair began after it fails at its next step.
 */
final class BucketRepair {

	/** The most records or index entries one step reads. */
	static final int STEP = 1_000;

	/** How many times the counts are tallied when jobs change state while they are. */
	static final int TALLIES = 3;

	private final QueueScripts scripts;

	private final int bucket;

	/** Names this repair in the bucket, so that its steps stop once another repair began there. */
	private final String run = UUID.randomUUID().toString();

	private final boolean write;

	private final Deque<BooleanSupplier> steps = new ArrayDeque<>();

	private final Set<String> topics = new TreeSet<>();

	/** Per topic, the priorities of the entries put back (a dry run: that would be). */
	private final Map<String, Set<Integer>> restored = new TreeMap<>();

	private final Map<String, Long> restoredCount = new TreeMap<>();

	private List<@Nullable Object> before = List.of();

	private final Map<String, Long> tally = new LinkedHashMap<>();

	private long jobs;

	private long reindexed;

	private long dropped;

	private long corrected;

	private long unreadable;

	private int tallies;

	private boolean countsVerified;

	/**
	 * The steps of one bucket's repair, none run yet.
	 * @param lists the bucket's ready and dead lists, as {@code ready:<topic>[:<priority>]} and {@code dead:<topic>}
	 */
	BucketRepair(QueueScripts scripts, int bucket, boolean write, Set<String> lists) {
		this.scripts = scripts;
		this.bucket = bucket;
		this.write = write;
		Set<String> readyTopics = new TreeSet<>();
		tally(true);
		scan("D", "delayed");
		scan("S", "reserved");
		lists.stream().filter((list) -> list.startsWith("dead:")).forEach((list) -> scan("X", list));
		this.steps.add(cursor((cursor) -> {
			List<@Nullable Object> reply = step("errors", cursor, STEP);
			this.dropped += ScriptReplies.asLong(reply.get(2));
			return reply;
		}));
		for (String list : lists) {
			if (list.startsWith("ready:")) {
				String[] parts = list.substring("ready:".length()).split(":");
				readyTopics.add(parts[0]);
				readyList(parts[0], (parts.length > 1) ? parts[1] : String.valueOf(JobConstraints.DEFAULT_PRIORITY));
			}
		}
		this.steps.add(cursor((cursor) -> {
			List<@Nullable Object> reply = step("restore", cursor, STEP);
			for (int i = 2; i < reply.size(); i += 2) {
				String topic = ScriptReplies.asString(reply.get(i));
				this.restored.computeIfAbsent(topic, (t) -> new TreeSet<>())
					.add((int) ScriptReplies.asLong(reply.get(i + 1)));
				this.restoredCount.merge(topic, 1L, Long::sum);
				this.reindexed++;
			}
			return reply;
		}));
		this.steps.add(() -> {
			// the sentinel of every topic with a list here or an entry put back
			readyTopics.addAll(this.restored.keySet());
			readyTopics.forEach((topic) -> this.steps.add(() -> {
				List<Object> values = new ArrayList<>(List.of(topic, this.restored.containsKey(topic) ? "1" : "0"));
				if (!this.write) {
					values.addAll(this.restored.getOrDefault(topic, Set.of()));
				}
				this.reindexed += ScriptReplies.asLong(step("topic", values.toArray()).get(0));
				return true;
			}));
			this.steps.add(this::counts);
			return true;
		});
	}

	/** Runs the next step; whether steps are left. */
	boolean step() {
		BooleanSupplier next = this.steps.peekFirst();
		if (next == null) {
			return false;
		}
		if (next.getAsBoolean()) {
			this.steps.pollFirst();
		}
		return !this.steps.isEmpty();
	}

	/** Whether the counts were tallied while no job of the bucket changed state (else they were left). */
	boolean countsVerified() {
		return this.countsVerified;
	}

	RepairResult result() {
		return new RepairResult(this.jobs, this.reindexed, this.dropped, this.corrected, this.unreadable);
	}

	/** Adds the steps that read the counts and the records ({@code fix}: and put each in its index). */
	private void tally(boolean fix) {
		this.steps.add(() -> {
			this.before = step("begin");
			for (int i = 0; i < this.before.size(); i += 2) {
				addTopic(ScriptReplies.asString(this.before.get(i)));
			}
			this.tally.clear();
			this.jobs = 0;
			this.unreadable = 0;
			return true;
		});
		this.steps.add(cursor((cursor) -> {
			List<@Nullable Object> reply = step("records", cursor, STEP, fix ? "1" : "0");
			this.jobs += ScriptReplies.asLong(reply.get(2));
			if (fix) {
				this.reindexed += ScriptReplies.asLong(reply.get(3));
			}
			this.unreadable += ScriptReplies.asLong(reply.get(4));
			for (int i = 5; i < reply.size(); i += 2) {
				String field = ScriptReplies.asString(reply.get(i));
				this.tally.merge(field, ScriptReplies.asLong(reply.get(i + 1)), Long::sum);
				addTopic(field);
			}
			return reply;
		}));
	}

	/** Adds the steps that drop the entries of a zset whose record is not in {@code state}. */
	private void scan(String state, String key) {
		String[] after = { "", "" };
		this.steps.add(() -> {
			List<@Nullable Object> reply = step("index", key, state, after[0], after[1], STEP);
			this.dropped += ScriptReplies.asLong(reply.get(1));
			after[0] = ScriptReplies.asString(reply.get(2));
			after[1] = ScriptReplies.asString(reply.get(3));
			return ScriptReplies.asLong(reply.get(0)) < STEP;
		});
	}

	/** Adds the steps that read a ready list from its tail, for the READY jobs listed there. */
	private void readyList(String topic, String priority) {
		addTopic("R:" + topic);
		long[] skip = { 0 };
		this.steps.add(() -> {
			long read = ScriptReplies.asLong(step("ready", topic, priority, skip[0], STEP).get(0));
			skip[0] += STEP;
			return read < STEP;
		});
	}

	/** A step of a cursor-driven reply ({cursor, read, ...}), done when the cursor is back at 0. */
	private BooleanSupplier cursor(Function<String, List<@Nullable Object>> call) {
		String[] cursor = { "0" };
		return () -> {
			cursor[0] = ScriptReplies.asString(call.apply(cursor[0]).get(0));
			return "0".equals(cursor[0]);
		};
	}

	private boolean counts() {
		List<Object> values = new ArrayList<>();
		values.add(this.before.size());
		values.addAll(this.before.stream().map(ScriptReplies::asString).toList());
		values.add(2 * this.tally.size());
		this.tally.forEach((field, n) -> values.addAll(List.of(field, n)));
		for (String topic : this.topics) {
			values.add(topic);
			values.add(this.write ? 0 : this.restoredCount.getOrDefault(topic, 0L));
		}
		List<@Nullable Object> reply = step("counts", values.toArray());
		this.tallies++;
		this.countsVerified = ScriptReplies.asLong(reply.get(0)) == 0;
		if (this.countsVerified) {
			this.corrected = ScriptReplies.asLong(reply.get(1));
		}
		if (!this.countsVerified && this.tallies < TALLIES) {
			// jobs changed state during the tally: tally again
			tally(false);
			this.steps.add(this::counts);
		}
		else {
			this.steps.add(() -> {
				step("end");
				return true;
			});
		}
		return true;
	}

	private void addTopic(@Nullable String field) {
		if (field != null && field.length() > 2 && field.charAt(1) == ':') {
			this.topics.add(field.substring(2));
		}
	}

	private List<@Nullable Object> step(String step, Object... values) {
		return this.scripts.repair(this.bucket, this.write, step + " " + this.run, Arrays.asList(values));
	}

	@Override
	public String toString() {
		return "repair of bucket " + this.bucket;
	}

}
