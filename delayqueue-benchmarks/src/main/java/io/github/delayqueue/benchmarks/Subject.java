package io.github.delayqueue.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One implementation under test: its consumers (started on creation) and its producer API.
 * Every consumer reports to the {@link RecorderHolder} given at creation.
 */
interface Subject extends AutoCloseable {

	/**
	 * Schedules one job, one call at a time.
	 */
	void schedule(Job job);

	/**
	 * Schedules jobs with the implementation's bulk API.
	 */
	void scheduleBulk(List<Job> jobs);

	/**
	 * Schedules jobs one asynchronous call per job from one thread, and returns when every
	 * job is acknowledged.
	 */
	void scheduleAsync(List<Job> jobs);

	/**
	 * How many jobs the implementation still holds in Redis (any state).
	 */
	long pending();

	@Override
	void close();

	/**
	 * The name of each Lua script the implementation runs, by its SHA-1 (as {@code EVALSHA}
	 * names it); empty when it runs none.
	 */
	default Map<String, String> scriptNames() {
		return Map.of();
	}

	/**
	 * The implementations of the tables.
	 */
	enum Kind {

		DELAYQUEUE("delayqueue"), REDISSON("Redisson RDelayedQueue"), FLOOR("floor design (Lua)"),

		FLOOR_ALO("floor design, at least once (Lua)");

		private final String label;

		Kind(String label) {
			this.label = label;
		}

		String label() {
			return this.label;
		}

		/**
		 * The kind named as in {@code bench.impl}.
		 */
		static Kind named(String name) {
			return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
		}

		Subject create(BenchRedis redis, Layout layout, RecorderHolder recorder) {
			return switch (this) {
				case DELAYQUEUE -> new DelayQueueSubject(redis, layout, recorder);
				case REDISSON -> new RedissonSubject(redis, layout, recorder);
				case FLOOR -> new FloorSubject(redis, layout, recorder, false);
				case FLOOR_ALO -> new FloorSubject(redis, layout, recorder, true);
			};
		}

	}

	/**
	 * How consumers are laid out: {@code instances} processes' worth of clients, each with
	 * one consumer per topic of {@code concurrency} threads; {@code properties} are Spring Boot
	 * properties every delayqueue instance starts with besides the harness's (the other
	 * implementations ignore them).
	 */
	record Layout(int instances, int concurrency, List<String> topics, Map<String, Object> properties) {

		Layout(int instances, int concurrency, List<String> topics) {
			this(instances, concurrency, topics, Map.of());
		}

	}

}
