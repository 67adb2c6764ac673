package io.github.delayqueue.core;

/**
 * Where {@link DelayedJobTemplate} stores the writes it holds back in a Spring-managed
 * transaction, in that same transaction, so that a crash between the commit and the write
 * to Redis does not lose them: the template relays them to Redis after the commit and then
 * calls {@link #relayed}; writes left behind by a crash are relayed by the outbox's own
 * recovery pass. The JDBC implementation is {@code io.github.delayqueue.outbox.JdbcJobOutbox}.
 */
public interface JobOutbox {

	/**
	 * Stores a write in the current transaction. Called inside it, by the thread that runs it.
	 * @param transactionKey names the writes of one transaction (and one template)
	 * @param write the write
	 * @throws IllegalStateException when the write cannot take part in the current
	 * transaction
	 */
	void store(String transactionKey, JobWrite write);

	/**
	 * Forgets the writes of a committed transaction: they are in Redis. Called after the
	 * transaction completed, outside it.
	 * @param transactionKey the key given to {@link #store}
	 */
	void relayed(String transactionKey);

}
