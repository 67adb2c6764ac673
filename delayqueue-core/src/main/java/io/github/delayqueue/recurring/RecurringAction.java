package io.github.delayqueue.recurring;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * An operator's action on a recurring job: {@code pause}, {@code resume}, {@code trigger}.
 */
public enum RecurringAction {

	/** {@link RecurringJobs#pause(String)}. */
	PAUSE,

	/** {@link RecurringJobs#resume(String)}. */
	RESUME,

	/** {@link RecurringJobs#trigger(String)}. */
	TRIGGER;

	/** The action a lower-case name ({@code pause}, {@code resume}, {@code trigger}) stands for, or empty. */
	public static Optional<RecurringAction> named(@Nullable String name) {
		return Arrays.stream(values()).filter((action) -> action.toString().equals(name)).findFirst();
	}

	/** Applies the action to the recurring job {@code name}: whether it exists, and what a trigger created. */
	public Result apply(RecurringJobs jobs, String name) {
		return switch (this) {
			case PAUSE -> new Result(jobs.pause(name), null);
			case RESUME -> new Result(jobs.resume(name), null);
			case TRIGGER -> jobs.trigger(name).map((id) -> new Result(true, id)).orElse(new Result(false, null));
		};
	}

	/** The lower-case name: {@code pause}, {@code resume} or {@code trigger}. */
	@Override
	public String toString() {
		return name().toLowerCase(Locale.ROOT);
	}

	/**
	 * What an action did.
	 *
	 * @param found whether there was such a recurring job
	 * @param occurrence the id of the occurrence a trigger created, else {@code null}
	 */
	public record Result(boolean found, @Nullable String occurrence) {

	}

}
