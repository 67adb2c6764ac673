package io.github.delayqueue.autoconfigure;

import java.net.URI;
import java.util.List;

import io.github.delayqueue.core.DelayQueueConnectionException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Analyzes a start-up that could not reach Redis, naming the Redis the
 * {@code spring.data.redis.*} properties point at.
 */
class RedisUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<DelayQueueConnectionException> {

	private static final String PREFIX = "spring.data.redis.";

	private final Binder binder;

	RedisUnreachableFailureAnalyzer(Environment environment) {
		this.binder = Binder.get(environment);
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DelayQueueConnectionException cause) {
		Throwable reason = NestedExceptionUtils.getMostSpecificCause(cause);
		String because = (reason.getMessage() != null) ? reason.getMessage() : reason.getClass().getSimpleName();
		String description = "delayqueue could not reach Redis " + target() + " while the application started: "
				+ because + ".";
		String action = "Start Redis there, or set spring.data.redis.* to the Redis that the application should use:"
				+ " spring.data.redis.host and spring.data.redis.port (or spring.data.redis.url);"
				+ " spring.data.redis.sentinel.master and spring.data.redis.sentinel.nodes for Sentinel;"
				+ " spring.data.redis.cluster.nodes for a cluster; spring.data.redis.username,"
				+ " spring.data.redis.password and spring.data.redis.ssl.* when it asks for them."
				+ " If the application should start while Redis is down, set delayqueue.redis.fail-fast=false:"
				+ " the queue then connects when Redis answers, and schedules fail until it does.";
		return new FailureAnalysis(description, action, cause);
	}

	/** The Redis the properties name, as Spring Boot picks it. */
	private String target() {
		String master = string("sentinel.master");
		if (master != null) {
			return "(Sentinel master '" + master + "' of spring.data.redis.sentinel.nodes=" + list("sentinel.nodes")
					+ ")";
		}
		String cluster = list("cluster.nodes");
		if (!cluster.isEmpty()) {
			return "(cluster of spring.data.redis.cluster.nodes=" + cluster + ")";
		}
		String url = string("url");
		if (url != null) {
			return "at " + withoutCredentials(url) + " (spring.data.redis.url)";
		}
		String host = string("host");
		String port = string("port");
		return "at " + ((host != null) ? host : "localhost") + ":" + ((port != null) ? port : "6379") + " ("
				+ ((host != null) ? "spring.data.redis.host=" + host : "spring.data.redis.host not set, so localhost")
				+ " and " + ((port != null) ? "spring.data.redis.port=" + port : "spring.data.redis.port not set, so 6379")
				+ ")";
	}

	private @Nullable String string(String name) {
		String value = this.binder.bind(PREFIX + name, String.class).orElse(null);
		return StringUtils.hasText(value) ? value : null;
	}

	private String list(String name) {
		return String.join(",", this.binder.bind(PREFIX + name, Bindable.listOf(String.class)).orElse(List.of()));
	}

	/**
	 * The URL without its user name and password.
	 */
	static String withoutCredentials(String url) {
		try {
			URI uri = URI.create(url);
			if (uri.getRawUserInfo() == null) {
				return url;
			}
			return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
		}
		catch (Exception ex) {
			return "(a URL that is not valid)";
		}
	}

}
