package io.github.delayqueue.redis;

import javax.sql.DataSource;

import io.github.delayqueue.support.PostgresTestServer;

/**
 * The outbox on PostgreSQL from Debian's packages ({@link PostgresTestServer}), with the
 * shipped {@code schema-postgresql.sql}.
 */
class JdbcJobOutboxPostgresTests extends AbstractJdbcJobOutboxTests {

	@Override
	DataSource createDataSource() {
		return PostgresTestServer.shared().dataSource();
	}

	@Override
	String platform() {
		return "postgresql";
	}

}
