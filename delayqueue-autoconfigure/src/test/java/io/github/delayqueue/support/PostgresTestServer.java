package io.github.delayqueue.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.util.FileSystemUtils;

/**
 * A PostgreSQL server for the outbox tests, from Debian's {@code postgresql} package (found
 * on the {@code PATH} or in {@code /usr/lib/postgresql/<version>/bin}; {@code .ci/run}
 * installs it): a cluster of its own in a temporary directory, on a free port of 127.0.0.1,
 * trusting user {@code test}, started once per JVM and stopped when it exits. Run as root,
 * the server runs as the package's {@code postgres} user, as PostgreSQL requires. Without
 * the package the test is skipped, saying what to install, except on CI ({@code CI} set),
 * where it fails.
 */
public final class PostgresTestServer {

	private static final Logger logger = LoggerFactory.getLogger(PostgresTestServer.class);

	private static PostgresTestServer shared;

	private final Path bin;

	private final Path directory;

	private final int port;

	private final List<String> runAs;

	private PostgresTestServer(Path bin) throws IOException {
		this.bin = bin;
		this.directory = Files.createTempDirectory("delayqueue-postgres");
		this.port = freePort();
		boolean root = "root".equals(System.getProperty("user.name"));
		this.runAs = root ? List.of("runuser", "-u", "postgres", "--") : List.of();
		if (root) {
			UserPrincipal postgres = this.directory.getFileSystem()
				.getUserPrincipalLookupService()
				.lookupPrincipalByName("postgres");
			Files.setOwner(this.directory, postgres);
		}
	}

	/**
	 * The shared server, started on first use.
	 * @return the server
	 */
	public static synchronized PostgresTestServer shared() {
		if (shared == null) {
			Path bin = binaries();
			if (bin == null) {
				String message = "PostgreSQL (initdb, pg_ctl) is neither on the PATH nor in /usr/lib/postgresql/*/bin;"
						+ " .ci/run installs it (apt-get install postgresql)";
				if (System.getenv("CI") != null) {
					throw new IllegalStateException(message);
				}
				Assumptions.abort(message);
			}
			try {
				PostgresTestServer server = new PostgresTestServer(bin);
				server.start();
				Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "delayqueue-test-postgres-shutdown"));
				shared = server;
				logger.info("Outbox tests use PostgreSQL from {} on port {}", bin, server.port);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return shared;
	}

	/**
	 * A data source of the server's {@code postgres} database.
	 * @return the data source
	 */
	public DataSource dataSource() {
		return new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:" + this.port + "/postgres", "test", "");
	}

	private void start() {
		Path data = this.directory.resolve("data");
		run(this.bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "test", "--auth=trust", "-E", "UTF8",
				"--no-sync");
		run(this.bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
				this.directory.resolve("server.log").toString(), "-w", "-t", "60", "-o",
				"-p " + this.port + " -k " + this.directory + " -c listen_addresses=127.0.0.1 -c fsync=off"
						+ " -c synchronous_commit=off -c full_page_writes=off",
				"start");
	}

	private void stop() {
		try {
			run(this.bin.resolve("pg_ctl").toString(), "-D", this.directory.resolve("data").toString(), "-m",
					"immediate", "stop");
		}
		catch (RuntimeException ex) {
			logger.warn("Could not stop PostgreSQL in {}", this.directory, ex);
		}
		try {
			FileSystemUtils.deleteRecursively(this.directory);
		}
		catch (IOException ex) {
			// the temporary directory stays
		}
	}

	private void run(String... command) {
		List<String> line = new ArrayList<>(this.runAs);
		line.addAll(List.of(command));
		ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.directory.resolve("commands.log").toFile()));
		try {
			Process process = builder.start();
			if (!process.waitFor(90, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", line) + " did not finish within 90 seconds");
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", line) + " exited with " + process.exitValue() + ": "
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

	private static Path binaries() {
		String path = System.getenv("PATH");
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				Path initdb = Path.of(directory, "initdb");
				if (Files.isExecutable(initdb) && Files.isExecutable(Path.of(directory, "pg_ctl"))) {
					// Debian links them from /usr/local/bin or wraps them: the real directory
					try {
						return initdb.toRealPath().getParent();
					}
					catch (IOException ex) {
						return Path.of(directory);
					}
				}
			}
		}
		Path debian = Path.of("/usr/lib/postgresql");
		if (Files.isDirectory(debian)) {
			try (var versions = Files.list(debian)) {
				return versions.map((version) -> version.resolve("bin"))
					.filter((bin) -> Files.isExecutable(bin.resolve("initdb")))
					.max(Path::compareTo)
					.orElse(null);
			}
			catch (IOException ex) {
				return null;
			}
		}
		return null;
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
