package io.github.delayqueue.core;

import java.util.List;

/**
 * Where {@link DelayedJobTemplate} stores the writes it holds back in a Spring-managed
 * transaction, in that same transaction, so that a crash between the commit and the write
 * to Redis does not lose them: the template stores them just before the commit
 * ({@code beforeCommit}), relays them to Redis after it and then calls {@link #relayed};
 * writes left behind by a crash are relayed by the outbox's own recovery pass. The JDBC
 * implementation is {@code io.github.delayqueue.outbox.JdbcJobOutbox}.
 */
public interface JobOutbox {

	/**
	 * Checks, when a transaction's first write is held back, that the outbox can take part
	 * in the current transaction, so that a write that cannot be stored fails at the call.
	 * @param write the write
	 * @throws IllegalStateException when it cannot
	 */
	default void checkTransaction(JobWrite write) {
	}

	/**
	 * Stores writes in the current transaction, just before it commits. Called inside it, by
	 * the thread that runs it.
	 * @param transactionKey names the writes of one transaction (and one template)
	 * @param writes the writes, in their order
	 * @throws IllegalStateException when the writes cannot take part in the current
	 * transaction (the transaction then rolls back)
	 */
	void store(String transactionKey, List<JobWrite> writes);

	/**
	 * Forgets the writes of a committed transaction: they are in Redis. Called after the
	 * transaction completed, by the committing thread, which may still hold the transaction's
	 * connection: an implementation that needs a connection of its own should not wait for it
	 * there.
	 * @param transactionKey the key given to {@link #store}
	 */
	void relayed(String transactionKey);

}
