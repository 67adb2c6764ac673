package io.github.delayqueue.redis;

import javax.sql.DataSource;

import io.github.delayqueue.support.MariaDbTestServer;

/**
 * The outbox on MariaDB from Debian's packages ({@link MariaDbTestServer}), with the shipped
 * {@code schema-mysql.sql}, which the auto-configuration runs for MariaDB too.
 */
class JdbcJobOutboxMariaDbTests extends AbstractJdbcJobOutboxTests {

	@Override
	DataSource createDataSource() {
		return MariaDbTestServer.shared().dataSource();
	}

	@Override
	String platform() {
		return "mysql";
	}

}
