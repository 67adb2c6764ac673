package io.github.delayqueue.listener;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

import org.springframework.util.function.SingletonSupplier;

/**
 * The {@link DelayedJob} handed to a listener method.
 */
final class DefaultDelayedJob<T> implements DelayedJob<T> {

	private final ReservedJob job;

	private final DelayQueueOperations operations;

	// read when first asked for
	private final SingletonSupplier<T> payload;

	@SuppressWarnings("unchecked")
	DefaultDelayedJob(ReservedJob job, DelayQueueOperations operations, DelayedJobArgumentResolver converter,
			Type payloadType) {
		this.job = job;
		this.operations = operations;
		this.payload = SingletonSupplier.of(() -> (T) converter.read(job.payload(), payloadType));
	}

	@Override
	public String topic() {
		return this.job.topic();
	}

	@Override
	public String id() {
		return this.job.id();
	}

	@Override
	public @Nullable T payload() {
		return this.payload.get();
	}

	@Override
	public Map<String, String> headers() {
		return this.job.headers();
	}

	@Override
	public int attempt() {
		return this.job.attempt();
	}

	@Override
	public int maxAttempts() {
		return this.job.maxAttempts();
	}

	@Override
	@SuppressWarnings("NullAway") // a listener's job comes from a reserve, which sets its times
	public Instant dueAt() {
		return this.job.dueAt();
	}

	@Override
	@SuppressWarnings("NullAway") // a listener's job comes from a reserve, which sets its times
	public Instant deliveredAt() {
		return this.job.deliveredAt();
	}

	@Override
	public boolean touch() {
		return touch(this.job.ttr());
	}

	@Override
	public boolean touch(@Nullable Duration ttr) {
		return this.operations.touch(this.job, ttr).isPresent();
	}

	@Override
	public String toString() {
		return "DelayedJob[topic=" + topic() + ", id=" + id() + ", attempt=" + attempt() + "/" + maxAttempts() + "]";
	}

}
