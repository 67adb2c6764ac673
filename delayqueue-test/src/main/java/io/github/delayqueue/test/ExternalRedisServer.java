package io.github.delayqueue.test;

import java.net.URI;

import org.jspecify.annotations.Nullable;

/**
 * A server the test support did not start: it is used, never stopped.
 */
final class ExternalRedisServer implements RedisTestServer {

	private final String host;

	private final int port;

	private final @Nullable String password;

	ExternalRedisServer(URI uri) {
		if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
			throw new IllegalArgumentException(
					"DELAYQUEUE_TEST_REDIS_URL must look like redis://[:password@]host[:port], was " + uri);
		}
		this.host = uri.getHost();
		this.port = (uri.getPort() != -1) ? uri.getPort() : 6379;
		String userInfo = uri.getUserInfo();
		this.password = (userInfo != null) ? userInfo.substring(userInfo.indexOf(':') + 1) : null;
	}

	@Override
	public String host() {
		return this.host;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public @Nullable String password() {

		return this.password;
	}

	@Override
	public Source source() {
		return Source.EXTERNAL;
	}

	@Override
	public boolean isManaged() {
		return false;
	}

	@Override
	public void stop() {
		throw new UnsupportedOperationException("An external Redis (DELAYQUEUE_TEST_REDIS_URL) cannot be stopped");
	}

	@Override
	public void start() {
		throw new UnsupportedOperationException("An external Redis (DELAYQUEUE_TEST_REDIS_URL) cannot be started");
	}

	@Override
	public void close() {
	}

	@Override
	public String toString() {
		return "external Redis at " + this.host + ":" + this.port;
	}

}
