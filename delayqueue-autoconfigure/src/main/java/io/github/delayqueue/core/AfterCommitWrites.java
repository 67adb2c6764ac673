package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The writes one {@link DelayedJobTemplate} holds back in one Spring-managed transaction,
 * applied in their order once it commits and discarded when it rolls back.
 *
 * <p>
 * Without an outbox they are applied in {@link #afterCommit()}, so a failure reaches the
 * code that committed (its database work is committed already). With an outbox they are
 * stored in the transaction as they come, applied in {@link #afterCompletion(int)} and then
 * forgotten by the outbox; a failure there is logged and left to the outbox's recovery pass.
 * One instance per transaction and template: it is found among the transaction's
 * synchronizations, so a suspended transaction keeps its own.
 */
final class AfterCommitWrites implements TransactionSynchronization {

	private static final Log logger = LogFactory.getLog(AfterCommitWrites.class);

	private final Object owner;

	private final DelayQueueProducer producer;

	private final JobOutbox outbox;

	private final String key = UUID.randomUUID().toString();

	private final List<JobWrite> writes = new ArrayList<>();

	private final List<CompletableFuture<?>> futures = new ArrayList<>();

	private AfterCommitWrites(Object owner, DelayQueueProducer producer, JobOutbox outbox) {
		this.owner = owner;
		this.producer = producer;
		this.outbox = outbox;
	}

	/**
	 * The writes of the current transaction for an owner, registered with the transaction
	 * on first use.
	 * @param owner the template
	 * @param producer where the writes go after the commit
	 * @param outbox where they are stored meanwhile, or {@code null}
	 * @return the writes, or {@code null} when no Spring-managed transaction is active
	 */
	static AfterCommitWrites current(Object owner, DelayQueueProducer producer, JobOutbox outbox) {
		if (!active()) {
			return null;
		}
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof AfterCommitWrites writes && writes.owner == owner) {
				return writes;
			}
		}
		AfterCommitWrites writes = new AfterCommitWrites(owner, producer, outbox);
		TransactionSynchronizationManager.registerSynchronization(writes);
		return writes;
	}

	/**
	 * Whether a Spring-managed transaction is active on this thread.
	 * @return {@code true} when writes wait for its commit
	 */
	static boolean active() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.isActualTransactionActive();
	}

	/**
	 * Holds a write back until the commit (and stores it in the outbox now).
	 * @param write the write
	 * @param future completed with the write's result once applied (a {@link ScheduleResult}
	 * for a schedule), or {@code null}
	 */
	void add(JobWrite write, CompletableFuture<?> future) {
		if (this.outbox != null) {
			this.outbox.store(this.key, write);
		}
		this.writes.add(write);
		this.futures.add(future);
	}

	@Override
	public void afterCommit() {
		if (this.outbox == null) {
			apply();
		}
	}

	@Override
	public void afterCompletion(int status) {
		if (status != STATUS_COMMITTED) {
			String outcome = (status == STATUS_ROLLED_BACK) ? "rolled back" : "ended in an unknown state";
			for (CompletableFuture<?> future : this.futures) {
				if (future != null) {
					future.cancel(false);
				}
			}
			if (logger.isDebugEnabled() && !this.writes.isEmpty()) {
				logger.debug("Discarded " + this.writes.size() + " delayed job write(s): the transaction " + outcome);
			}
			return;
		}
		if (this.outbox != null) {
			try {
				apply();
				this.outbox.relayed(this.key);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not relay " + this.writes.size() + " delayed job write(s) of a committed transaction"
						+ " (" + this.key + "); they stay in the outbox and its recovery pass relays them", ex);
			}
		}
	}

	private void apply() {
		if (this.writes.isEmpty()) {
			return;
		}
		int[] applied = { 0 };
		try {
			JobWrite.applyAll(this.producer, this.writes, (result) -> complete(this.futures.get(applied[0]++), result));
		}
		catch (RuntimeException | Error ex) {
			Throwable failure = (this.outbox != null) ? new DelayQueueException("The write was not relayed after the"
					+ " commit; it stays in the outbox and the outbox's recovery pass relays it", ex) : ex;
			for (CompletableFuture<?> future : this.futures.subList(applied[0], this.futures.size())) {
				if (future != null) {
					future.completeExceptionally(failure);
				}
			}
			throw ex;
		}
	}

	@SuppressWarnings("unchecked")
	private static void complete(CompletableFuture<?> future, Object result) {
		if (future != null) {
			((CompletableFuture<Object>) future).complete(result);
		}
	}

}
