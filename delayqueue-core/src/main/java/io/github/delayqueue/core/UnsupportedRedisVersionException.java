package io.github.delayqueue.core;

/**
 * The Redis server is older than {@value #MINIMUM_VERSION}; thrown when the queue starts, or
 * before its first call to Redis.
 */
public class UnsupportedRedisVersionException extends DelayQueueException {

	/** The oldest Redis version the queue runs on. */
	public static final String MINIMUM_VERSION = "6.2";

	private final String server;

	private final String version;

	/**
	 * Creates the exception.
	 * @param server the server that runs the old version: its address on a cluster, or
	 * {@code ""} for the one server
	 * @param version the version it runs
	 */
	public UnsupportedRedisVersionException(String server, String version) {
		super("delayqueue needs Redis " + MINIMUM_VERSION + " or newer (it uses LPOP with a count), but the server"
				+ (server.isEmpty() ? "" : " " + server) + " runs Redis " + version + ": upgrade Redis");
		this.server = server;
		this.version = version;
	}

	/** The server that runs the old version: its address on a cluster, {@code ""} for the one server. */
	public String getServer() {
		return this.server;
	}

	/** The version the server runs, such as {@code 6.0.16}. */
	public String getVersion() {
		return this.version;
	}

}
