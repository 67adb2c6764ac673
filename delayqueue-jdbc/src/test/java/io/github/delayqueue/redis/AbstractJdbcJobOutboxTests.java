package io.github.delayqueue.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.listener.InterceptedOperations;
import io.github.delayqueue.outbox.JdbcJobOutbox;
import io.github.delayqueue.outbox.JobOutboxRecovery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link JdbcJobOutbox} on a real database and a real Redis: the rows of a transaction
 * commit with it, are relayed and deleted after the commit, and a transaction whose relay did
 * not happen is relayed by the recovery pass exactly once.
 */
abstract class AbstractJdbcJobOutboxTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private final AtomicLong now = new AtomicLong(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());

	private DataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private RedisDelayQueue queue;

	private InterceptedOperations operations;

	private JdbcJobOutbox outbox;

	private DelayedJobTemplate template;

	/** Makes the after-commit relay fail as a crash after the commit would leave it. */
	private volatile boolean relayFails;

	private final Map<String, AtomicInteger> scheduled = new ConcurrentHashMap<>();

	abstract DataSource createDataSource();

	abstract String platform();

	@BeforeEach
	void setUp() {
		this.dataSource = createDataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("DROP TABLE IF EXISTS " + JdbcJobOutbox.TABLE);
		this.jdbc.execute("DROP TABLE IF EXISTS orders");
		this.jdbc.execute("CREATE TABLE orders (id VARCHAR(20) PRIMARY KEY)");
		// the shipped schema, twice: a restart with initialize-schema=always runs it again
		for (int i = 0; i < 2; i++) {
			new ResourceDatabasePopulator(
					new ClassPathResource("io/github/delayqueue/outbox/schema-" + platform() + ".sql"))
				.execute(this.dataSource);
		}
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		this.queue = this.queues.start();
		this.operations = new InterceptedOperations(this.queue);
		this.operations.intercept("scheduleAll", (args, invocation) -> {
			if (this.relayFails) {
				throw new DelayQueueConnectionException("the process died after the commit", null);
			}
			@SuppressWarnings("unchecked")
			List<ScheduleRequest> requests = (List<ScheduleRequest>) args[0];
			requests.forEach((request) -> this.scheduled.computeIfAbsent(request.id(), (id) -> new AtomicInteger())
				.incrementAndGet());
			return invocation.proceed(args);
		});
		this.operations.intercept("schedule", (args, invocation) -> {
			if (this.relayFails) {
				throw new DelayQueueConnectionException("the process died after the commit", null);
			}
			this.scheduled.computeIfAbsent(((ScheduleRequest) args[0]).id(), (id) -> new AtomicInteger())
				.incrementAndGet();
			return invocation.proceed(args);
		});
		this.outbox = outbox();
		this.template = new DelayedJobTemplate(this.operations.operations(),
				new JacksonJobPayloadConverter(JsonMapper.builder().build()));
		this.template.setOutbox(this.outbox);
	}

	private JdbcJobOutbox outbox() {
		return new JdbcJobOutbox(this.dataSource, new Clock() {

			@Override
			public java.time.ZoneId getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(java.time.ZoneId zone) {
				return this;
			}

			@Override
			public Instant instant() {
				return Instant.ofEpochMilli(AbstractJdbcJobOutboxTests.this.now.get());
			}

		});
	}

	@AfterEach
	void tearDown() {
		// null when the set-up was skipped: the database server is not installed
		if (this.template != null) {
			this.template.close();
		}
	}

	private void placeOrder(String id, Duration closeIn) {
		long before = pending();
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("INSERT INTO orders VALUES (?)", id);
			this.template.job("order-close", id)
				.payload(Map.of("order", id))
				.delay(closeIn)
				.header("tenant", "acme")
				.priority(7)
				.maxAttempts(3)
				.ttr(Duration.ofSeconds(90))
				.schedule();
			assertThat(pending()).as("the row is written just before the commit").isEqualTo(before);
		});
		if (this.relayFails) {
			assertThat(pending()).as("the row committed with the order").isEqualTo(before + 1);
		}
	}

	private long pending() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + JdbcJobOutbox.TABLE, Long.class);
	}

	@Test
	void aCommittedScheduleIsRelayedAndItsRowDeleted() {
		placeOrder("o-1", Duration.ofMinutes(30));
		JobInfo job = this.queue.find("order-close", "o-1").orElseThrow();
		assertThat(job.state()).isEqualTo(JobState.DELAYED);
		assertThat(job.headers()).containsEntry("tenant", "acme");
		assertThat(job.priority()).isEqualTo(7);
		assertThat(job.maxAttempts()).isEqualTo(3);
		assertThat(job.payloadAsString()).isEqualTo("{\"order\":\"o-1\"}");
		// deleted by the outbox's own thread
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pending()).isZero());
		assertThat(this.outbox.pending()).isZero();
	}

	@Test
	void aRollbackLeavesNothingInRedisNorInTheOutbox() {
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("INSERT INTO orders VALUES ('o-1')");
			this.template.schedule("order-close", "o-1", "p", Duration.ofMinutes(30));
			this.template.cancel("order-close", "other");
			status.setRollbackOnly();
		});
		assertThat(this.queue.find("order-close", "o-1")).isEmpty();
		assertThat(pending()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class)).isZero();
	}

	@Test
	void aCrashBetweenTheCommitAndTheRelayIsRecoveredExactlyOnce() {
		this.relayFails = true;
		placeOrder("o-1", Duration.ofMinutes(30));
		this.transactions.executeWithoutResult((status) -> {
			this.template.schedule("order-close", "o-2", "p", Duration.ofMinutes(30));
			this.template.cancel("order-close", "o-2");
			this.template.schedule("order-close", "o-3", "p", Duration.ofMinutes(30));
		});
		this.relayFails = false;
		// committed, not in Redis: what a crash after the commit leaves
		assertThat(this.queue.find("order-close", "o-1")).isEmpty();
		assertThat(pending()).isEqualTo(4);
		// too recent for recovery: an after-commit relay may still be under way
		assertThat(this.outbox.recover(this.operations.operations())).isZero();
		// four minutes later (the rows' clock), past stranded-after: relayed, with the delay left
		this.now.addAndGet(Duration.ofMinutes(4).toMillis());
		long before = System.currentTimeMillis();
		assertThat(this.outbox.recover(this.operations.operations())).isEqualTo(2);
		JobInfo job = this.queue.find("order-close", "o-1").orElseThrow();
		assertThat(job.state()).isEqualTo(JobState.DELAYED);
		assertThat(job.dueAt().toEpochMilli() - before).isBetween(Duration.ofMinutes(25).toMillis(),
				Duration.ofMinutes(26).toMillis() + 1000);
		assertThat(job.headers()).containsEntry("tenant", "acme");
		assertThat(job.priority()).isEqualTo(7);
		// the second transaction's writes in their order: scheduled, cancelled, another scheduled
		assertThat(this.queue.find("order-close", "o-2")).isEmpty();
		assertThat(this.queue.find("order-close", "o-3")).isPresent();
		assertThat(pending()).isZero();
		// a second pass finds nothing: each job went into the queue once
		assertThat(this.outbox.recover(this.operations.operations())).isZero();
		assertThat(this.scheduled).containsOnlyKeys("o-1", "o-2", "o-3");
		assertThat(this.scheduled.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
	}

	@Test
	void concurrentRecoveriesRelayEachTransactionOnce() throws Exception {
		this.relayFails = true;
		for (int i = 0; i < 40; i++) {
			placeOrder("o-" + i, Duration.ofMinutes(30));
		}
		this.relayFails = false;
		this.now.addAndGet(Duration.ofMinutes(2).toMillis());
		CyclicBarrier start = new CyclicBarrier(3);
		List<CompletableFuture<Integer>> passes = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			JdbcJobOutbox instance = outbox();
			passes.add(CompletableFuture.supplyAsync(() -> {
				try {
					start.await();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
				return instance.recover(this.operations.operations());
			}));
		}
		int relayed = passes.stream().mapToInt(CompletableFuture::join).sum();
		assertThat(relayed).isEqualTo(40);
		assertThat(this.scheduled).hasSize(40);
		assertThat(this.scheduled.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
		assertThat(this.queue.stats().topics().get("order-close").delayed()).isEqualTo(40);
		assertThat(pending()).isZero();
	}

	@Test
	void aRecoveryThatFailsHalfWayKeepsTheRowsClaimedThenRelaysThemWhenTheClaimExpires() {
		this.relayFails = true;
		placeOrder("o-1", Duration.ofMinutes(30));
		this.now.addAndGet(Duration.ofMinutes(2).toMillis());
		assertThatExceptionOfType(DelayQueueConnectionException.class)
			.isThrownBy(() -> this.outbox.recover(this.operations.operations()));
		this.relayFails = false;
		// claimed by the pass that failed: another instance leaves it until the claim expires
		assertThat(outbox().recover(this.operations.operations())).isZero();
		this.now.addAndGet(Duration.ofMinutes(6).toMillis());
		assertThat(outbox().recover(this.operations.operations())).isOne();
		assertThat(this.queue.find("order-close", "o-1")).isPresent();
		assertThat(pending()).isZero();
	}

	@Test
	void theRecoveryLifecycleRelaysOnStart() {
		this.relayFails = true;
		placeOrder("o-1", Duration.ofMinutes(30));
		this.relayFails = false;
		this.outbox.setStrandedAfter(Duration.ofMillis(1));
		this.now.addAndGet(2);
		JobOutboxRecovery recovery = new JobOutboxRecovery(this.outbox, this.operations.operations(),
				Duration.ofMinutes(10));
		assertThat(recovery.recover()).isOne();
		assertThat(this.queue.find("order-close", "o-1")).isPresent();
	}

	@Test
	void anAsynchronousScheduleWhoseRelayFailsSaysItStaysInTheOutbox() {
		this.relayFails = true;
		List<CompletableFuture<ScheduleResult>> futures = new ArrayList<>();
		this.transactions.executeWithoutResult((status) -> futures
			.add(this.template.job("t", "async").payload("p").delay(Duration.ofMinutes(5)).scheduleAsync()));
		assertThat(futures.get(0)).isCompletedExceptionally();
		assertThat(futures.get(0).handle((result, failure) -> failure.getMessage()).join())
			.contains("stays in the outbox");
		assertThat(pending()).isOne();
	}

	@Test
	void badInputFailsInTheTransactionWithoutARow() {
		this.transactions.executeWithoutResult((status) -> {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.template.job("t", "x").payload("p").delay(Duration.ZERO).header("delayqueue_x", "1"));
			assertThatIllegalArgumentException().isThrownBy(() -> this.template.cancel("t", ""));
		});
		assertThat(pending()).isZero();
	}

	@Test
	void aTransactionOfAnotherResourceIsRefusedClearly() {
		EmbeddedDatabase other = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.build();
		TransactionTemplate elsewhere = new TransactionTemplate(new DataSourceTransactionManager(other));
		elsewhere.executeWithoutResult((status) -> assertThatIllegalStateException()
			.isThrownBy(() -> this.template.schedule("t", "x", "p", Duration.ZERO))
			.withMessageContaining("auto-commit")
			.withMessageContaining("job x of topic t"));
		other.shutdown();
		assertThat(pending()).isZero();
		assertThat(this.queue.find("t", "x")).isEmpty();
	}

	@Test
	void aLongTransactionIsStampedAtItsCommitSoRecoveryLeavesItToTheRelay() {
		this.relayFails = true;
		this.transactions.executeWithoutResult((status) -> {
			this.template.schedule("order-close", "slow", "p", Duration.ofMinutes(30));
			// the transaction runs for 10 minutes before it commits
			this.now.addAndGet(Duration.ofMinutes(10).toMillis());
		});
		this.relayFails = false;
		assertThat(this.outbox.recover(this.operations.operations())).isZero();
		this.now.addAndGet(Duration.ofMinutes(2).toMillis());
		assertThat(this.outbox.recover(this.operations.operations())).isOne();
	}

	@Test
	void aRolledBackSavepointDiscardsTheWritesMadeAfterIt() {
		this.transactions.executeWithoutResult((status) -> {
			this.template.schedule("order-close", "kept", "p", Duration.ofMinutes(30));
			Object savepoint = status.createSavepoint();
			this.template.schedule("order-close", "discarded", "p", Duration.ofMinutes(30));
			status.rollbackToSavepoint(savepoint);
			this.template.schedule("order-close", "after", "p", Duration.ofMinutes(30));
		});
		assertThat(this.queue.find("order-close", "kept")).isPresent();
		assertThat(this.queue.find("order-close", "discarded")).isEmpty();
		assertThat(this.queue.find("order-close", "after")).isPresent();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pending()).isZero());
	}

	@Test
	void aScheduleMadeAfterTheCommitByAnotherSynchronizationIsWrittenWithoutARowLeftBehind() {
		this.transactions.executeWithoutResult((status) -> {
			this.template.schedule("order-close", "in-transaction", "p", Duration.ofMinutes(30));
			org.springframework.transaction.support.TransactionSynchronizationManager
				.registerSynchronization(new org.springframework.transaction.support.TransactionSynchronization() {

					@Override
					public void afterCommit() {
						// as an @TransactionalEventListener(phase = AFTER_COMMIT) would
						AbstractJdbcJobOutboxTests.this.template.schedule("order-close", "after-commit", "p",
								Duration.ofMinutes(30));
					}

				});
		});
		assertThat(this.queue.find("order-close", "in-transaction")).isPresent();
		assertThat(this.queue.find("order-close", "after-commit")).isPresent();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pending()).isZero());
		this.now.addAndGet(Duration.ofMinutes(10).toMillis());
		assertThat(this.outbox.recover(this.operations.operations())).isZero();
		assertThat(this.scheduled.get("after-commit")).hasValue(1);
	}

	@Test
	void aReadOnlyTransactionIsRefusedClearly() {
		TransactionTemplate readOnly = new TransactionTemplate(this.transactions.getTransactionManager());
		readOnly.setReadOnly(true);
		readOnly.executeWithoutResult((status) -> assertThatIllegalStateException()
			.isThrownBy(() -> this.template.schedule("t", "x", "p", Duration.ZERO))
			.withMessageContaining("read-only transaction"));
		assertThat(pending()).isZero();
	}

	@Test
	void writesRefusedByRecoveryAreParkedAndTheOtherTransactionsGoOn() {
		this.relayFails = true;
		this.transactions.executeWithoutResult(
				(status) -> this.template.schedule("order-close", "big", "x".repeat(500), Duration.ofMinutes(30)));
		placeOrder("small", Duration.ofMinutes(30));
		this.relayFails = false;
		this.now.addAndGet(Duration.ofMinutes(2).toMillis());
		// an instance whose limit was lowered since
		RedisDelayQueue strict = this.queues.start((builder) -> builder.maxPayloadSize(DataSize.ofBytes(200)));
		assertThat(this.outbox.recover(strict)).isOne();
		assertThat(this.queue.find("order-close", "small")).isPresent();
		assertThat(this.queue.find("order-close", "big")).isEmpty();
		assertThat(pending()).as("parked, not lost").isOne();
		this.now.addAndGet(Duration.ofHours(1).toMillis());
		assertThat(this.outbox.recover(this.operations.operations())).isZero();
	}

	@Test
	void aPayloadOverTheLimitFailsAtTheCallInTheTransaction() {
		RedisDelayQueue strict = this.queues.start((builder) -> builder.maxPayloadSize(DataSize.ofBytes(200)));
		DelayedJobTemplate template = new DelayedJobTemplate(strict,
				new JacksonJobPayloadConverter(JsonMapper.builder().build()));
		template.setOutbox(this.outbox);
		this.transactions.executeWithoutResult((status) -> {
			template.schedule("order-close", "good", "p", Duration.ofMinutes(30));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> template.schedule("order-close", "big", "x".repeat(500), Duration.ofMinutes(30)))
				.withMessageContaining("delayqueue.max-payload-size");
		});
		assertThat(strict.find("order-close", "good")).isPresent();
		assertThat(strict.find("order-close", "big")).isEmpty();
		template.close();
	}

	private static void onAfterCommit(Runnable action) {
		org.springframework.transaction.support.TransactionSynchronizationManager
			.registerSynchronization(new org.springframework.transaction.support.TransactionSynchronization() {

				@Override
				public void afterCommit() {
					action.run();
				}

			});
	}

	@Test
	void anAfterCommitCallbackRegisteredBeforeTheTemplatesFirstWriteLeavesNoRowBehind() {
		this.transactions.executeWithoutResult((status) -> {
			// an event published before the first schedule: its listener's callback comes first
			onAfterCommit(() -> this.template.schedule("order-close", "from-listener", "p", Duration.ofMinutes(30)));
			this.template.schedule("order-close", "in-transaction", "p", Duration.ofMinutes(30));
		});
		assertThat(this.queue.find("order-close", "from-listener")).isPresent();
		assertThat(this.queue.find("order-close", "in-transaction")).isPresent();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pending()).isZero());
		this.now.addAndGet(Duration.ofMinutes(10).toMillis());
		assertThat(this.outbox.recover(this.operations.operations())).isZero();
		assertThat(this.scheduled.get("from-listener")).hasValue(1);
		assertThat(this.scheduled.get("in-transaction")).hasValue(1);
	}

	@Test
	void aCancelInAnAfterCommitCallbackComesAfterTheTransactionsSchedule() {
		this.transactions.executeWithoutResult((status) -> {
			this.template.schedule("order-close", "x", "p", Duration.ofMinutes(30));
			onAfterCommit(() -> this.template.cancel("order-close", "x"));
		});
		assertThat(this.queue.find("order-close", "x")).isEmpty();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pending()).isZero());
	}

	@Test
	void theTemplatesFirstWriteInABeforeCommitCallbackIsWritten() {
		this.transactions.executeWithoutResult((status) -> org.springframework.transaction.support.TransactionSynchronizationManager
			.registerSynchronization(new org.springframework.transaction.support.TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					AbstractJdbcJobOutboxTests.this.template.schedule("order-close", "before-commit", "p",
							Duration.ofMinutes(30));
				}

			}));
		assertThat(this.queue.find("order-close", "before-commit")).isPresent();
		assertThat(pending()).isZero();
	}

	@Test
	void aRecoveryThatMeetsARedisErrorRetriesLaterInsteadOfParking() {
		this.relayFails = true;
		placeOrder("o-1", Duration.ofMinutes(30));
		this.relayFails = false;
		this.now.addAndGet(Duration.ofMinutes(2).toMillis());
		this.operations.intercept("scheduleAll", (args, invocation) -> {
			throw new io.github.delayqueue.core.DelayQueueException("LOADING Redis is loading the dataset in memory");
		});
		assertThatExceptionOfType(io.github.delayqueue.core.DelayQueueException.class)
			.isThrownBy(() -> this.outbox.recover(this.operations.operations()));
		this.operations.intercept("scheduleAll", (args, invocation) -> invocation.proceed(args));
		// claimed, not parked: once the claim expires the next pass relays it
		this.now.addAndGet(Duration.ofMinutes(6).toMillis());
		assertThat(this.outbox.recover(this.operations.operations())).isOne();
		assertThat(this.queue.find("order-close", "o-1")).isPresent();
	}

}
