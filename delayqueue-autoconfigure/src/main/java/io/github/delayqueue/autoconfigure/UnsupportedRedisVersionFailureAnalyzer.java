package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.core.UnsupportedRedisVersionException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Analyzes a start-up that the queue refused because Redis is older than 6.2.
 */
class UnsupportedRedisVersionFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedRedisVersionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedRedisVersionException cause) {
		String server = cause.getServer().isEmpty() ? "the Redis server" : "the Redis server " + cause.getServer();
		String description = "delayqueue needs Redis " + UnsupportedRedisVersionException.MINIMUM_VERSION
				+ " or newer (its scripts use commands of " + UnsupportedRedisVersionException.MINIMUM_VERSION
				+ ", such as LPOP with a count), but " + server + " runs Redis " + cause.getVersion() + ".";
		String action = "Upgrade Redis to " + UnsupportedRedisVersionException.MINIMUM_VERSION
				+ " or newer, or set spring.data.redis.* to a Redis that runs it.";
		return new FailureAnalysis(description, action, cause);
	}

}
