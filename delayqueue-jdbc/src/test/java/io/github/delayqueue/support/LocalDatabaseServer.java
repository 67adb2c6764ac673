package io.github.delayqueue.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Assumptions;
import org.jspecify.annotations.Nullable;

import org.springframework.util.FileSystemUtils;

/**
 * A database server from Debian's packages for the outbox tests, as the Redis test support
 * runs redis-server: its programs found on the {@code PATH} or in the package's own
 * directories, its data in a temporary directory, on a free port of 127.0.0.1, started once
 * per JVM and stopped when it exits. Run as root, the server runs as the package's user, as
 * the databases require. Without the package the test is skipped, saying what to install,
 * except on CI ({@code CI} set), where it fails.
 */
public abstract class LocalDatabaseServer {

	private final Path directory;

	private final int port;

	private final boolean root = "root".equals(System.getProperty("user.name"));

	private final String user;

	private @Nullable Process process;

	LocalDatabaseServer(String name, String user) {
		this.user = user;
		try {
			this.directory = Files.createTempDirectory("delayqueue-" + name);
			if (this.root) {
				UserPrincipal owner = this.directory.getFileSystem()
					.getUserPrincipalLookupService()
					.lookupPrincipalByName(user);
				Files.setOwner(this.directory, owner);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.port = freePort();
		Runtime.getRuntime().addShutdownHook(new Thread(this::stopQuietly, "delayqueue-test-" + name + "-shutdown"));
	}

	/**
	 * A data source of a database of the server.
	 * @return the data source
	 */
	public abstract DataSource dataSource();

	abstract void stop();

	final Path directory() {
		return this.directory;
	}

	final int port() {
		return this.port;
	}

	final boolean root() {
		return this.root;
	}

	final String user() {
		return this.user;
	}

	private void stopQuietly() {
		try {
			stop();
		}
		catch (RuntimeException ex) {
			// the JVM exits anyway
		}
		Process process = this.process;
		if (process != null) {
			// runuser does not pass a kill on: the server is its child
			process.descendants().forEach(ProcessHandle::destroyForcibly);
			process.destroyForcibly();
		}
		try {
			FileSystemUtils.deleteRecursively(this.directory);
		}
		catch (IOException ex) {
			// the temporary directory stays
		}
	}

	/**
	 * Runs a command to its end, as the package's user when run as root.
	 */
	final void run(String... command) {
		Process process = start(command);
		try {
			if (!process.waitFor(90, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " did not finish within 90 seconds");
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue() + ": "
						+ Files.readString(this.directory.resolve("commands.log")));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Starts a server in the foreground and waits until its port answers.
	 */
	final void serve(String... command) {
		this.process = start(command);
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (System.nanoTime() < deadline) {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", this.port), 200);
				return;
			}
			catch (IOException ex) {
				if (!this.process.isAlive()) {
					break;
				}
				try {
					Thread.sleep(100);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(interrupted);
				}
			}
		}
		throw new IllegalStateException(String.join(" ", command) + " did not listen on port " + this.port
				+ "; its log is in " + this.directory);
	}

	private Process start(String... command) {
		List<String> line = new ArrayList<>();
		if (this.root) {
			line.addAll(List.of("runuser", "-u", this.user, "--"));
		}
		line.addAll(List.of(command));
		try {
			return new ProcessBuilder(line).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.directory.resolve("commands.log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The directory holding all the programs, from the {@code PATH} or else the first of the
	 * given directories that holds them; skips the test when none does (fails it on CI).
	 */
	static Path binaries(String install, List<Path> candidates, String... programs) {
		List<Path> directories = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				directories.add(Path.of(directory));
			}
		}
		directories.addAll(candidates);
		for (Path directory : directories) {
			if (List.of(programs).stream().allMatch((program) -> Files.isExecutable(directory.resolve(program)))) {
				try {
					// Debian links them from /usr/local/bin or wraps them: the real directory
					return directory.resolve(programs[0]).toRealPath().getParent();
				}
				catch (IOException ex) {
					return directory;
				}
			}
		}
		String message = String.join(", ", programs) + " are neither on the PATH nor in " + candidates
				+ "; .ci/run installs them (apt-get install " + install + ")";
		if (System.getenv("CI") != null) {
			throw new IllegalStateException(message);
		}
		Assumptions.abort(message);
		throw new IllegalStateException(message);
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
