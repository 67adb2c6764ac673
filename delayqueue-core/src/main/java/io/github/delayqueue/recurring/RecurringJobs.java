package io.github.delayqueue.recurring;

import java.util.List;
import java.util.Optional;

/**
 * Recurring jobs of a namespace: named definitions whose schedule creates exactly one ordinary
 * job per tick, whatever the number of instances. An occurrence's id is {@code <name>@<tick>},
 * the tick in UTC as {@code yyyyMMdd'T'HHmmss[.SSS]'Z'} ({@code -trigger} appended for
 * {@link #trigger(String)}), then {@code ~<n>} when needed to land in the definition's bucket.
 * Arguments are validated before anything is written.
 */
public interface RecurringJobs {

	/**
	 * Creates a definition, or replaces the one with the same name; the same definition again
	 * changes nothing. A changed one takes effect from its next tick; a paused one stays paused.
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
	 * Resumes a paused definition from its schedule's next tick; ticks while paused do not fire.
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
	 * Reads every definition of the namespace.
	 * @return the definitions, by name
	 */
	List<RecurringJobInfo> list();

}
