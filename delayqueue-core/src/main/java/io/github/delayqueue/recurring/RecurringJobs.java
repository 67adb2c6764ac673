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

	/** Pauses definition {@code name}: no tick fires until {@link #resume(String)}; {@code false} when none. */
	boolean pause(String name);

	/**
	 * Resumes paused definition {@code name} from its schedule's next tick (ticks while paused do
	 * not fire); {@code false} when none.
	 */
	boolean resume(String name);

	/** Creates an occurrence of {@code name} now, paused or not, schedule unchanged: its id, or empty when none. */
	Optional<String> trigger(String name);

	/** Deletes definition {@code name}, its occurrences created already stay and run; {@code false} when none. */
	boolean delete(String name);

	/** Reads definition {@code name} and what it did, or empty. */
	Optional<RecurringJobInfo> find(String name);

	/** Reads every definition of the namespace, by name. */
	List<RecurringJobInfo> list();

}
