package io.github.delayqueue.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueProducer;
import io.github.delayqueue.core.JobOutbox;
import io.github.delayqueue.core.JobWrite;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ScheduleRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * A {@link JobOutbox} in a table of the application's database, written through Spring's
 * JDBC support so that its rows take part in the caller's transaction.
 *
 * <p>
 * Each write the template holds back in a transaction is one row, keyed by the transaction,
 * inserted (in one batch) just before the commit and stamped with that time. After the commit
 * the template writes them to Redis and hands their key to {@link #relayed}, which deletes the
 * rows on a thread of its own (the committing thread still holds its connection, and the pool
 * may have no other). Rows of a transaction whose relay did not happen (a crash, Redis
 * unreachable) are found by {@link #recover}, claimed by one instance for {@code claimFor},
 * written to Redis and deleted. A schedule with a delay is relayed with the delay it has left,
 * measured from the commit.
 *
 * <p>
 * The table is created by the SQL shipped next to this class
 * ({@code io/github/delayqueue/outbox/schema-<platform>.sql}, for PostgreSQL, MySQL, which
 * MariaDB runs too, and H2).
 */
public class JdbcJobOutbox implements JobOutbox, DisposableBean {

	/** The table's name, as the shipped schema creates it. */
	public static final String TABLE = "delayqueue_outbox";

	private static final Log logger = LogFactory.getLog(JdbcJobOutbox.class);

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final TypeReference<Map<String, Object>> OPTIONS = new TypeReference<>() {
	};

	private static final String INSERT = "INSERT INTO " + TABLE
			+ " (transaction_key, created_millis, action, topic, job_id, options, payload) VALUES (?, ?, ?, ?, ?, ?, ?)";

	private static final String DELETE = "DELETE FROM " + TABLE + " WHERE transaction_key = ?";

	private static final String STRANDED = "SELECT transaction_key, MIN(id) AS first_id FROM " + TABLE
			+ " WHERE created_millis <= ? AND (claimed_until IS NULL OR claimed_until < ?)"
			+ " GROUP BY transaction_key ORDER BY first_id";

	private static final String CLAIM = "UPDATE " + TABLE
			+ " SET claimed_until = ? WHERE transaction_key = ? AND (claimed_until IS NULL OR claimed_until < ?)";

	private static final String PARK = "UPDATE " + TABLE + " SET claimed_until = ? WHERE transaction_key = ?";

	private static final String ROWS = "SELECT created_millis, action, topic, job_id, options, payload FROM " + TABLE
			+ " WHERE transaction_key = ? ORDER BY id";

	static final int MAX_TRANSACTIONS_PER_PASS = 100;

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final Clock clock;

	private final Queue<String> relayedKeys = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean deleting = new AtomicBoolean();

	/** Keys whose rows are relayed but could not be deleted: the next recovery pass deletes them. */
	private final Set<String> undeleted = ConcurrentHashMap.newKeySet();

	private final ExecutorService deleter;

	private Duration strandedAfter = Duration.ofMinutes(1);

	private Duration claimFor = Duration.ofMinutes(5);

	/**
	 * Creates an outbox in the given database.
	 * @param dataSource the database, the one the application's transactions use
	 */
	public JdbcJobOutbox(DataSource dataSource) {
		this(dataSource, Clock.systemUTC());
	}

	/**
	 * Creates an outbox in the given database whose rows are timed by the given clock (the
	 * times compared are all this clock's).
	 * @param dataSource the database, the one the application's transactions use
	 * @param clock the clock
	 */
	public JdbcJobOutbox(DataSource dataSource, Clock clock) {
		Assert.notNull(dataSource, "dataSource must not be null");
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.clock = clock;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("delayqueue-outbox-delete-");
		threads.setDaemon(true);
		ThreadPoolExecutor deleter = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				threads);
		deleter.allowCoreThreadTimeOut(true);
		this.deleter = deleter;
	}

	/**
	 * Sets how old the rows of a transaction must be before {@link #recover} takes them as
	 * stranded: longer than an after-commit relay takes. One minute by default.
	 * @param strandedAfter a positive duration
	 */
	public void setStrandedAfter(Duration strandedAfter) {
		Assert.isTrue(strandedAfter != null && strandedAfter.compareTo(Duration.ZERO) > 0,
				"strandedAfter must be positive");
		this.strandedAfter = strandedAfter;
	}

	/**
	 * Sets how long one instance holds the rows it recovers before another may take them
	 * (when it died meanwhile). Five minutes by default.
	 * @param claimFor a positive duration
	 */
	public void setClaimFor(Duration claimFor) {
		Assert.isTrue(claimFor != null && claimFor.compareTo(Duration.ZERO) > 0, "claimFor must be positive");
		this.claimFor = claimFor;
	}

	@Override
	@SuppressWarnings("NullAway") // a callback without a result returns null
	public void checkTransaction(JobWrite write) {
		checkBound(write);
		this.jdbc.execute((ConnectionCallback<@Nullable Void>) (connection) -> {
			checkTransactional(connection, write);
			return null;
		});
	}

	/**
	 * Refuses a transaction that has no connection of this DataSource bound: a pool without
	 * auto-commit would hand out one that nothing commits. Checked before the connection is
	 * taken, which binds one.
	 */
	private void checkBound(JobWrite write) {
		if (TransactionSynchronizationManager.getResource(this.dataSource) == null) {
			throw refused(write);
		}
	}

	private static void checkTransactional(Connection connection, JobWrite write) throws SQLException {
		if (connection.getAutoCommit()) {
			throw refused(write);
		}
	}

	private static IllegalStateException refused(JobWrite write) {
		return new IllegalStateException("The delayed job outbox (delayqueue.outbox.enabled) cannot store "
				+ write.getClass().getSimpleName().toLowerCase(Locale.ROOT) + " of job " + write.id() + " of topic "
				+ write.topic() + " in the current transaction: it holds no connection of the outbox's DataSource, or"
				+ " one in auto-commit mode, so the transaction is not one of this DataSource (use its transaction"
				+ " manager, or switch the outbox off)");
	}

	@Override
	@SuppressWarnings("NullAway") // a callback without a result returns null
	public void store(String transactionKey, List<JobWrite> writes) {
		if (writes.isEmpty()) {
			return;
		}
		// stamped at the commit, not at the call: a long transaction is not stranded when it commits
		long now = this.clock.millis();
		checkBound(writes.get(0));
		this.jdbc.execute((ConnectionCallback<@Nullable Void>) (connection) -> {
			checkTransactional(connection, writes.get(0));
			try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
				for (JobWrite write : writes) {
					insert.setString(1, transactionKey);
					insert.setLong(2, now);
					insert.setString(3, action(write));
					insert.setString(4, write.topic());
					insert.setString(5, write.id());
					insert.setString(6, json.writeValueAsString(options(write)));
					insert.setBytes(7, (write instanceof JobWrite.Schedule schedule) ? schedule.request().payload()
							: null);
					insert.addBatch();
				}
				insert.executeBatch();
			}
			return null;
		});
	}

	/**
	 * Deletes the rows of a relayed transaction, on a thread of the outbox's own: the
	 * committing thread may still hold its connection, and the pool may have no other. Until
	 * the delete, recovery leaves the rows alone for {@code strandedAfter}.
	 */
	@Override
	public void relayed(String transactionKey) {
		this.relayedKeys.add(transactionKey);
		if (this.deleting.compareAndSet(false, true)) {
			try {
				this.deleter.execute(this::deleteRelayed);
			}
			catch (RejectedExecutionException ex) {
				this.deleting.set(false);
				deleteRelayed();
			}
		}
	}

	private void deleteRelayed() {
		try {
			String key;
			while ((key = this.relayedKeys.poll()) != null) {
				try {
					this.jdbc.update(DELETE, key);
				}
				catch (RuntimeException ex) {
					// kept: recovery leaves the key alone and deletes it on its next pass
					this.undeleted.add(key);
					logger.warn("Could not delete the relayed outbox rows of transaction " + key
							+ "; the next recovery pass deletes them", ex);
				}
			}
		}
		finally {
			this.deleting.set(false);
			if (!this.relayedKeys.isEmpty() && this.deleting.compareAndSet(false, true)) {
				try {
					this.deleter.execute(this::deleteRelayed);
				}
				catch (RejectedExecutionException ex) {
					this.deleting.set(false);
				}
			}
		}
	}

	/**
	 * Deletes the rows of the transactions relayed so far, then stops the thread that
	 * deletes them.
	 */
	@Override
	public void destroy() {
		this.deleter.shutdown();
		try {
			this.deleter.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.deleting.set(true);
		deleteRelayed();
	}

	/**
	 * Relays the rows of transactions that committed but were not relayed (older than
	 * {@link #setStrandedAfter strandedAfter} and not claimed by a live instance), up to 100
	 * transactions a pass, in the order they were written. Call it outside a transaction.
	 * @param producer where the writes go
	 * @return how many transactions this call relayed
	 * @throws RuntimeException when the database or Redis fails; the transaction it was
	 * relaying stays claimed until its claim expires, then is relayed again
	 */
	public int recover(DelayQueueProducer producer) {
		for (String key : List.copyOf(this.undeleted)) {
			this.jdbc.update(DELETE, key);
			this.undeleted.remove(key);
		}
		long now = this.clock.millis();
		List<String> keys = new ArrayList<>();
		this.jdbc.query((connection) -> {
			PreparedStatement select = connection.prepareStatement(STRANDED);
			select.setMaxRows(MAX_TRANSACTIONS_PER_PASS);
			select.setLong(1, now - this.strandedAfter.toMillis());
			select.setLong(2, now);
			return select;
		}, (row) -> {
			keys.add(row.getString(1));
		});
		int relayed = 0;
		for (String key : keys) {
			if (this.relayedKeys.contains(key) || this.undeleted.contains(key)) {
				continue; // relayed by this instance, its rows not deleted yet
			}
			long claimedAt = this.clock.millis();
			if (this.jdbc.update(CLAIM, claimedAt + this.claimFor.toMillis(), key, claimedAt) == 0) {
				continue; // another instance took it
			}
			List<JobWrite> writes;
			try {
				writes = this.jdbc.query(ROWS, (row, index) -> write(row, this.clock.millis()), key);
			}
			catch (DataAccessException ex) {
				throw ex; // the database: the claim expires and a later pass tries again
			}
			catch (RuntimeException ex) {
				// a row it cannot read: parked, the other transactions go on
				park(key, ex);
				continue;
			}
			try {
				JobWrite.applyAll(producer, writes, (result) -> {
				});
			}
			catch (IllegalArgumentException ex) {
				// refused for good (a limit lowered since); anything else (Redis loading,
				// read-only, unreachable) is tried again once the claim expires
				park(key, ex);
				continue;
			}
			this.jdbc.update(DELETE, key);
			relayed++;
			logger.info("Relayed " + writes.size() + " delayed job write(s) of transaction " + key
					+ " from the outbox: the relay after its commit had not happened");
		}
		return relayed;
	}

	private void park(String key, RuntimeException ex) {
		this.jdbc.update(PARK, Long.MAX_VALUE, key);
		logger.error("The delayed job writes of transaction " + key + " in the outbox cannot be relayed (" + ex
				+ "); they are parked (claimed_until " + Long.MAX_VALUE + "): fix the cause and set claimed_until"
				+ " to NULL to relay them, or delete them", ex);
	}

	/**
	 * Counts the rows waiting in the outbox.
	 * @return the number of writes not relayed yet
	 */
	public long pending() {
		Long count = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Long.class);
		return (count != null) ? count : 0;
	}

	private static String action(JobWrite write) {
		if (write instanceof JobWrite.Schedule) {
			return "SCHEDULE";
		}
		return (write instanceof JobWrite.Cancel) ? "CANCEL" : "RESCHEDULE";
	}

	private static Map<String, Object> options(JobWrite write) {
		Map<String, Object> options = new LinkedHashMap<>();
		if (write instanceof JobWrite.Schedule schedule) {
			ScheduleRequest request = schedule.request();
			putTime(options, request.delay(), request.dueAt());
			if (request.ttr() != null) {
				options.put("ttrMillis", request.ttr().toMillis());
			}
			if (request.maxAttempts() != null) {
				options.put("maxAttempts", request.maxAttempts());
			}
			options.put("onDuplicate", request.onDuplicate().name());
			if (!request.headers().isEmpty()) {
				options.put("headers", request.headers());
			}
			if (request.priority() != null) {
				options.put("priority", request.priority());
			}
		}
		else if (write instanceof JobWrite.Reschedule reschedule) {
			putTime(options, reschedule.delay(), reschedule.dueAt());
		}
		return options;
	}

	private static void putTime(Map<String, Object> options, @Nullable Duration delay, @Nullable Instant dueAt) {
		if (delay != null) {
			options.put("delayMillis", delay.toMillis());
		}
		else if (dueAt != null) {
			options.put("dueAtMillis", dueAt.toEpochMilli());
		}
	}

	@SuppressWarnings("unchecked")
	private static JobWrite write(ResultSet row, long now) throws SQLException {
		long waited = Math.max(0, now - row.getLong("created_millis"));
		String action = row.getString("action");
		String topic = row.getString("topic");
		String id = row.getString("job_id");
		Map<String, Object> options = json.readValue(row.getString("options"), OPTIONS);
		Duration delay = (options.get("delayMillis") != null)
				? Duration.ofMillis(Math.max(0, number(options, "delayMillis") - waited)) : null;
		Instant dueAt = (options.get("dueAtMillis") != null) ? Instant.ofEpochMilli(number(options, "dueAtMillis"))
				: null;
		return switch (action) {
			case "SCHEDULE" -> new JobWrite.Schedule(new ScheduleRequest(topic, id, row.getBytes("payload"), delay, dueAt,
					(options.get("ttrMillis") != null) ? Duration.ofMillis(number(options, "ttrMillis")) : null,
					(options.get("maxAttempts") != null) ? (int) number(options, "maxAttempts") : null,
					OnDuplicate.valueOf(String.valueOf(options.get("onDuplicate"))),
					(Map<String, String>) options.getOrDefault("headers", Map.of()),
					(options.get("priority") != null) ? (int) number(options, "priority") : null));
			case "CANCEL" -> new JobWrite.Cancel(topic, id);
			case "RESCHEDULE" -> new JobWrite.Reschedule(topic, id, delay, dueAt);
			default -> throw new IllegalStateException("Unknown outbox action '" + action + "' for job " + id
					+ " of topic " + topic);
		};
	}

	private static long number(Map<String, Object> options, String name) {
		return ((Number) Objects.requireNonNull(options.get(name), name)).longValue();
	}

}
