package io.github.delayqueue.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A redis-server process on a free loopback port, with its own data directory.
 */
final class LocalRedisServer implements RedisTestServer {

	private static final Logger logger = LoggerFactory.getLogger(LocalRedisServer.class);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

	private final File executable;

	private final Source source;

	private final int port;

	private final Path directory;

	private final List<String> arguments;

	private final @Nullable String password;

	private final @Nullable String sentinelConfig;

	private @Nullable Process process;

	LocalRedisServer(File executable, Source source, List<String> arguments, @Nullable String password) {
		this(executable, source, arguments, password, null);
	}

	/**
	 * @param sentinelConfig the configuration of a Sentinel (its {@code sentinel monitor}
	 * lines), or {@code null} for a data server
	 */
	LocalRedisServer(File executable, Source source, List<String> arguments, @Nullable String password,
			@Nullable String sentinelConfig) {
		this.sentinelConfig = sentinelConfig;
		this.executable = executable;
		this.source = source;
		this.port = freePort();
		this.arguments = List.copyOf(arguments);
		this.password = password;
		try {
			this.directory = Files.createTempDirectory("delayqueue-redis-" + this.port + "-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A port that is free, and whose cluster bus port (10,000 above it) is too: both below the
	 * range the system gives outgoing connections (32768 and up on Linux), so that no client
	 * connection takes either while the server starts.
	 */
	static int freePort() {
		for (int tries = 0; tries < 200; tries++) {
			int port = 10_000 + ThreadLocalRandom.current().nextInt(12_000);
			if (isFree(port) && isFree(port + 10_000)) {
				return port;
			}
		}
		throw new IllegalStateException("No free local port for redis-server between 10000 and 22000");
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	public String host() {
		return "127.0.0.1";
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
		return this.source;
	}

	@Override
	public boolean isManaged() {
		return true;
	}

	/**
	 * The directory that holds the server's data files and log.
	 */
	Path directory() {
		return this.directory;
	}

	@Override
	public synchronized void start() {
		if (this.process != null && this.process.isAlive()) {
			return;
		}
		List<String> command = new ArrayList<>();
		command.add(this.executable.getAbsolutePath());
		if (this.sentinelConfig != null) {
			// Sentinel rewrites its file; a restart keeps what it learnt
			Path file = this.directory.resolve("sentinel.conf");
			try {
				if (!Files.exists(file)) {
					Files.writeString(file, this.sentinelConfig);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			command.add(file.toString());
			command.add("--sentinel");
		}
		command.addAll(List.of("--port", String.valueOf(this.port), "--bind", "127.0.0.1", "--dir",
				this.directory.toString(), "--save", "", "--daemonize", "no", "--protected-mode", "no"));
		if (this.password != null) {
			command.addAll(List.of("--requirepass", this.password));
		}
		command.addAll(this.arguments);
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("redis.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
		awaitPing();
		logger.info("Started redis-server ({}) on 127.0.0.1:{} with data in {}", this.source, this.port,
				this.directory);
	}

	@SuppressWarnings("NullAway") // start() calls it right after it set the process
	private void awaitPing() {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		RedisException last = null;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited with code " + this.process.exitValue()
						+ "; log: " + readLog());
			}
			try {
				TestRedisClient.call(this, RedisCommands::ping);
				return;
			}
			catch (RedisException ex) {
				last = ex;
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
			}
		}
		throw new IllegalStateException("redis-server on port " + this.port + " did not answer PING within "
				+ START_TIMEOUT + "; log: " + readLog(), last);
	}

	private String readLog() {
		try {
			return Files.readString(this.directory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	@Override
	public synchronized void stop() {
		if (this.process == null) {
			return;
		}
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
		this.process = null;
		logger.info("Stopped redis-server on 127.0.0.1:{}", this.port);
	}

	@Override
	public synchronized void kill() {
		if (this.process == null) {
			return;
		}
		try {
			this.process.destroyForcibly().waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = null;
		logger.info("Killed redis-server on 127.0.0.1:{}", this.port);
	}

	@Override
	public synchronized void close() {
		stop();
		try (Stream<Path> paths = Files.walk(this.directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			logger.debug("Could not delete {}", this.directory, ex);
		}
	}

	@Override
	public String toString() {
		return "redis-server (" + this.source + ") on 127.0.0.1:" + this.port;
	}

}
