package io.github.delayqueue.redis;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RateLimit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The rate limits of topics and their permits in Redis ({@code rate.lua}, two keys per topic
 * in a slot of the topic's own). A reserve of a limited topic first takes permits, then takes
 * at most that many jobs within {@link RateLimit#MARGIN} of the grant, then gives back the
 * permits that took no job. A process that dies in between leaves its permits granted until
 * they leave the window: fewer jobs then, never more. Thread-safe.
 */
final class RateLimits {

	private static final Log logger = LogFactory.getLog(RateLimits.class);

	private static final LuaScript RATE = LuaScript.of("rate", 2);

	private final ScriptRunner runner;

	private final KeySpace keys;

	private final Map<String, RateLimit> limits = new ConcurrentHashMap<>();

	private final OnceAMinute lateTakes = new OnceAMinute(logger);

	RateLimits(ScriptRunner runner, KeySpace keys, Map<String, RateLimit> limits) {
		this.runner = runner;
		this.keys = keys;
		this.limits.putAll(limits);
	}

	/**
	 * The rate limit of a topic.
	 * @param topic the topic
	 * @return the limit, or {@code null} when the topic has none here
	 */
	@Nullable RateLimit of(String topic) {
		return this.limits.get(topic);
	}

	/**
	 * The rate limit of a topic.
	 * @param topic the topic
	 * @return the limit, or empty when the topic has none here
	 */
	Optional<RateLimit> find(String topic) {
		return Optional.ofNullable(this.limits.get(JobConstraints.topic(topic)));
	}

	/**
	 * Sets the rate limit of a topic, or removes it.
	 * @param topic the topic
	 * @param limit the limit, or {@code null} for none
	 * @throws IllegalStateException when the topic has another limit already
	 */
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
	 * Permits granted by one call.
	 *
	 * @param granted how many
	 * @param now Redis's time of the grant, ms
	 * @param first the number of the first permit (the others follow)
	 * @param nextFree when the next permit frees (Redis's time, ms), or 0 when one is free
	 * now
	 */
	record Grant(int granted, long now, long first, long nextFree) {

		/**
		 * The latest Redis time at which a reserve may use these permits.
		 * @return the time, ms
		 */
		long notAfter() {
			// strictly within the margin: a grant leaves the window when interval + margin
			// have passed, so two deliveries a window apart are more than the interval apart
			return this.now + RateLimit.MARGIN.toMillis() - 1;
		}

	}

	/**
	 * Takes up to {@code wanted} permits of a topic's limit.
	 * @param topic the topic
	 * @param limit its limit
	 * @param wanted the most permits wanted
	 * @return the grant
	 */
	Grant take(String topic, RateLimit limit, int wanted) {
		Assert.isTrue(wanted > 0, "wanted must be positive");
		long window = limit.per().toMillis() + RateLimit.MARGIN.toMillis();
		// replicated like the jobs' writes (delayqueue.redis.wait-replicas): a fail-over keeps the
		// grants the replicas acknowledged
		List<Object> reply = Replies
			.list(this.runner.runReplicated(RATE, call(topic, "take", limit.permits(), window, wanted)));
		return new Grant((int) Replies.asLong(reply.get(0)), Replies.asLong(reply.get(1)), Replies.asLong(reply.get(2)),
				Replies.asLong(reply.get(3)));
	}

	/**
	 * Gives back the permits of a grant that took no job: the last {@code unused} of them. A
	 * failure is logged (the permits then leave with the window).
	 * @param topic the topic
	 * @param grant the grant
	 * @param unused how many of its permits took no job
	 */
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

	/**
	 * Reports a take that came later than its permits' margin (the reserve took nothing and
	 * pauses): at most once a minute at WARN, which says what makes it late.
	 * @param topic the topic
	 * @param grant the grant it came too late for
	 */
	void late(String topic, Grant grant) {
		this.lateTakes.warn("A reserve of rate-limited topic '" + topic + "' reached a bucket more than "
				+ RateLimit.MARGIN.toMillis() + " ms after its permits were granted (at " + grant.now()
				+ " by Redis's clock) and took no job from it; a slow Redis, a round trip near "
				+ RateLimit.MARGIN.toMillis() + " ms, or a Cluster node whose clock runs ahead make such takes"
				+ " late (the jobs of a bucket whose every take is late wait)");
	}


	private byte[][] call(String topic, Object... arguments) {
		byte[][] call = new byte[2 + arguments.length][];
		call[0] = this.keys.rateGrants(topic);
		call[1] = this.keys.rateCounter(topic);
		for (int i = 0; i < arguments.length; i++) {
			call[2 + i] = KeySpace.bytes(String.valueOf(arguments[i]));
		}
		return call;
	}

}
