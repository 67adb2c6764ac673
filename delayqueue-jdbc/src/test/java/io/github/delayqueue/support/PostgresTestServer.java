package io.github.delayqueue.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * PostgreSQL for the outbox tests, from Debian's {@code postgresql} package ({@code initdb}
 * and {@code pg_ctl} on the {@code PATH} or in {@code /usr/lib/postgresql/<version>/bin}): a
 * cluster of its own trusting user {@code test}, as {@link LocalDatabaseServer} runs it.
 */
public final class PostgresTestServer extends LocalDatabaseServer {

	private static final Logger logger = LoggerFactory.getLogger(PostgresTestServer.class);

	private static PostgresTestServer shared;

	private final Path bin;

	private PostgresTestServer(Path bin) {
		super("postgres", "postgres");
		this.bin = bin;
	}

	/**
	 * The shared server, started on first use.
	 * @return the server
	 */
	public static synchronized PostgresTestServer shared() {
		if (shared == null) {
			Path bin = binaries("postgresql", versions(Path.of("/usr/lib/postgresql")), "initdb", "pg_ctl");
			PostgresTestServer server = new PostgresTestServer(bin);
			Path data = server.directory().resolve("data");
			server.run(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "test", "--auth=trust", "-E",
					"UTF8", "--no-sync");
			server.run(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
					server.directory().resolve("server.log").toString(), "-w", "-t", "60", "-o",
					"-p " + server.port() + " -k " + server.directory()
							+ " -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
							+ " -c full_page_writes=off",
					"start");
			shared = server;
			logger.info("Outbox tests use PostgreSQL from {} on port {}", bin, server.port());
		}
		return shared;
	}

	@Override
	public DataSource dataSource() {
		return new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:" + port() + "/postgres", "test", "");
	}

	@Override
	void stop() {
		run(this.bin.resolve("pg_ctl").toString(), "-D", directory().resolve("data").toString(), "-m", "immediate",
				"stop");
	}

	private static List<Path> versions(Path debian) {
		if (!Files.isDirectory(debian)) {
			return List.of();
		}
		try (Stream<Path> versions = Files.list(debian)) {
			return versions.map((version) -> version.resolve("bin")).sorted(Comparator.reverseOrder()).toList();
		}
		catch (IOException ex) {
			return List.of();
		}
	}

}
