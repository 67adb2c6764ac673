package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.outbox.DelayQueueOutboxAutoConfiguration;
import io.github.delayqueue.outbox.DelayQueueOutboxPropertiesAutoConfiguration;
import io.github.delayqueue.outbox.JdbcJobOutbox;
import io.github.delayqueue.outbox.JobOutboxRecovery;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox's auto-configuration with Spring Boot's JDBC and transaction auto-configuration
 * on an embedded H2 database.
 */
@ExtendWith(RedisTestExtension.class)
class DelayQueueOutboxAutoConfigurationTests {

	private ApplicationContextRunner runner;

	private String namespace;

	private RedisTestServer redis;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.redis = redis;
		this.namespace = "outbox" + System.nanoTime();
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayQueueOutboxAutoConfiguration.class,
					DelayQueueOutboxPropertiesAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					TransactionAutoConfiguration.class))
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=" + this.namespace, "spring.datasource.generate-unique-name=true");
	}

	@Test
	void offByDefault() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(JdbcJobOutbox.class);
			assertThat(context).doesNotHaveBean(JobOutboxRecovery.class);
			assertThat(context.getBean(DelayedJobTemplate.class).isAfterCommit()).isTrue();
		});
	}

	@Test
	void enabledItCreatesTheTableOfAnEmbeddedDatabaseAndTheTemplateStoresItsTransactionsWritesThere() {
		this.runner.withPropertyValues("delayqueue.outbox.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(JdbcJobOutbox.class);
			assertThat(context).hasSingleBean(JobOutboxRecovery.class);
			assertThat(context.getBean(JobOutboxRecovery.class).isRunning()).isTrue();
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
			AtomicLong rows = new AtomicLong(-1);
			context.getBean(TransactionTemplate.class).executeWithoutResult((status) -> {
				template.schedule("order-close", "o-1", "p", Duration.ofMinutes(30));
				// stored just before the commit
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void afterCommit() {
						rows.set(jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class));
					}

				});
			});
			assertThat(rows).hasValue(1);
			assertThat(template.find("order-close", "o-1").orElseThrow().state()).isEqualTo(JobState.DELAYED);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox",
						Long.class))
					.isZero());
		});
		QueueInvariant.assertHolds(this.redis, this.namespace);
	}

	@Test
	void initializeSchemaNeverLeavesTheTableToTheApplication() {
		this.runner.withPropertyValues("delayqueue.outbox.enabled=true", "delayqueue.outbox.initialize-schema=never")
			.run((context) -> assertThat(new JdbcTemplate(context.getBean(DataSource.class))
				.queryForObject("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'DELAYQUEUE_OUTBOX'",
						Long.class))
				.isZero());
	}

	@Test
	void enabledWithoutADataSourceFailsStartUpSayingWhy() {
		this.runner.withClassLoader(new FilteredClassLoader("org.h2", "com.zaxxer", "org.postgresql"))
			.withPropertyValues("delayqueue.outbox.enabled=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.outbox.enabled=true needs spring-jdbc on the class path and a single"
						+ " DataSource bean"));
	}

	@Test
	void aMisspeltPropertyFailsStartUpAlsoWhileTheOutboxIsOff() {
		for (String setting : List.of("delayqueue.outbox.enabeld=true", "delayqueue.outbox.recovery-intervall=5s")) {
			this.runner.withPropertyValues(setting)
				.run((context) -> assertThat(context).as(setting)
					.getFailure()
					.rootCause()
					.hasMessageContaining(setting.substring(0, setting.indexOf('='))));
		}
	}

	@Test
	void aBadDurationNamesTheProperty() {
		this.runner.withPropertyValues("delayqueue.outbox.enabled=true", "delayqueue.outbox.recovery-interval=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.outbox.recovery-interval must be positive"));
	}

	@Test
	void afterCommitCanBeSwitchedOff() {
		this.runner.withPropertyValues("delayqueue.template.after-commit=false")
			.run((context) -> assertThat(context.getBean(DelayedJobTemplate.class).isAfterCommit()).isFalse());
	}

	@Test
	void aPoolOfOneConnectionRelaysAndDeletesWithoutWaitingForASecond() {
		this.runner
			.withPropertyValues("delayqueue.outbox.enabled=true", "spring.datasource.hikari.maximum-pool-size=1",
					"spring.datasource.hikari.connection-timeout=250")
			.run((context) -> {
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
				for (int i = 0; i < 5; i++) {
					String id = "o-" + i;
					transactions.executeWithoutResult(
							(status) -> template.schedule("order-close", id, "p", Duration.ofMinutes(30)));
				}
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				// the rows are deleted once the committing thread gave the connection back
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox",
							Long.class))
						.isZero());
				assertThat(template.find("order-close", "o-4")).isPresent();
			});
	}

}
