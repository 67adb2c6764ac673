package io.github.delayqueue.autoconfigure;

import java.net.URI;
import java.util.List;

import io.github.delayqueue.config.InvalidDelayedListenerException;
import io.github.delayqueue.core.BucketCountMismatchException;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.UnsupportedRedisVersionException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Analyzes a start-up that delayqueue refused, by the first of these causes: Redis
 * unreachable (naming the Redis the {@code spring.data.redis.*} properties point at), Redis
 * older than 6.2, a {@code delayqueue.buckets} that is not the count the namespace was
 * created with, or a {@code @DelayedListener} (or a forward) that cannot be run.
 */
class DelayQueueFailureAnalyzer implements FailureAnalyzer {

	private static final String PREFIX = "spring.data.redis.";

	private final Binder binder;

	DelayQueueFailureAnalyzer(Environment environment) {
		this.binder = Binder.get(environment);
	}

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof DelayQueueConnectionException unreachable) {
				return unreachable(unreachable);
			}
			if (cause instanceof UnsupportedRedisVersionException old) {
				return unsupported(old);
			}
			if (cause instanceof BucketCountMismatchException mismatch) {
				return bucketCount(mismatch);
			}
			if (cause instanceof InvalidDelayedListenerException invalid) {
				return new FailureAnalysis(invalid.getListener() + " " + invalid.getProblem() + ".",
						StringUtils.capitalize(invalid.getFix()) + ".", invalid);
			}
		}
		return null;
	}

	private FailureAnalysis unreachable(DelayQueueConnectionException cause) {
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

	private static FailureAnalysis unsupported(UnsupportedRedisVersionException cause) {
		String server = cause.getServer().isEmpty() ? "the Redis server" : "the Redis server " + cause.getServer();
		String description = "delayqueue needs Redis " + UnsupportedRedisVersionException.MINIMUM_VERSION
				+ " or newer (its scripts use commands of " + UnsupportedRedisVersionException.MINIMUM_VERSION
				+ ", such as LPOP with a count), but " + server + " runs Redis " + cause.getVersion() + ".";
		String action = "Upgrade Redis to " + UnsupportedRedisVersionException.MINIMUM_VERSION
				+ " or newer, or set spring.data.redis.* to a Redis that runs it.";
		return new FailureAnalysis(description, action, cause);
	}

	private static FailureAnalysis bucketCount(BucketCountMismatchException cause) {
		String namespace = cause.getNamespace();
		if (cause.isChosen()) {
			return new FailureAnalysis("delayqueue.buckets is not set, and when the queue was built it took "
					+ cause.getConfigured() + " (Redis could not be reached, or namespace '" + namespace
					+ "' had no count yet); the namespace was created with a bucket count of " + cause.getPinned() + ".",
					"Start the application again once Redis answers (it then takes " + cause.getPinned()
							+ "), or set delayqueue.buckets=" + cause.getPinned() + ".",
					cause);
		}
		String description = "delayqueue.buckets is " + cause.getConfigured() + ", but namespace '" + namespace
				+ "' was created with a bucket count of " + cause.getPinned() + ". Every instance of a namespace must use the"
				+ " count it was created with: a job's bucket is the CRC-32 of its key modulo the count, so an"
				+ " instance with another count would look for jobs in the wrong buckets (and a lower count would"
				+ " strand the jobs of the higher buckets).";
		String action = "Set delayqueue.buckets=" + cause.getPinned() + ". To move to a count of "
				+ cause.getConfigured() + ", start the instances with it under another delayqueue.namespace while"
				+ " instances with " + cause.getPinned() + " drain namespace '" + namespace
				+ "', then stop them and delete its keys ('{" + namespace
				+ "}:config' last).";
		return new FailureAnalysis(description, action, cause);
	}

}
