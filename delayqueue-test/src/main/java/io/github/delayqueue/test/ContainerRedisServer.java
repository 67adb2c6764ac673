package io.github.delayqueue.test;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * A Redis container. Only loaded when Testcontainers is on the class path.
 */
final class ContainerRedisServer implements RedisTestServer {

	private static final String IMAGE = "redis:7.4-alpine";

	private final GenericContainer<?> container;

	private ContainerRedisServer(GenericContainer<?> container) {
		this.container = container;
	}

	static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

	@SuppressWarnings("resource")
	static ContainerRedisServer launch() {
		GenericContainer<?> container = new GenericContainer<>(IMAGE).withExposedPorts(6379);
		container.start();
		return new ContainerRedisServer(container);
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(6379);
	}

	@Override
	public @Nullable String password() {
		return null;

	}

	@Override
	public Source source() {
		return Source.TESTCONTAINERS;
	}

	@Override
	public boolean isManaged() {
		return false;
	}

	@Override
	public void stop() {
		throw new UnsupportedOperationException(
				"A container's mapped port changes on restart: use RedisTestServers.startLocal() for fault tests");
	}

	@Override
	public void start() {
		throw new UnsupportedOperationException(
				"A container's mapped port changes on restart: use RedisTestServers.startLocal() for fault tests");
	}

	@Override
	public void close() {
		this.container.stop();
	}

	@Override
	public String toString() {
		return "Testcontainers " + IMAGE + " at " + host() + ":" + port();
	}

}
