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
 * The limits on the DEAD jobs topics keep ({@link Retention#failed()},
 * {@link Retention#failedAge()}): deaths are listed by {@code failed.lua} after the script
 * that killed the jobs, and the jobs beyond the limits are deleted from their buckets. Only
 * topics whose limit this instance knows are written; failures are logged. Thread-safe.
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

	FailedJobs(ScriptRunner runner, QueueScripts scripts, KeySpace keys, Map<String, Retention> limits,
			DelayQueueObserver observer) {
		this.runner = runner;
		this.scripts = scripts;
		this.keys = keys;
		this.limits = Map.copyOf(limits);
		this.observer = observer;
	}

	/** A job died at {@code diedAt} (its bucket's clock, ms). */
	void died(String topic, String id, long diedAt) {
		if (this.limits.containsKey(topic)) {
			died(topic, List.of(KeySpace.jobKey(topic, id)), diedAt);
		}
	}

	/** Jobs of a topic died in a timer step of a bucket at the step's time, by which they are found. */
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

	/** Lists deaths a batch at a time, dropping what each batch names; a failure ends only its batch. */
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
				List<String> named = reply.subList(2, reply.size()).stream().map(Replies::asString).toList();
				if (!named.isEmpty()) {
					drop(topic, named);
				}
			}
			catch (RuntimeException ex) {
				failed(topic, ex);
			}
		}
	}

	/** Deletes the DEAD jobs named (job key and time of death, alternating), then their entries. */
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

	private byte[][] call(String topic, Object... arguments) {
		return QueueScripts.args(List.of(this.keys.deaths(topic)), arguments);
	}

	private void failed(String topic, RuntimeException ex) {
		this.warning.warn("Could not apply the failed-job retention of topic '" + topic
				+ "' (DEAD jobs beyond it stay until a later death of the topic, a replay or a cancel): "
				+ ex.getMessage());
	}

}
