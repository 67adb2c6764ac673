package io.github.delayqueue.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.Retention;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The DEAD jobs that topics keep at most ({@link Retention#failed()},
 * {@link Retention#failedAge()}). A topic's deaths are listed in order in a key of the topic's
 * own slot ({@link KeySpace#deaths}, {@code failed.lua}) right after the script that killed
 * the jobs; that call names the deaths beyond the limits, their jobs are deleted in their
 * buckets ({@code trimdead.lua}, only while they are DEAD with that time of death), and then
 * the entries are removed. Only the topics whose limit this instance knows are written: an
 * instance without one sends no command for them.
 *
 * <p>
 * The calls follow the death, not part of it. A process that dies between the death and the
 * first call, or a Redis that refuses it, leaves a DEAD job outside the limit (kept until
 * replayed or cancelled); one that stops after the first call leaves the entries it named, and
 * the next death names them again. Failures are logged, and never make a failure of a job
 * fail. Thread-safe.
 */
final class FailedJobs {

	/** The most deaths one {@code failed.lua} call adds, and job keys one bucket call deletes. */
	static final int BATCH = 1_000;

	private static final Log logger = LogFactory.getLog(FailedJobs.class);

	private static final LuaScript FAILED = LuaScript.of("failed", 1);

	private final ScriptRunner runner;

	private final QueueScripts scripts;

	private final KeySpace keys;

	private final Map<String, Retention> limits;

	private final DelayQueueObserver observer;

	private final OnceAMinute warning = new OnceAMinute(logger);

	/**
	 * Creates the limits of a namespace's DEAD jobs.
	 * @param runner the runner to call the topics' slots with
	 * @param scripts the scripts of the buckets
	 * @param keys the key space
	 * @param limits the retention of each topic that limits its DEAD jobs
	 * @param observer told how many DEAD jobs were deleted
	 */
	FailedJobs(ScriptRunner runner, QueueScripts scripts, KeySpace keys, Map<String, Retention> limits,
			DelayQueueObserver observer) {
		this.runner = runner;
		this.scripts = scripts;
		this.keys = keys;
		this.limits = Map.copyOf(limits);
		this.observer = observer;
	}

	/**
	 * A job died (failed with its attempts used up, or killed).
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param diedAt its time of death by its bucket's clock, ms
	 */
	void died(String topic, String id, long diedAt) {
		if (this.limits.containsKey(topic)) {
			died(topic, List.of(KeySpace.jobKey(topic, id)), diedAt);
		}
	}

	/**
	 * Jobs of a topic died in a step of a bucket's timer (their last attempt's TTR ran out):
	 * they share the step's time, by which they are found.
	 * @param topic the topic
	 * @param bucket the bucket
	 * @param diedAt the step's time, ms
	 */
	void diedInStep(String topic, int bucket, long diedAt) {
		if (!this.limits.containsKey(topic)) {
			return;
		}
		List<String> jobKeys;
		try {
			jobKeys = this.scripts.deadAt(bucket, topic, diedAt);
		}
		catch (RuntimeException ex) {
			failed(topic, ex);
			return;
		}
		died(topic, jobKeys, diedAt);
	}

	/**
	 * Lists deaths a batch at a time; each batch's named entries are dropped before the next
	 * is listed, and a failure ends only its own batch (the entries it named are named again
	 * by a later death), so that one failed call leaves no later batch unlisted. (Trimming
	 * itself waits for a bucket whose deletes keep failing: its entries are named first.)
	 */
	@SuppressWarnings("NullAway") // called for topics with a limit only
	private void died(String topic, List<String> jobKeys, long diedAt) {
		Retention limit = this.limits.get(topic);
		for (int from = 0; from < jobKeys.size(); from += BATCH) {
			List<String> deaths = new ArrayList<>();
			for (String jobKey : jobKeys.subList(from, Math.min(jobKeys.size(), from + BATCH))) {
				deaths.add(jobKey);
				deaths.add(String.valueOf(diedAt));
			}
			try {
				List<Object> reply = Replies.list(this.runner.runReplicated(FAILED, call(topic, "add",
						limit.failed(), (limit.failedAge() != null) ? limit.failedAge().toMillis() : 0,
						Retention.TRIM_SLACK, deaths)));
				List<String> named = new ArrayList<>(reply.size() - 2);
				for (int i = 2; i < reply.size(); i++) {
					named.add(Replies.asString(reply.get(i)));
				}
				if (!named.isEmpty()) {
					drop(topic, named);
				}
			}
			catch (RuntimeException ex) {
				failed(topic, ex);
			}
		}
	}

	/**
	 * Deletes the DEAD jobs of the entries named (job key and time of death, alternating), one
	 * call per bucket in one pipeline, then removes the entries.
	 */
	private void drop(String topic, List<String> named) {
		Map<Integer, List<String>> byBucket = new TreeMap<>();
		for (int i = 0; i < named.size(); i += 2) {
			String jobKey = named.get(i);
			int bucket = this.keys.bucketOf(topic, jobKey.substring(topic.length() + 1));
			List<String> deaths = byBucket.computeIfAbsent(bucket, (b) -> new ArrayList<>());
			deaths.add(jobKey);
			deaths.add(named.get(i + 1));
		}
		long dropped = this.scripts.dropDead(topic, byBucket);
		if (dropped > 0) {
			this.observer.deadTrimmed(topic, dropped);
		}
		this.runner.runReplicated(FAILED, call(topic, "remove", named));
	}

	private byte[][] call(String topic, String operation, Object... arguments) {
		List<byte[]> call = new ArrayList<>();
		call.add(this.keys.deaths(topic));
		call.add(KeySpace.bytes(operation));
		for (Object argument : arguments) {
			if (argument instanceof List<?> values) {
				values.forEach((value) -> call.add(KeySpace.bytes(String.valueOf(value))));
			}
			else {
				call.add(KeySpace.bytes(String.valueOf(argument)));
			}
		}
		return call.toArray(new byte[0][]);
	}

	private void failed(String topic, RuntimeException ex) {
		this.warning.warn("Could not apply the failed-job retention of topic '" + topic
				+ "' (DEAD jobs beyond it stay until a later death of the topic, a replay or a cancel): "
				+ ex.getMessage());
	}

}
