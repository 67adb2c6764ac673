package io.github.delayqueue.core;

import java.util.List;

/**
 * Where {@link DelayedJobTemplate} stores the writes it holds back in a Spring-managed
 * transaction, in that transaction, so that a crash after the commit loses none; the
 * outbox's own recovery relays what a crash left behind.
 */
public interface JobOutbox {

	/**
	 * Checks, at a transaction's first write, that the outbox can take part in it.
	 * @param write the write
	 * @throws IllegalStateException when it cannot
	 */
	default void checkTransaction(JobWrite write) {
	}

	/**
	 * Stores writes in the current transaction, just before it commits.
	 * @param transactionKey names the writes of one transaction and template
	 * @param writes the writes, in their order
	 * @throws IllegalStateException when they cannot take part in the transaction
	 */
	void store(String transactionKey, List<JobWrite> writes);

	/**
	 * Forgets the writes of a committed transaction once they are in Redis; called after it
	 * completed, by the committing thread, which may still hold its connection.
	 * @param transactionKey the key given to {@link #store}
	 */
	void relayed(String transactionKey);

}
