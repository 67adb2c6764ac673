package io.github.delayqueue.recurring;

import java.util.List;
import java.util.Optional;

/**
 * Recurring jobs of a namespace: named definitions whose schedule creates one ordinary job per
 * tick. Exactly one occurrence per tick is created, whatever the number of instances: the
 * instance that runs the timer of the definition's bucket fires it, in one atomic script
 * that checks the tick has not been fired, creates the occurrence and advances the
 * definition to its next tick. Each occurrence's id is {@code <name>@<tick>}, the tick in UTC
 * as {@code yyyyMMdd'T'HHmmss[.SSS]'Z'} ({@code -trigger} appended for
 * {@link #trigger(String)}), followed by {@code ~<n>} when the id needs it to land in the
 * definition's bucket: find, cancel, DEAD and replay work on occurrences as on any job.
 *
 * <p>
 * Every method validates its arguments before it writes, and each write is one atomic script.
 */
public interface RecurringJobs {

	/**
	 * Creates a definition, or replaces the one with the same name. Idempotent: the same
	 * definition again changes nothing (not even the next tick, so every instance may put its
	 * definitions at start-up). A changed one takes effect from its schedule's next tick; a
	 * paused definition stays paused.
	 * @param job the definition
	 * @return what it did
	 * @throws IllegalArgumentException when the payload is larger than the queue's limit
	 */
	PutResult put(RecurringJob job);

	/**
	 * Pauses a definition: no tick fires until {@link #resume(String)}.
	 * @param name the name
	 * @return {@code false} when there is no such definition
	 */
	boolean pause(String name);

	/**
	 * Resumes a paused definition from its schedule's next tick; the ticks that passed while it
	 * was paused do not fire (they are not misfires).
	 * @param name the name
	 * @return {@code false} when there is no such definition
	 */
	boolean resume(String name);

	/**
	 * Creates an occurrence now, paused or not, without changing the schedule.
	 * @param name the name
	 * @return the occurrence's id, or empty when there is no such definition
	 */
	Optional<String> trigger(String name);

	/**
	 * Deletes a definition. Its occurrences created already stay and run.
	 * @param name the name
	 * @return {@code false} when there was no such definition
	 */
	boolean delete(String name);

	/**
	 * Reads one definition.
	 * @param name the name
	 * @return the definition and what it did, or empty
	 */
	Optional<RecurringJobInfo> find(String name);

	/**
	 * Reads every definition of the namespace (one script call per bucket, pipelined where the
	 * connection allows it).
	 * @return the definitions, by name
	 */
	List<RecurringJobInfo> list();

}
