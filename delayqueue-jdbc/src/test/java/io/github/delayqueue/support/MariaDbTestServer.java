package io.github.delayqueue.support;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * MariaDB for the outbox tests (its MySQL schema's twin), from Debian's
 * {@code mariadb-server} package ({@code mariadb-install-db} and {@code mariadbd} on the
 * {@code PATH} or in {@code /usr/bin} and {@code /usr/sbin}): a data directory of its own
 * with a database {@code delayqueue}, as {@link LocalDatabaseServer} runs it.
 */
public final class MariaDbTestServer extends LocalDatabaseServer {

	private static final Logger logger = LoggerFactory.getLogger(MariaDbTestServer.class);

	private static MariaDbTestServer shared;

	private MariaDbTestServer() {
		super("mariadb", "mysql");
	}

	/**
	 * The shared server, started on first use.
	 * @return the server
	 */
	public static synchronized MariaDbTestServer shared() {
		if (shared == null) {
			Path install = binaries("mariadb-server", List.of(Path.of("/usr/bin")), "mariadb-install-db");
			Path server = binaries("mariadb-server", List.of(Path.of("/usr/sbin")), "mariadbd");
			MariaDbTestServer mariadb = new MariaDbTestServer();
			String data = mariadb.directory().resolve("data").toString();
			mariadb.run(install.resolve("mariadb-install-db").toString(), "--no-defaults", "--datadir=" + data,
					"--auth-root-authentication-method=normal", "--skip-test-db");
			mariadb.serve(server.resolve("mariadbd").toString(), "--no-defaults", "--datadir=" + data,
					"--port=" + mariadb.port(), "--bind-address=127.0.0.1",
					"--socket=" + mariadb.directory().resolve("mariadb.sock"), "--skip-grant-tables",
					"--innodb-flush-log-at-trx-commit=0", "--skip-log-bin");
			try (Connection connection = new DriverManagerDataSource(
					"jdbc:mariadb://127.0.0.1:" + mariadb.port() + "/", "root", "").getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("CREATE DATABASE IF NOT EXISTS delayqueue");
			}
			catch (SQLException ex) {
				throw new IllegalStateException("MariaDB in " + mariadb.directory() + " refused the database", ex);
			}
			shared = mariadb;
			logger.info("Outbox tests use MariaDB from {} on port {}", server, mariadb.port());
		}
		return shared;
	}

	@Override
	public DataSource dataSource() {
		return new DriverManagerDataSource("jdbc:mariadb://127.0.0.1:" + port() + "/delayqueue", "root", "");
	}

	@Override
	void stop() {
		// killed with its process when the JVM exits: its data is thrown away
	}

}
