package io.github.delayqueue.outbox;

import java.time.Duration;
import java.util.Map;

import javax.sql.DataSource;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobOutbox;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.boot.jdbc.init.PropertiesBasedDataSourceScriptDatabaseInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of the transactional outbox, on with {@code delayqueue.outbox.enabled}:
 * a {@link JdbcJobOutbox} on the application's {@link DataSource}, which the auto-configured
 * template stores its transaction's writes in, the table's schema (for an embedded database
 * unless {@code delayqueue.outbox.initialize-schema} says otherwise) and the recovery pass.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ JdbcTemplate.class, PropertiesBasedDataSourceScriptDatabaseInitializer.class })
@ConditionalOnBooleanProperty("delayqueue.outbox.enabled")
@ConditionalOnSingleCandidate(DataSource.class)
@ImportRuntimeHints(DelayQueueOutboxAutoConfiguration.OutboxRuntimeHints.class)
public final class DelayQueueOutboxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(JobOutbox.class)
	JdbcJobOutbox delayQueueOutbox(DataSource dataSource, DelayQueueOutboxProperties properties) {
		positive("delayqueue.outbox.stranded-after", properties.getStrandedAfter(), false);
		positive("delayqueue.outbox.claim-for", properties.getClaimFor(), false);
		positive("delayqueue.outbox.recovery-interval", properties.getRecoveryInterval(), false);
		JdbcJobOutbox outbox = new JdbcJobOutbox(dataSource);
		outbox.setStrandedAfter(properties.getStrandedAfter());
		outbox.setClaimFor(properties.getClaimFor());
		return outbox;
	}

	@Bean
	@ConditionalOnMissingBean(name = "delayQueueOutboxSchemaInitializer")
	PropertiesBasedDataSourceScriptDatabaseInitializer<DelayQueueOutboxProperties> delayQueueOutboxSchemaInitializer(
			DataSource dataSource, DelayQueueOutboxProperties properties) {
		// MariaDB runs the MySQL script
		return new PropertiesBasedDataSourceScriptDatabaseInitializer<>(dataSource, properties,
				Map.of(DatabaseDriver.MARIADB, "mysql"));
	}

	@Bean
	@ConditionalOnBean({ JdbcJobOutbox.class, DelayQueueOperations.class })
	JobOutboxRecovery delayQueueOutboxRecovery(JdbcJobOutbox outbox, DelayQueueOperations operations,
			DelayQueueOutboxProperties properties) {
		return new JobOutboxRecovery(outbox, operations, properties.getRecoveryInterval());
	}

	private static void positive(String property, Duration value, boolean zeroAllowed) {
		if (value == null || value.isNegative() || (!zeroAllowed && value.isZero())) {
			throw new IllegalArgumentException(property + " must be " + (zeroAllowed ? "zero or " : "") + "positive, was "
					+ value);
		}
	}

	/** The shipped schemas, read by the schema initializer. */
	static class OutboxRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			hints.resources().registerPattern(JdbcJobOutbox.class.getPackageName().replace('.', '/') + "/schema-*.sql");
		}

	}

}
