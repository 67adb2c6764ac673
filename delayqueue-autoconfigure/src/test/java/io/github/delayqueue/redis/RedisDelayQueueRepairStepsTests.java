package io.github.delayqueue.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Repair runs in bounded steps: each script call reads a bounded number of records or index
 * entries whatever the bucket holds, and a repair whose steps interleave with schedules,
 * promotions, takes, finishes and cancels still leaves the invariant (the extension checks it
 * after each test).
 */
class RedisDelayQueueRepairStepsTests {

	/**
	 * The most records one step reads: HSCAN's count is a hint, and a scan stops after the
	 * hash-table bucket that reaches it, which may hold a few more.
	 */
	private static final long MOST_READ = BucketRepair.STEP + 64;

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void eachStepOfTheRepairOfABucketOf200000JobsReadsABoundedNumberOfRecords() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		for (int from = 0; from < 200_000; from += 10_000) {
			queue.scheduleAll(requests("many", from, 10_000, Duration.ofHours(1)));
		}
		queue.scheduleAll(requests("ready", 0, 1_500, Duration.ZERO));
		while (TimerSteps.promote(queue, 0, false).moved() > 0) {
			// until every due job is READY
		}
		String prefix = "{" + queue.getNamespace() + ":0}:";
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			connection.zSetCommands().zRem(bytes(prefix + "delayed"), bytes("many:job-7"), bytes("many:job-70000"),
					bytes("many:job-199999"));
			connection.listCommands().lRem(bytes(prefix + "ready:ready"), 1, bytes("ready:job-1234"));
			// stale entries that share one score, across several steps' pages
			for (int i = 0; i < 5_000; i++) {
				connection.zSetCommands().zAdd(bytes(prefix + "reserved"), 1, bytes("many:nobody-" + i));
			}
		}

		List<Long> reads = new CopyOnWriteArrayList<>();
		RedisDelayQueue recorded = RedisDelayQueue.builder(recordingReads(queue.getConnectionFactory(), reads))
			.namespace(queue.getNamespace())
			.buckets(1)
			.timerEnabled(false)
			.build();
		BucketRepair repair = recorded.repairs(true).get(0);
		long steps = 0;
		while (repair.step()) {
			steps++;
		}
		long most = reads.stream().mapToLong(Long::longValue).max().orElse(0);

		assertThat(most).as("records or entries one step read").isBetween((long) BucketRepair.STEP, MOST_READ);
		assertThat(steps).as("steps").isGreaterThan(2 * 201_500 / BucketRepair.STEP);
		assertThat(repair.countsVerified()).isTrue();
		assertThat(repair.result()).isEqualTo(new RepairResult(201_500, 4, 5_000, 0, 0));
		assertThat(queue.repair(false).isClean()).isTrue();
	}

	@Test
	void aRepairWhoseStepsInterleaveWithTrafficLeavesTheInvariant() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.scheduleAll(requests("busy", 0, 3_000, Duration.ZERO));
		TimerSteps.promote(queue, 0, false);
		queue.scheduleAll(requests("busy", 3_000, 3_000, Duration.ofHours(1)));
		queue.scheduleAll(requests("other", 0, 2_000, Duration.ofHours(1)));
		String prefix = "{" + queue.getNamespace() + ":0}:";
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			// what a failure the scripts cannot rule out leaves: a READY job in no list, a
			// DELAYED one in no zset, an index entry without a job, a count that drifted, and a
			// last error without a job
			connection.listCommands().lRem(bytes(prefix + "ready:busy"), 1, bytes("busy:job-2999"));
			connection.zSetCommands().zRem(bytes(prefix + "delayed"), bytes("other:job-5"));
			// (a deadline the timer does not reach while the test runs: it drops expired ones itself)
			connection.zSetCommands().zAdd(bytes(prefix + "reserved"), 4e12, bytes("busy:nobody"));
			connection.hashCommands().hSet(bytes(prefix + "stats"), bytes("D:other"), bytes("7"));
			connection.hashCommands().hSet(bytes(prefix + "errors"), bytes("busy:gone"), bytes("boom"));
		}

		BucketRepair repair = queue.repairs(true).get(0);
		int step = 0;
		int traffic = 15;
		while (repair.step()) {
			if (step < traffic) {
				// between two steps: a schedule of a due job and of a later one, a promotion, a
				// take and its finish, a cancel, a reschedule
				queue.schedule(request("busy", "new-" + step, "{}", Duration.ZERO));
				queue.schedule(request("other", "new-" + step, "{}", Duration.ofHours(2)));
				TimerSteps.promote(queue, 0, false);
				List<ReservedJob> taken = queue.reserve("busy", 3, null);
				taken.forEach((job) -> assertThat(queue.finish(job)).isTrue());
				assertThat(queue.cancel("busy", "job-" + (3_000 + step))).isTrue();
				assertThat(queue.reschedule("other", "job-" + (100 + step), Duration.ofMinutes(5)))
					.isEqualTo(RescheduleResult.RESCHEDULED);
			}
			step++;
		}

		assertThat(step).as("steps, traffic between the first %d", traffic).isGreaterThan(traffic);
		assertThat(repair.countsVerified()).isTrue();
		RepairResult result = repair.result();
		assertThat(result.reindexed()).isEqualTo(2);
		assertThat(result.dropped()).isEqualTo(2);
		assertThat(result.countsCorrected()).isEqualTo(1);
		assertThat(queue.repair(false).isClean()).isTrue();
		assertThat(queue.reserve("busy", 5_000, null)).extracting(ReservedJob::id).contains("job-2999");
	}

	@Test
	void aJobTakenBeforeItsListIsReadAndGivenBackBeforeTheRestoreIsListedOnce() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.schedule(request("t", "job-0", "{}", Duration.ZERO));
		TimerSteps.promote(queue, 0, false);
		String prefix = "{" + queue.getNamespace() + ":0}:";

		BucketRepair repair = queue.repairs(true).get(0);
		// begin, records (notes the READY job)
		repair.step();
		repair.step();
		ReservedJob job = queue.reserve("t", 1, null).get(0);
		// the delayed and reserved indexes, the last errors, the ready list (without the job)
		for (int i = 0; i < 4; i++) {
			repair.step();
		}
		// READY again with the header it had when noted
		assertThat(queue.release(job)).isTrue();
		while (repair.step()) {
			// restore, sentinel, counts
		}

		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			assertThat(connection.listCommands().lRange(bytes(prefix + "ready:t"), 0, -1))
				.extracting((entry) -> new String(entry, StandardCharsets.UTF_8))
				.containsExactly("t:job-0");
		}
	}

	@Test
	void aCompactionBetweenTwoWindowsOfAReadyListLeavesEachJobListedOnce() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.scheduleAll(requests("t", 0, 2_500, Duration.ZERO));
		while (TimerSteps.promote(queue, 0, false).moved() > 0) {
			// until every due job is READY
		}
		// tombstones in the middle: live entries at the head and at the tail
		for (int i = 500; i < 2_000; i++) {
			assertThat(queue.cancel("t", "job-" + i)).isTrue();
		}
		String prefix = "{" + queue.getNamespace() + ":0}:";
		BucketRepair repair = queue.repairs(true).get(0);
		boolean compacted = false;
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			while (repair.step()) {
				Long noted = connection.hashCommands().hLen(bytes(prefix + "repair"));
				if (!compacted && noted != null && noted == 500) {
					// the tail window was read: the guard compacts the list (head window to the tail)
					TimerSteps.promote(queue, 0, true);
					compacted = true;
				}
			}
			assertThat(compacted).isTrue();
			List<String> listed = connection.listCommands().lRange(bytes(prefix + "ready:t"), 0, -1).stream()
				.map((entry) -> new String(entry, StandardCharsets.UTF_8)).toList();
			assertThat(listed).doesNotHaveDuplicates().hasSize(1_000);
		}
	}

	@Test
	void aRepairThatAnotherRepairOfItsBucketOvertookStopsInsteadOfListingAJobTwice() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.schedule(request("t", "job-0", "{}", Duration.ZERO));
		TimerSteps.promote(queue, 0, false);
		String prefix = "{" + queue.getNamespace() + ":0}:";

		BucketRepair first = queue.repairs(true).get(0);
		// begin, records, the delayed and reserved indexes, the last errors, the ready list
		for (int i = 0; i < 6; i++) {
			first.step();
		}
		// a dry run begins and notes the READY job again
		BucketRepair second = queue.repairs(false).get(0);
		second.step();
		second.step();

		assertThatThrownBy(() -> {
			while (first.step()) {
				// restore, sentinel, counts
			}
		}).hasStackTraceContaining("another repair");
		while (second.step()) {
			// to its end
		}
		assertThat(second.result().reindexed()).isZero();
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			assertThat(connection.listCommands().lRange(bytes(prefix + "ready:t"), 0, -1))
				.extracting((entry) -> new String(entry, StandardCharsets.UTF_8))
				.containsExactly("t:job-0");
		}
	}

	private static List<ScheduleRequest> requests(String topic, int from, int count, Duration delay) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = from; i < from + count; i++) {
			requests.add(request(topic, "job-" + i, "{}", delay));
		}
		return requests;
	}

	/**
	 * A factory whose repair script calls add to {@code reads} the records or entries each read,
	 * as its reply says ({@code repair.lua}).
	 */
	private static RedisConnectionFactory recordingReads(RedisConnectionFactory factory, List<Long> reads) {
		After record = (method, args, reply) -> {
			// eval or evalSha: script, return type, number of keys, keys and then ARGV ([4]: '<step> <run>')
			if (args != null && args.length == 4 && args[3] instanceof byte[][] keysAndArgs
					&& keysAndArgs.length > (int) args[2] + 3 && reply instanceof List<?> values) {
				String step = new String(keysAndArgs[(int) args[2] + 3], StandardCharsets.UTF_8).split(" ")[0];
				if (List.of("index", "ready").contains(step)) {
					reads.add((Long) values.get(0));
				}
				else if (List.of("records", "errors", "restore").contains(step)) {
					reads.add((Long) values.get(1));
				}
			}
			return reply;
		};
		After connection = (method, args, scripting) -> method.getName().equals("scriptingCommands")
				? proxy(RedisScriptingCommands.class, scripting, record) : scripting;
		return proxy(RedisConnectionFactory.class, factory,
				(method, args, opened) -> method.getName().equals("getConnection")
						? proxy(RedisConnection.class, opened, connection) : opened);
	}

	/** A call's result, seen after the call. */
	private interface After {

		@Nullable Object apply(Method method, @Nullable Object[] args, @Nullable Object result);

	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, Object target, After after) {
		return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
			try {
				return after.apply(method, args, method.invoke(target, args));
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		});
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
