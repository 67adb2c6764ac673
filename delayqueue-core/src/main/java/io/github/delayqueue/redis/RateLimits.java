package io.github.delayqueue.redis;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RateLimit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The rate limits of topics and their permits in Redis ({@code rate.lua}): a reserve of a
 * limited topic takes permits, then at most that many jobs within {@link RateLimit#MARGIN},
 * then gives back the unused permits. Thread-safe.
 */
final class RateLimits {

	private static final Log logger = LogFactory.getLog(RateLimits.class);

	private static final LuaScript RATE = LuaScript.of("rate", 2);

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final Map<String, RateLimit> limits = new ConcurrentHashMap<>();

	private final OnceAMinute lateTakes = new OnceAMinute(logger);

	RateLimits(ScriptRunner runner, KeySpace keys) {
		this.runner = runner;
		this.keys = keys;
	}

	/** The rate limit of a topic, or {@code null} when it has none here. */
	@Nullable RateLimit of(String topic) {
		return this.limits.get(topic);
	}

	/** Sets or removes ({@code null}) the rate limit of a topic; refuses another limit than the one set. */
	void set(String topic, @Nullable RateLimit limit) {
		JobConstraints.topic(topic);
		if (limit == null) {
			this.limits.remove(topic);
			return;
		}
		RateLimit before = this.limits.putIfAbsent(topic, limit);
		if (before != null && !before.equals(limit)) {
			throw new IllegalStateException("topic '" + topic + "' has the rate limit " + before
					+ " already; it cannot also have " + limit + " (one limit per topic, the same on every instance)");
		}
	}

	/**
	 * Permits granted by one call: how many, Redis's time of the grant (ms), the number of the
	 * first (the others follow), and when the next frees (Redis's ms; 0: one is free now).
	 */
	record Grant(int granted, long now, long first, long nextFree) {

		/** The latest Redis time (ms) at which a reserve may use these permits: strictly within the margin. */
		long notAfter() {
			return this.now + RateLimit.MARGIN.toMillis() - 1;
		}

	}

	/** Takes up to {@code wanted} permits of a topic's limit; a take the replicas did not get gives them back. */
	Grant take(String topic, RateLimit limit, int wanted) {
		long window = limit.per().toMillis() + RateLimit.MARGIN.toMillis();
		try {
			return grant(this.runner.runReplicated(RATE, call(topic, "take", limit.permits(), window, wanted)));
		}
		catch (ReplicaWait.NotReplicated ex) {
			if (!ex.replies().isEmpty()) {
				Grant grant = grant(ex.replies().get(0));
				giveBack(topic, grant, grant.granted());
			}
			throw ex;
		}
	}

	private static Grant grant(@Nullable Object reply) {
		List<Object> values = ScriptReplies.list(reply);
		return new Grant((int) ScriptReplies.asLong(values.get(0)), ScriptReplies.asLong(values.get(1)),
				ScriptReplies.asLong(values.get(2)), ScriptReplies.asLong(values.get(3)));
	}

	/** Gives back the last {@code unused} permits of a grant; a failure is logged. */
	void giveBack(String topic, Grant grant, int unused) {
		if (unused <= 0) {
			return;
		}
		try {
			this.runner.run(RATE, call(topic, "give", grant.first() + grant.granted() - unused, unused, grant.now()));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not give back " + unused + " permit(s) of topic '" + topic
					+ "' (they free with their window): " + ex.getMessage());
		}
	}

	/** Reports, at most once a minute, a take that came later than its permits' margin. */
	void late(String topic, Grant grant) {
		this.lateTakes.warn("A reserve of rate-limited topic '" + topic + "' reached a bucket more than "
				+ RateLimit.MARGIN.toMillis() + " ms after its permits were granted (at " + grant.now()
				+ " by Redis's clock) and took no job from it: a slow Redis or a Cluster node's clock ahead");
	}

	private byte[][] call(String topic, Object... arguments) {
		return QueueScripts.args(List.of(this.keys.rateGrants(topic), this.keys.rateCounter(topic)), arguments);
	}

}
