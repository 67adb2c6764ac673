package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.listener.InterceptedOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link DelayedJobTemplate} in a Spring-managed transaction (a real one, on an H2 database):
 * its writes reach Redis after the commit, in order, and never after a rollback.
 */
class DelayedJobTemplateTransactionTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private final EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
		.generateUniqueName(true)
		.build();

	private final TransactionTemplate transactions = new TransactionTemplate(
			new DataSourceTransactionManager(this.database));

	private final JdbcTemplate jdbc = new JdbcTemplate(this.database);

	private RedisDelayQueue queue;

	private DelayedJobTemplate template;

	@AfterEach
	void close() {
		if (this.template != null) {
			this.template.close();
		}
		this.database.shutdown();
	}

	private DelayedJobTemplate template(io.github.delayqueue.core.DelayQueueOperations operations) {
		this.template = new DelayedJobTemplate(operations, new JacksonJobPayloadConverter(JsonMapper.builder().build()));
		return this.template;
	}

	private DelayedJobTemplate template() {
		this.queue = this.queues.start();
		return template(this.queue);
	}

	@Test
	void aScheduleInATransactionIsWrittenAfterTheCommitAndNotBefore() {
		DelayedJobTemplate template = template();
		this.jdbc.execute("CREATE TABLE orders (id VARCHAR(20) PRIMARY KEY)");
		AtomicReference<ScheduleResult> inside = new AtomicReference<>();
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("INSERT INTO orders VALUES ('o-1')");
			assertThat(template.schedule("order-close", "o-1", Map.of("order", "o-1"), Duration.ofMinutes(30))).isTrue();
			inside.set(template.job("order-close", "o-2").payload("p").delay(Duration.ZERO).schedule());
			// nothing in Redis while the transaction runs: a listener cannot see an uncommitted order
			assertThat(this.queue.find("order-close", "o-1")).isEmpty();
			assertThat(this.queue.find("order-close", "o-2")).isEmpty();
		});
		assertThat(inside.get()).isSameAs(ScheduleResult.AFTER_COMMIT);
		assertThat(inside.get().afterCommit()).isTrue();
		assertThat(inside.get().created()).isTrue();
		assertThat(this.queue.find("order-close", "o-1").orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(this.queue.find("order-close", "o-2").orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class)).isOne();
	}

	@Test
	void aRollbackDiscardsEveryWriteOfTheTransaction() {
		DelayedJobTemplate template = template();
		template.schedule("order-close", "kept", "p", Duration.ofMinutes(5));
		this.transactions.executeWithoutResult((status) -> {
			template.schedule("order-close", "o-1", "p", Duration.ofMinutes(30));
			template.scheduleAll(List.of(template.job("order-close", "o-2").payload("p").delay(Duration.ZERO)));
			template.cancel("order-close", "kept");
			template.reschedule("order-close", "kept", Duration.ofHours(1));
			status.setRollbackOnly();
		});
		assertThat(this.queue.find("order-close", "o-1")).isEmpty();
		assertThat(this.queue.find("order-close", "o-2")).isEmpty();
		assertThat(this.queue.find("order-close", "kept").orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(this.queue.stats().topics().get("order-close").delayed()).isOne();
	}

	@Test
	void anExceptionThatRollsBackDiscardsTheWrites() {
		DelayedJobTemplate template = template();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.transactions.executeWithoutResult((status) -> {
				template.schedule("order-close", "o-1", "p", Duration.ofMinutes(30));
				throw new IllegalStateException("payment provider said no");
			}));
		assertThat(this.queue.find("order-close", "o-1")).isEmpty();
	}

	@Test
	void writesApplyInTheOrderTheyWereMade() {
		DelayedJobTemplate template = template();
		this.transactions.executeWithoutResult((status) -> {
			// scheduled, then cancelled: gone
			template.schedule("t", "scheduled-then-cancelled", "p", Duration.ofMinutes(5));
			assertThat(template.cancel("t", "scheduled-then-cancelled")).isTrue();
			// cancelled (nothing there yet), then scheduled: there
			template.cancel("t", "cancelled-then-scheduled");
			template.schedule("t", "cancelled-then-scheduled", "p", Duration.ofMinutes(5));
			// scheduled, then rescheduled to a due time
			template.schedule("t", "rescheduled", "p", Duration.ofMinutes(5));
			assertThat(template.rescheduleAt("t", "rescheduled", Instant.parse("2100-01-01T00:00:00Z")))
				.isEqualTo(RescheduleResult.AFTER_COMMIT);
		});
		assertThat(this.queue.find("t", "scheduled-then-cancelled")).isEmpty();
		assertThat(this.queue.find("t", "cancelled-then-scheduled")).isPresent();
		assertThat(this.queue.find("t", "rescheduled").orElseThrow().dueAt())
			.isEqualTo(Instant.parse("2100-01-01T00:00:00Z"));
	}

	@Test
	void anInnerTransactionOfItsOwnCommitsItsWritesWhateverTheOuterOneDoes() {
		DelayedJobTemplate template = template();
		TransactionTemplate requiresNew = new TransactionTemplate(this.transactions.getTransactionManager());
		requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.transactions.executeWithoutResult((outer) -> {
			template.schedule("t", "outer", "p", Duration.ofMinutes(5));
			requiresNew.executeWithoutResult((inner) -> template.schedule("t", "inner", "p", Duration.ofMinutes(5)));
			// the inner one committed: its job is there, the outer one's not yet
			assertThat(this.queue.find("t", "inner")).isPresent();
			assertThat(this.queue.find("t", "outer")).isEmpty();
			outer.setRollbackOnly();
		});
		assertThat(this.queue.find("t", "outer")).isEmpty();
		assertThat(this.queue.find("t", "inner")).isPresent();
	}

	@Test
	void anAsynchronousScheduleCompletesAfterTheCommitAndIsCancelledByARollback() {
		DelayedJobTemplate template = template();
		AtomicReference<CompletableFuture<ScheduleResult>> committed = new AtomicReference<>();
		this.transactions.executeWithoutResult((status) -> {
			committed.set(template.job("t", "async").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync());
			assertThat(committed.get()).isNotDone();
		});
		ScheduleResult result = committed.get().join();
		assertThat(result.created()).isTrue();
		assertThat(result.state()).isEqualTo(JobState.DELAYED);
		assertThat(result.afterCommit()).isFalse();

		AtomicReference<CompletableFuture<ScheduleResult>> rolledBack = new AtomicReference<>();
		this.transactions.executeWithoutResult((status) -> {
			rolledBack.set(template.job("t", "async-2").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync());
			status.setRollbackOnly();
		});
		assertThat(rolledBack.get()).isCancelled();
		assertThatExceptionOfType(CancellationException.class).isThrownBy(() -> rolledBack.get().join());
		assertThat(this.queue.find("t", "async-2")).isEmpty();
	}

	// observed, the future the caller gets is the observation's: a rollback must still cancel it
	@Test
	void anObservedAsynchronousScheduleIsCancelledByARollbackToo() {
		DelayedJobTemplate template = template();
		io.micrometer.observation.tck.TestObservationRegistry registry = io.micrometer.observation.tck.TestObservationRegistry
			.create();
		template.setObservationRegistry(registry);
		AtomicReference<CompletableFuture<ScheduleResult>> rolledBack = new AtomicReference<>();
		this.transactions.executeWithoutResult((status) -> {
			rolledBack.set(template.job("t", "observed").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync());
			status.setRollbackOnly();
		});
		assertThat(rolledBack.get()).isCancelled();
		assertThatExceptionOfType(CancellationException.class).isThrownBy(() -> rolledBack.get().join());
		assertThat(this.queue.find("t", "observed")).isEmpty();
		io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat(registry)
			.hasSingleObservationThat()
			.hasLowCardinalityKeyValue("delayqueue.outcome", "rolled-back")
			.hasBeenStopped();
	}

	@Test
	void badInputInATransactionFailsAtTheCallAndTheOtherWritesStand() {
		DelayedJobTemplate template = template();
		this.transactions.executeWithoutResult((status) -> {
			template.schedule("t", "good", "p", Duration.ofMinutes(5));
			assertThatIllegalArgumentException().isThrownBy(() -> template.schedule("t", "", "p", Duration.ZERO))
				.withMessageContaining("id");
			assertThatIllegalArgumentException().isThrownBy(() -> template.cancel("bad topic!", "x"))
				.withMessageContaining("topic");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> template.reschedule("t", "good", Duration.ofDays(365 * 200)))
				.withMessageContaining("delay");
		});
		assertThat(this.queue.find("t", "good")).isPresent();
		assertThat(this.queue.stats().topics().get("t").delayed()).isOne();
	}

	@Test
	void withAfterCommitOffATransactionWritesAtOnce() {
		DelayedJobTemplate template = template();
		template.setAfterCommit(false);
		assertThat(template.isAfterCommit()).isFalse();
		this.transactions.executeWithoutResult((status) -> {
			ScheduleResult result = template.job("t", "now").payload("p").delay(Duration.ofMinutes(5)).schedule();
			assertThat(result.afterCommit()).isFalse();
			assertThat(this.queue.find("t", "now")).isPresent();
			status.setRollbackOnly();
		});
		assertThat(this.queue.find("t", "now")).isPresent();
	}

	@Test
	void outsideATransactionEveryCallWritesAtOnce() {
		DelayedJobTemplate template = template();
		ScheduleResult result = template.job("t", "now").payload("p").delay(Duration.ofMinutes(5)).schedule();
		assertThat(result.created()).isTrue();
		assertThat(result.state()).isEqualTo(JobState.DELAYED);
		assertThat(template.cancel("t", "now")).isTrue();
		assertThat(template.cancel("t", "now")).isFalse();
		assertThat(template.reschedule("t", "now", Duration.ZERO)).isEqualTo(RescheduleResult.NOT_FOUND);
	}

	@Test
	void aWriteThatFailsAfterTheCommitThrowsToTheCommitterAndFailsTheWaitingFutures() {
		this.queue = this.queues.start();
		InterceptedOperations operations = new InterceptedOperations(this.queue);
		operations.intercept("scheduleAll", (args, invocation) -> {
			throw new DelayQueueConnectionException("Redis is down", null);
		});
		DelayedJobTemplate template = template(operations.operations());
		AtomicReference<CompletableFuture<ScheduleResult>> future = new AtomicReference<>();
		assertThatExceptionOfType(DelayQueueConnectionException.class)
			.isThrownBy(() -> this.transactions.executeWithoutResult((status) -> {
				this.jdbc.execute("CREATE TABLE committed (id INT)");
				future.set(template.job("t", "lost").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync());
			}));
		// the database work is committed; the job is not in Redis, and the caller knows it
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM committed", Integer.class)).isZero();
		assertThat(future.get()).isCompletedExceptionally();
		assertThat(this.queue.find("t", "lost")).isEmpty();
	}

	@Test
	void aScheduleMadeInAnotherSynchronizationsAfterCommitIsWritten() {
		DelayedJobTemplate template = template();
		// as @TransactionalEventListener(phase = AFTER_COMMIT) methods do: once with the template
		// used in the transaction before, once without
		for (boolean usedBefore : new boolean[] { true, false }) {
			String id = "after-commit-" + usedBefore;
			this.transactions.executeWithoutResult((status) -> {
				if (usedBefore) {
					template.schedule("t", "before-" + id, "p", Duration.ofMinutes(5));
				}
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void afterCommit() {
						assertThat(template.schedule("t", id, "p", Duration.ofMinutes(5))).isTrue();
					}

				});
			});
			assertThat(this.queue.find("t", id)).as(id).isPresent();
		}
	}

	@Test
	void aRolledBackSavepointDiscardsTheWritesMadeAfterIt() {
		DelayedJobTemplate template = template();
		AtomicReference<CompletableFuture<ScheduleResult>> discarded = new AtomicReference<>();
		this.transactions.executeWithoutResult((status) -> {
			template.schedule("t", "kept", "p", Duration.ofMinutes(5));
			Object savepoint = status.createSavepoint();
			discarded.set(template.job("t", "discarded").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync());
			template.cancel("t", "kept");
			status.rollbackToSavepoint(savepoint);
		});
		assertThat(this.queue.find("t", "kept")).isPresent();
		assertThat(this.queue.find("t", "discarded")).isEmpty();
		assertThat(discarded.get()).isCancelled();
	}

	@Test
	void aPayloadOverTheSizeLimitFailsAtTheCallAndTheOtherWritesStand() {
		this.queue = this.queues.start((builder) -> builder.maxPayloadSize(DataSize.ofBytes(200)));
		DelayedJobTemplate template = template(this.queue);
		this.transactions.executeWithoutResult((status) -> {
			template.schedule("t", "good", "p", Duration.ofMinutes(5));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> template.schedule("t", "big", "x".repeat(500), Duration.ofMinutes(5)))
				.withMessageContaining("delayqueue.max-payload-size");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> template.scheduleAll(List.of(template.job("t", "big-2").payload("x".repeat(500))
					.delay(Duration.ZERO))))
				.withMessageContaining("delayqueue.max-payload-size");
		});
		assertThat(this.queue.find("t", "good")).isPresent();
		assertThat(this.queue.find("t", "big")).isEmpty();
	}

	@Test
	void aCancelInAnAfterCommitCallbackComesAfterTheTransactionsSchedule() {
		DelayedJobTemplate template = template();
		this.transactions.executeWithoutResult((status) -> {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					// registered before the template's first write, and still after its writes
					template.cancel("t", "x");
				}

			});
			template.schedule("t", "x", "p", Duration.ofMinutes(5));
		});
		assertThat(this.queue.find("t", "x")).isEmpty();
	}

	@Test
	void aSavepointRolledBackToTwiceKeepsTheWritesBeforeIt() {
		DelayedJobTemplate template = template();
		this.transactions.executeWithoutResult((status) -> {
			template.schedule("t", "a", "p", Duration.ofMinutes(5));
			Object savepoint = status.createSavepoint();
			template.schedule("t", "b", "p", Duration.ofMinutes(5));
			status.rollbackToSavepoint(savepoint);
			template.schedule("t", "c", "p", Duration.ofMinutes(5));
			status.rollbackToSavepoint(savepoint);
		});
		assertThat(this.queue.find("t", "a")).isPresent();
		assertThat(this.queue.find("t", "b")).isEmpty();
		assertThat(this.queue.find("t", "c")).isEmpty();
	}

	@Test
	void whatAFuturesCallbackWritesComesAfterTheTransactionsWrites() {
		DelayedJobTemplate template = template();
		this.transactions.executeWithoutResult((status) -> {
			template.job("t", "a").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync()
				.thenRun(() -> template.cancel("t", "b"));
			template.cancel("t", "x");
			template.schedule("t", "b", "p", Duration.ofMinutes(5));
		});
		assertThat(this.queue.find("t", "a")).isPresent();
		assertThat(this.queue.find("t", "b")).isEmpty();
	}

}
