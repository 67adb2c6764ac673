package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The job a {@code @DelayedListener} method is running, with its metadata. Declare it as a
 * method parameter, typed with the payload type:
 *
 * <pre class="code">
 * &#64;DelayedListener(topic = "order-close")
 * void close(DelayedJob&lt;OrderClose&gt; job) { ... job.payload() ... }
 * </pre>
 *
 * Valid only while the method runs, on the thread that runs it.
 *
 * @param <T> the payload type
 */
public interface DelayedJob<T> {

	/** The job's topic. */
	String topic();

	/** The job's id, unique within its topic. */
	String id();

	/**
	 * The payload, read into {@code T} on first call.
	 * @return the payload, {@code null} when the stored payload is JSON {@code null}
	 * @throws org.springframework.messaging.converter.MessageConversionException when it
	 * cannot be read into {@code T}
	 */
	@Nullable T payload();

	/**
	 * The headers the job was scheduled with ({@code JobBuilder.header}).
	 * @return the headers, unmodifiable; empty when it has none
	 */
	default Map<String, String> headers() {
		return Map.of();
	}

	/** Which delivery this is, starting at 1. */
	int attempt();

	/** The most deliveries this job gets before it is DEAD. */
	int maxAttempts();

	/** When the job was due (for a retry: when the retry was due), by Redis's clock. */
	Instant dueAt();

	/** When this delivery was made, by Redis's clock. */
	Instant deliveredAt();

	/**
	 * Extends the reservation by the listener's time-to-run from now.
	 * @return {@code true} when extended, {@code false} when the reservation was lost
	 */
	boolean touch();

	/**
	 * Extends the reservation by {@code ttr} from now.
	 * @param ttr the new time-to-run
	 * @return {@code true} when extended, {@code false} when the reservation was already lost
	 */
	boolean touch(Duration ttr);

}
