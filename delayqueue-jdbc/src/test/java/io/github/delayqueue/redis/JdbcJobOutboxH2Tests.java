package io.github.delayqueue.redis;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

/**
 * The outbox on an embedded H2 database, with the shipped {@code schema-h2.sql}.
 */
class JdbcJobOutboxH2Tests extends AbstractJdbcJobOutboxTests {

	private EmbeddedDatabase database;

	@Override
	DataSource createDataSource() {
		this.database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
		return this.database;
	}

	@Override
	String platform() {
		return "h2";
	}

	@AfterEach
	void shutdown() {
		this.database.shutdown();
	}

}
