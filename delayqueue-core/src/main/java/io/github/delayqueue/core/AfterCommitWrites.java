package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The writes one {@link DelayedJobTemplate} holds back in one Spring-managed transaction:
 * applied in order in {@link #afterCommit()} (first of the synchronizations), discarded by a
 * rollback or a savepoint rolled back to, and stored in the outbox, if any, just before the
 * commit. One instance per transaction and template, found among its synchronizations.
 */
final class AfterCommitWrites implements TransactionSynchronization, Ordered {

	private static final Log logger = LogFactory.getLog(AfterCommitWrites.class);

	private final Object owner;

	private final DelayQueueProducer producer;

	private final @Nullable JobOutbox outbox;

	private final String key = UUID.randomUUID().toString();

	private final List<JobWrite> writes = new ArrayList<>();

	private final List<CompletableFuture<Object>> futures = new ArrayList<>();

	/** How many writes there were when each savepoint was set. */
	private final Map<Object, Integer> savepoints = new IdentityHashMap<>();

	/** How many of the writes are stored in the outbox. */
	private int stored;

	/** The outbox took the writes in beforeCommit: a write now is stored at once. */
	private boolean storing;

	/** How many of the writes are applied. */
	private int applied;

	/** The transaction has committed, or ended: {@link #current} no longer hands these writes out. */
	private boolean committed;

	/** Applying the writes failed: their futures are failed, nothing is tried again. */
	private boolean failed;

	private AfterCommitWrites(Object owner, DelayQueueProducer producer, @Nullable JobOutbox outbox) {
		this.owner = owner;
		this.producer = producer;
		this.outbox = outbox;
	}

	/**
	 * The current transaction's writes of an owner, registered on first use; {@code null} outside
	 * one and once it committed (a write then is applied at once, after the transaction's own).
	 */
	static @Nullable AfterCommitWrites current(Object owner, DelayQueueProducer producer, @Nullable JobOutbox outbox) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| !TransactionSynchronizationManager.isActualTransactionActive()) {
			return null;
		}
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof AfterCommitWrites writes && writes.owner == owner) {
				return writes.committed ? null : writes;
			}
		}
		AfterCommitWrites writes = new AfterCommitWrites(owner, producer, outbox);
		TransactionSynchronizationManager.registerSynchronization(writes);
		return writes;
	}

	/**
	 * Holds a write, checked by the caller, back until the commit.
	 * @return completed with the write's result once applied, cancelled by a rollback
	 */
	CompletableFuture<Object> add(JobWrite write) {
		CompletableFuture<Object> future = new CompletableFuture<>();
		if (this.outbox != null) {
			if (this.writes.isEmpty()) {
				if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
					throw new IllegalStateException("The delayed job outbox (delayqueue.outbox.enabled) cannot store "
							+ "job " + write.id() + " of topic " + write.topic() + " in a read-only transaction:"
							+ " schedule it in a read-write one");
				}
				this.outbox.checkTransaction(write);
			}
			if (this.storing) {
				// made by another synchronization's beforeCommit after this one's: stored at once
				this.outbox.store(this.key, List.of(write));
				this.stored++;
			}
		}
		this.writes.add(write);
		this.futures.add(future);
		return future;
	}

	@Override
	public void savepoint(Object savepoint) {
		this.savepoints.put(savepoint, this.writes.size());
	}

	@Override
	public void savepointRollback(Object savepoint) {
		// no entry: registered after the savepoint, so every write came after it
		Integer saved = this.savepoints.get(savepoint);
		int keep = (saved != null) ? saved : 0;
		for (int i = this.writes.size() - 1; i >= keep; i--) {
			this.writes.remove(i);
			this.futures.remove(i).cancel(false);
		}
		this.stored = Math.min(this.stored, keep);
	}

	@Override
	public void beforeCommit(boolean readOnly) {
		this.storing = true;
		if (this.outbox != null && this.stored < this.writes.size()) {
			this.outbox.store(this.key, new ArrayList<>(this.writes.subList(this.stored, this.writes.size())));
			this.stored = this.writes.size();
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public void afterCommit() {
		this.committed = true;
		relay(false);
	}

	@Override
	public void afterCompletion(int status) {
		this.committed = true;
		if (status != STATUS_COMMITTED) {
			for (CompletableFuture<?> future : this.futures.subList(this.applied, this.futures.size())) {
				if (status == STATUS_ROLLED_BACK || this.stored == 0) {
					future.cancel(false);
				}
				else {
					future.completeExceptionally(new DelayQueueException("The transaction ended in an unknown state:"
							+ " if it committed, the outbox's recovery pass writes the job"));
				}
			}
			return;
		}
		if (!this.failed) {
			// writes pending here were registered too late for afterCommit, or another synchronization's afterCommit threw first
			relay(true);
		}
	}

	/**
	 * Applies the pending writes, and once the transaction completed tells the outbox. A
	 * failure is logged when the outbox keeps the writes or the transaction completed, else thrown.
	 */
	private void relay(boolean completed) {
		try {
			apply();
			if (completed && this.outbox != null && this.stored > 0) {
				this.outbox.relayed(this.key);
			}
		}
		catch (RuntimeException ex) {
			int pending = this.writes.size() - this.applied;
			if (this.stored > 0) {
				logger.warn("Could not relay the delayed job write(s) of a committed transaction (" + this.key + ", "
						+ pending + " not yet applied); they stay in the outbox and its recovery pass relays them", ex);
			}
			else if (!completed) {
				// nothing in the outbox to relay them later
				throw ex;
			}
			else {
				logger.error("Could not write " + pending + " delayed job write(s) of a committed transaction after"
						+ " it completed; they are not written (the first: " + this.writes.get(this.applied) + ")", ex);
			}
		}
	}

	private void apply() {
		int first = this.applied;
		List<JobWrite> pending = new ArrayList<>(this.writes.subList(first, this.writes.size()));
		// the futures complete once every write is applied, so what their callbacks write comes after
		List<Object> results = new ArrayList<>(pending.size());
		try {
			JobWrite.applyAll(this.producer, pending, results::add);
		}
		catch (RuntimeException | Error ex) {
			completeApplied(first, results);
			Throwable failure = (this.stored > 0) ? new DelayQueueException("The write was not relayed after the"
					+ " commit; it stays in the outbox and the outbox's recovery pass relays it", ex) : ex;
			this.futures.subList(this.applied, this.futures.size())
				.forEach((future) -> future.completeExceptionally(failure));
			// settled: afterCompletion does not try them again
			this.failed = true;
			throw ex;
		}
		completeApplied(first, results);
	}

	/** Counts the writes from {@code first} applied and completes their futures with the results. */
	private void completeApplied(int first, List<Object> results) {
		this.applied = first + results.size();
		for (int i = 0; i < results.size(); i++) {
			this.futures.get(first + i).complete(results.get(i));
		}
	}

}
