package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.recurring.RecurringSchedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Recurring jobs on a real Redis. Misfires are made by moving a definition's next tick into
 * the past (as a downtime would leave it) and firing its bucket by hand, on queues without a
 * timer, so no test waits for the clock.
 */
class RecurringJobsTests extends AbstractRedisDelayQueueTests {

	private static final long HOUR = Duration.ofHours(1).toMillis();

	private RedisDelayQueue manual() {
		this.queue.stop();
		return this.queues.start((builder) -> builder.timerEnabled(false));
	}

	private static RecurringJob.Builder hourly(String name) {
		return RecurringJob.builder(name).topic("reports").every(Duration.ofHours(1)).payload("{\"report\":1}");
	}

	private int bucketOf(String name) {
		return new KeySpace(this.queues.namespace, this.queue.getBuckets()).bucketOfName(name);
	}

	/** Moves a definition's next tick, bypassing the scripts (as if instances had been down). */
	private void setNextTick(String name, long tick) {
		String key = "{" + this.queues.namespace + ":" + bucketOf(name) + "}:recurring-due";
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.zSetCommands()
				.zAdd(key.getBytes(StandardCharsets.UTF_8), tick, name.getBytes(StandardCharsets.UTF_8));
		}
	}

	private long redisNow() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			return connection.serverCommands().time();
		}
	}

	private List<JobInfo> occurrences(RedisDelayQueue queue, String topic, String name, long fromTick, int ticks,
			long period) {
		List<JobInfo> found = new ArrayList<>();
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		RecurringJob job = RecurringJob.builder(name).topic(topic).every(Duration.ofMillis(period)).build();
		for (int i = 0; i < ticks; i++) {
			queue.find(topic, RedisRecurringJobs.occurrenceId(keys, job, fromTick + i * period, false)).ifPresent(found::add);
		}
		return found;
	}

	@Test
	void aPutCreatesUpdatesOrChangesNothingAndFindShowsTheNextTick() {
		RecurringJobs recurring = this.queue.getRecurringJobs();
		long before = redisNow();
		assertThat(recurring.put(hourly("nightly").build())).isEqualTo(PutResult.CREATED);
		RecurringJobInfo info = recurring.find("nightly").orElseThrow();
		assertThat(info.version()).isEqualTo(1);
		assertThat(info.paused()).isFalse();
		assertThat(info.nextFireTime()).isEqualTo(Instant.ofEpochMilli((before / HOUR + 1) * HOUR));
		assertThat(info.job().getTopic()).isEqualTo("reports");
		assertThat(info.job().getPayloadText()).isEqualTo("{\"report\":1}");
		assertThat(info.lastOccurrenceId()).isNull();

		Map<String, String> snapshot = this.queues.bucketSnapshot();
		assertThat(recurring.put(hourly("nightly").build())).isEqualTo(PutResult.UNCHANGED);
		assertThat(this.queues.bucketSnapshot()).isEqualTo(snapshot);

		assertThat(recurring.put(hourly("nightly").cron("0 30 2 * * *", "Europe/Berlin").header("tenant", "acme").build()))
			.isEqualTo(PutResult.UPDATED);
		info = recurring.find("nightly").orElseThrow();
		assertThat(info.version()).isEqualTo(2);
		assertThat(info.job().getSchedule().getCron()).isEqualTo("0 30 2 * * *");
		assertThat(info.job().getHeaders()).containsEntry("tenant", "acme");
		assertThat(info.nextFireTime()).isEqualTo(info.job().getSchedule().next(Instant.ofEpochMilli(redisNow())));
		assertThat(recurring.list()).extracting(RecurringJobInfo::name).containsExactly("nightly");
		assertThat(recurring.find("other")).isEmpty();
	}

	@Test
	void badDefinitionsAreRefusedNamingTheFieldAndWriteNothing() {
		Map<String, String> snapshot = this.queues.bucketSnapshot();
		assertThatIllegalArgumentException().isThrownBy(() -> hourly("x").cron("0 61 * * * *", "UTC").build())
			.withMessageContaining("cron '0 61 * * * *' is not a valid cron expression");
		assertThatIllegalArgumentException().isThrownBy(() -> hourly("x").cron("0 0 * * * *", "Mars/Olympus").build())
			.withMessageContaining("zone 'Mars/Olympus' is not a time zone id");
		assertThatIllegalArgumentException().isThrownBy(() -> hourly("x").every(Duration.ofMillis(500)).build())
			.withMessageContaining("every must be between PT1S and");
		assertThatIllegalArgumentException().isThrownBy(() -> hourly("bad name").build())
			.withMessageContaining("name 'bad name'");
		assertThatIllegalArgumentException().isThrownBy(() -> hourly("x").topic("a b").build())
			.withMessageContaining("topic");
		assertThatIllegalArgumentException().isThrownBy(() -> hourly("x").maxCatchUp(0).build())
			.withMessageContaining("maxCatchUp");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringJob.builder("x").topic("t").build())
			.withMessageContaining("schedule must be set");
		byte[] big = new byte[2 * 1024 * 1024];
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.getRecurringJobs().put(hourly("x").payload(big).build()))
			.withMessageContaining("payload must be at most");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.getRecurringJobs().pause("a b"))
			.withMessageContaining("name");
		assertThat(this.queues.bucketSnapshot()).isEqualTo(snapshot);
	}

	@Test
	void theTimerFiresEachTickOnceAsAnOrdinaryJobNamedAfterTheTick() {
		RecurringJobs recurring = this.queue.getRecurringJobs();
		recurring.put(RecurringJob.builder("beat").topic("beats").every(Duration.ofSeconds(1)).payload("{}").build());
		List<ReservedJob> taken = new ArrayList<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			taken.addAll(this.queue.reserve("beats", 10, null));
			return taken.size() >= 3;
		});
		recurring.delete("beat");
		for (ReservedJob job : taken) {
			assertThat(job.id()).matches("beat@\\d{8}T\\d{6}Z(~\\d+)?");
			assertThat(job.dueAt().toEpochMilli() % 1000).isZero();
			assertThat(this.queue.finish(job)).isTrue();
		}
		assertThat(taken).extracting(ReservedJob::dueAt).doesNotHaveDuplicates();
		RecurringJobInfo info = recurring.find("beat").orElse(null);
		assertThat(info).isNull();
		// the occurrences a delete leaves are ordinary jobs
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			this.queue.reserve("beats", 10, null).forEach(this.queue::finish);
			return this.queue.stats().topics().getOrDefault("beats", null) == null
					|| this.queue.stats().topics().get("beats").ready() == 0;
		});
	}

	@Test
	void fireOnceCreatesOneOccurrenceForTheMissedTicksDueNow() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs().put(hourly("once").misfireThreshold(Duration.ofMillis(1)).build());
		long now = redisNow();
		long first = (now / HOUR - 5) * HOUR;
		setNextTick("once", first);
		TimerSteps.fireRecurring(queue, bucketOf("once"));
		List<JobInfo> made = occurrences(queue, "reports", "once", first, 6, HOUR);
		assertThat(made).hasSize(1);
		assertThat(made.get(0).dueAt().toEpochMilli()).isGreaterThanOrEqualTo(now);
		assertThat(made.get(0).state()).isEqualTo(JobState.READY);
		RecurringJobInfo info = queue.getRecurringJobs().find("once").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(info.skipped()).isEqualTo(5);
		assertThat(info.misfired()).isEqualTo(6);
		// the latest tick it stands for
		assertThat(info.lastFireTime()).isEqualTo(Instant.ofEpochMilli(first + 5 * HOUR));
		assertThat(info.lastOccurrenceId()).isEqualTo(made.get(0).id());
		assertThat(info.lastOccurrenceState()).isEqualTo(JobState.READY);
		assertThat(info.nextFireTime()).isEqualTo(Instant.ofEpochMilli((now / HOUR + 1) * HOUR));
	}

	@Test
	void skipCreatesNothingForTheMissedTicks() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs()
			.put(hourly("skip").misfireThreshold(Duration.ofMillis(1)).misfirePolicy(MisfirePolicy.SKIP).build());
		long now = redisNow();
		long first = (now / HOUR - 5) * HOUR;
		setNextTick("skip", first);
		TimerSteps.fireRecurring(queue, bucketOf("skip"));
		assertThat(occurrences(queue, "reports", "skip", first, 6, HOUR)).isEmpty();
		RecurringJobInfo info = queue.getRecurringJobs().find("skip").orElseThrow();
		assertThat(info.fired()).isZero();
		assertThat(info.skipped()).isEqualTo(6);
		assertThat(info.misfired()).isEqualTo(6);
		assertThat(info.nextFireTime()).isEqualTo(Instant.ofEpochMilli((now / HOUR + 1) * HOUR));
	}

	@Test
	void fireAllCreatesTheMostRecentMissedTicksUpToTheCatchUpLimit() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs()
			.put(hourly("all").misfireThreshold(Duration.ofMillis(1))
				.misfirePolicy(MisfirePolicy.FIRE_ALL)
				.maxCatchUp(4)
				.build());
		long now = redisNow();
		long first = (now / HOUR - 5) * HOUR;
		setNextTick("all", first);
		TimerSteps.fireRecurring(queue, bucketOf("all"));
		List<JobInfo> made = occurrences(queue, "reports", "all", first, 6, HOUR);
		assertThat(made).extracting((job) -> job.dueAt().toEpochMilli())
			.containsExactly(first + 2 * HOUR, first + 3 * HOUR, first + 4 * HOUR, first + 5 * HOUR);
		List<String> order = new ArrayList<>();
		queue.reserve("reports", 10, null).forEach((job) -> order.add(job.id()));
		assertThat(order).containsExactlyElementsOf(made.stream().map(JobInfo::id).toList());
		RecurringJobInfo info = queue.getRecurringJobs().find("all").orElseThrow();
		assertThat(info.fired()).isEqualTo(4);
		assertThat(info.skipped()).isEqualTo(2);
		assertThat(info.misfired()).isEqualTo(6);
	}

	@Test
	void aTickOnTimeIsFiredWhateverThePolicy() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs().put(hourly("ontime").misfirePolicy(MisfirePolicy.SKIP).build());
		long tick = (redisNow() / HOUR) * HOUR;
		// within the default threshold (10 s) of now unless the hour has just begun; so take a
		// tick that is surely on time: now, rounded down to the second
		long onTime = (redisNow() / 1000) * 1000;
		setNextTick("ontime", onTime);
		TimerSteps.fireRecurring(queue, bucketOf("ontime"));
		RecurringJobInfo info = queue.getRecurringJobs().find("ontime").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(info.misfired()).isZero();
		assertThat(info.nextFireTime()).isEqualTo(Instant.ofEpochMilli(tick + HOUR));
		assertThat(queue.find("reports", info.lastOccurrenceId()).orElseThrow().dueAt())
			.isEqualTo(Instant.ofEpochMilli(onTime));
	}

	@Test
	void overlapSkipSkipsATickWhileTheLastOccurrenceStillExists() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs().put(hourly("single").overlapPolicy(OverlapPolicy.SKIP).build());
		long tick = (redisNow() / 1000) * 1000;
		setNextTick("single", tick);
		TimerSteps.fireRecurring(queue, bucketOf("single"));
		assertThat(queue.getRecurringJobs().find("single").orElseThrow().fired()).isEqualTo(1);

		// the occurrence runs: the next tick is skipped
		ReservedJob running = queue.reserve("reports", 1, null).get(0);
		setNextTick("single", tick + 1);
		TimerSteps.fireRecurring(queue, bucketOf("single"));
		RecurringJobInfo info = queue.getRecurringJobs().find("single").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(info.skipped()).isEqualTo(1);
		assertThat(info.lastOccurrenceState()).isEqualTo(JobState.RESERVED);

		// finished: the next tick fires
		assertThat(queue.finish(running)).isTrue();
		setNextTick("single", tick + 2);
		TimerSteps.fireRecurring(queue, bucketOf("single"));
		info = queue.getRecurringJobs().find("single").orElseThrow();
		assertThat(info.fired()).isEqualTo(2);
		assertThat(info.lastFireTime()).isEqualTo(Instant.ofEpochMilli(tick + 2));
	}

	@Test
	void pauseResumeTriggerAndDelete() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(hourly("ops").build());
		assertThat(recurring.pause("ops")).isTrue();
		assertThat(recurring.find("ops").orElseThrow().paused()).isTrue();
		assertThat(recurring.find("ops").orElseThrow().nextFireTime()).isNull();
		// a paused definition does not fire, even when its bucket is fired
		assertThat(TimerSteps.fireRecurring(queue, bucketOf("ops"))).isEmpty();

		// a trigger creates an occurrence now, paused or not
		String id = recurring.trigger("ops").orElseThrow();
		assertThat(id).matches("ops@\\d{8}T\\d{6}(\\.\\d{3})?Z-trigger(~\\d+)?");
		assertThat(queue.find("reports", id).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(recurring.find("ops").orElseThrow().lastOccurrenceId()).isEqualTo(id);

		long now = redisNow();
		assertThat(recurring.resume("ops")).isTrue();
		RecurringJobInfo info = recurring.find("ops").orElseThrow();
		assertThat(info.paused()).isFalse();
		assertThat(info.nextFireTime()).isEqualTo(Instant.ofEpochMilli((now / HOUR + 1) * HOUR));

		assertThat(recurring.delete("ops")).isTrue();
		assertThat(recurring.find("ops")).isEmpty();
		assertThat(queue.find("reports", id)).isPresent();
		assertThat(recurring.delete("ops")).isFalse();
		assertThat(recurring.pause("ops")).isFalse();
		assertThat(recurring.resume("ops")).isFalse();
		assertThat(recurring.trigger("ops")).isEmpty();
	}

	@Test
	void anUpdateTakesEffectFromTheNextTickButKeepsATickThatCameAndWasNotFired() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(hourly("changing").build());
		Instant next = recurring.find("changing").orElseThrow().nextFireTime();
		recurring.put(hourly("changing").payload("{\"report\":2}").build());
		// not due yet: the changed definition's next tick is worked out from now
		assertThat(recurring.find("changing").orElseThrow().nextFireTime()).isEqualTo(next);
		assertThat(recurring.find("changing").orElseThrow().version()).isEqualTo(2);

		// a tick that came while no instance fired it stays, and fires with the new definition
		long tick = (redisNow() / 1000) * 1000;
		setNextTick("changing", tick);
		recurring.put(hourly("changing").payload("{\"report\":3}").build());
		RecurringJobInfo info = recurring.find("changing").orElseThrow();
		assertThat(info.version()).isEqualTo(3);
		assertThat(info.nextFireTime()).isEqualTo(Instant.ofEpochMilli(tick));
		TimerSteps.fireRecurring(queue, bucketOf("changing"));
		info = recurring.find("changing").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(new String(queue.find("reports", info.lastOccurrenceId()).orElseThrow().payload(),
				StandardCharsets.UTF_8)).isEqualTo("{\"report\":3}");
	}

	@Test
	void aTickIsNeverFiredTwiceEvenWhenTheScheduleComesBackToIt() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(hourly("once-only").build());
		long tick = (redisNow() / 1000) * 1000;
		setNextTick("once-only", tick);
		TimerSteps.fireRecurring(queue, bucketOf("once-only"));
		ReservedJob occurrence = queue.reserve("reports", 1, null).get(0);
		assertThat(queue.finish(occurrence)).isTrue();
		// a put delayed in flight, or Redis's clock stepping back, brings the schedule back to
		// the tick that was fired: it is not created again
		setNextTick("once-only", tick);
		TimerSteps.fireRecurring(queue, bucketOf("once-only"));
		RecurringJobInfo info = recurring.find("once-only").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(queue.find("reports", occurrence.id())).isEmpty();
		assertThat(info.nextFireTime()).isAfter(Instant.ofEpochMilli(tick));
	}

	@Test
	void aScheduleWithoutATickAfterNowIsRefused() {
		Map<String, String> snapshot = this.queues.bucketSnapshot();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.getRecurringJobs().put(hourly("never").cron("0 0 0 30 2 *", "UTC").build()))
			.withMessageContaining("has no tick after");
		assertThat(this.queues.bucketSnapshot()).isEqualTo(snapshot);
	}

	@Test
	void aTickWhoseAnnouncementWasLostIsFiredByTheGuard() {
		RecurringJobs recurring = this.queue.getRecurringJobs();
		recurring.put(hourly("unannounced").build());
		// written behind the timer's back: no announcement, only the guard re-check finds it
		setNextTick("unannounced", (redisNow() / 1000) * 1000);
		await().atMost(Duration.ofSeconds(15))
			.until(() -> recurring.find("unannounced").orElseThrow().fired() == 1);
	}

	@Test
	void catchUpsAreBoundedByMaxCatchUpAndOverlapSkipKeepsOnlyTheNewest() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		// every second, a threshold of an hour: 100 ticks that are all on time
		recurring.put(RecurringJob.builder("many")
			.topic("many")
			.every(Duration.ofSeconds(1))
			.misfireThreshold(Duration.ofHours(1))
			.misfirePolicy(MisfirePolicy.SKIP)
			.maxCatchUp(5)
			.build());
		long now = (redisNow() / 1000) * 1000;
		setNextTick("many", now - 99_000);
		TimerSteps.fireRecurring(queue, bucketOf("many"));
		RecurringJobInfo info = recurring.find("many").orElseThrow();
		assertThat(info.fired()).isEqualTo(5);
		assertThat(info.skipped()).isGreaterThanOrEqualTo(95);
		assertThat(info.lastFireTime()).isAfterOrEqualTo(Instant.ofEpochMilli(now));

		recurring.put(RecurringJob.builder("single")
			.topic("single")
			.every(Duration.ofSeconds(1))
			.misfireThreshold(Duration.ofMillis(1))
			.misfirePolicy(MisfirePolicy.FIRE_ALL)
			.overlapPolicy(OverlapPolicy.SKIP)
			.build());
		setNextTick("single", now - 9_000);
		TimerSteps.fireRecurring(queue, bucketOf("single"));
		info = recurring.find("single").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(queue.find("single", info.lastOccurrenceId()).orElseThrow().dueAt())
			.isAfterOrEqualTo(Instant.ofEpochMilli(now));
	}

	@Test
	void oneCallCreatesAtMostAThousandOccurrencesAndLeavesTheRestDue() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		long now = (redisNow() / 1000) * 1000;
		// two definitions in one bucket, each catching up 800 ticks
		List<String> names = new ArrayList<>();
		int bucket = bucketOf("catch-0");
		for (int i = 0; names.size() < 2; i++) {
			if (bucketOf("catch-" + i) == bucket) {
				names.add("catch-" + i);
			}
		}
		for (String name : names) {
			recurring.put(RecurringJob.builder(name)
				.topic("catch")
				.every(Duration.ofSeconds(1))
				.misfireThreshold(Duration.ofMillis(1))
				.misfirePolicy(MisfirePolicy.FIRE_ALL)
				.maxCatchUp(1_000)
				.build());
			setNextTick(name, now - 799_000);
		}
		TimerSteps.fireRecurring(queue, bucket);
		// one definition whole, the other left due; a second that began before the call adds a tick
		long begun = ((redisNow() / 1000) * 1000 - now) / 1000;
		long[] fired = recurring.list().stream().mapToLong(RecurringJobInfo::fired).sorted().toArray();
		assertThat(fired[0]).isZero();
		assertThat(fired[1]).isBetween(800L, 800L + begun);
		TimerSteps.fireRecurring(queue, bucket);
		assertThat(recurring.list()).allSatisfy((info) -> assertThat(info.fired()).isGreaterThanOrEqualTo(800));
	}

	@Test
	void aDefinitionThatCannotBeReadIsLeftOutAndDoesNotStopTheOthers() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(hourly("broken").build());
		recurring.put(hourly("fine").build());
		String key = "{" + this.queues.namespace + ":" + bucketOf("broken") + "}:recurring";
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.hashCommands()
				.hSet(key.getBytes(StandardCharsets.UTF_8), "broken".getBytes(StandardCharsets.UTF_8),
						"written by another version".getBytes(StandardCharsets.UTF_8));
		}
		long tick = (redisNow() / 1000) * 1000;
		setNextTick("broken", tick);
		setNextTick("fine", tick);
		assertThat(recurring.list()).extracting(RecurringJobInfo::name).containsExactly("fine");
		TimerSteps.fireRecurring(queue, bucketOf("broken"));
		TimerSteps.fireRecurring(queue, bucketOf("fine"));
		assertThat(recurring.find("fine").orElseThrow().fired()).isEqualTo(1);
		// a put replaces it
		assertThat(recurring.put(hourly("broken").build())).isEqualTo(PutResult.CREATED);
		assertThat(recurring.list()).extracting(RecurringJobInfo::name).containsExactly("broken", "fine");
	}

	@Test
	void aFixedDelayCreatesTheNextOccurrenceOnlyOnceThePreviousLeftTheQueue() throws InterruptedException {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(RecurringJob.builder("sweep").topic("sweeps").fixedDelay(Duration.ofHours(1)).build());
		// its first tick is right after the put: the first occurrence is due an hour later
		setNextTick("sweep", redisNow());
		long before = redisNow();
		TimerSteps.fireRecurring(queue, bucketOf("sweep"));
		RecurringJobInfo info = recurring.find("sweep").orElseThrow();
		JobInfo first = queue.find("sweeps", info.lastOccurrenceId()).orElseThrow();
		assertThat(first.state()).isEqualTo(JobState.DELAYED);
		assertThat(first.dueAt().toEpochMilli()).isBetween(before + HOUR, redisNow() + HOUR);
		assertThat(info.nextFireTime()).isEqualTo(first.dueAt());

		// while it is in the queue, a tick only looks again, within a second
		setNextTick("sweep", redisNow());
		long looked = redisNow();
		TimerSteps.fireRecurring(queue, bucketOf("sweep"));
		info = recurring.find("sweep").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(info.skipped()).isZero();
		assertThat(info.nextFireTime().toEpochMilli()).isBetween(looked, redisNow() + 1_000);

		// gone: the next one is created, due an hour after
		assertThat(queue.cancel("sweeps", first.id())).isTrue();
		setNextTick("sweep", redisNow());
		long gone = redisNow();
		TimerSteps.fireRecurring(queue, bucketOf("sweep"));
		info = recurring.find("sweep").orElseThrow();
		assertThat(info.fired()).isEqualTo(2);
		JobInfo second = queue.find("sweeps", info.lastOccurrenceId()).orElseThrow();
		assertThat(second.id()).isNotEqualTo(first.id());
		assertThat(second.dueAt().toEpochMilli()).isBetween(gone + HOUR, redisNow() + HOUR);
	}

	@Test
	void aFixedDelayRunsTheDelayAfterThePreviousOccurrenceFinished() throws InterruptedException {
		RecurringJobs recurring = this.queue.getRecurringJobs();
		recurring.put(RecurringJob.builder("poll").topic("polls").fixedDelay(Duration.ofSeconds(1)).build());
		ReservedJob first = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.reserve("polls", 1, Duration.ofMinutes(1)), (jobs) -> !jobs.isEmpty())
			.get(0);
		// the work takes a while: no second occurrence meanwhile
		Thread.sleep(1_500);
		assertThat(this.queue.stats().topics().get("polls").delayed()).isZero();
		assertThat(this.queue.stats().topics().get("polls").ready()).isZero();
		long finished = redisNow();
		assertThat(this.queue.finish(first)).isTrue();
		ReservedJob second = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.reserve("polls", 1, null), (jobs) -> !jobs.isEmpty())
			.get(0);
		recurring.delete("poll");
		// due the delay after the finish, seen within the look interval (a second)
		assertThat(second.dueAt().toEpochMilli() - finished).isBetween(1_000L, 2_500L);
		assertThat(this.queue.finish(second)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			this.queue.reserve("polls", 10, null).forEach(this.queue::finish);
			var polls = this.queue.stats().topics().get("polls");
			return polls == null || polls.total() == 0;
		});
	}

	@Test
	void aFireOnceOccurrenceStandsForEveryTickItCovers() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs().put(hourly("covered").misfireThreshold(Duration.ofMillis(1)).build());
		long first = (redisNow() / HOUR - 5) * HOUR;
		setNextTick("covered", first);
		TimerSteps.fireRecurring(queue, bucketOf("covered"));
		// none of the ticks it stood for is fired again, however the schedule comes back to them
		setNextTick("covered", first + 3 * HOUR);
		TimerSteps.fireRecurring(queue, bucketOf("covered"));
		RecurringJobInfo info = queue.getRecurringJobs().find("covered").orElseThrow();
		assertThat(info.fired()).isEqualTo(1);
		assertThat(info.lastFireTime()).isEqualTo(Instant.ofEpochMilli(first + 5 * HOUR));
	}

	@Test
	void aDueEntryWithoutADefinitionIsDropped() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs().put(hourly("real").build());
		setNextTick("ghost", redisNow() - 1_000);
		// the ghost shares no bucket with "real" necessarily: fire the ghost's own bucket
		assertThat(TimerSteps.fireRecurring(queue, bucketOf("ghost"))).isEmpty();
		String key = "{" + this.queues.namespace + ":" + bucketOf("ghost") + "}:recurring-due";
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			assertThat(connection.zSetCommands().zScore(key.getBytes(StandardCharsets.UTF_8),
					"ghost".getBytes(StandardCharsets.UTF_8))).isNull();
		}
	}

	@Test
	void aRecordWrittenByThePreviousVersionReadsAndEncodesTheSame() {
		String spec = "v=1\ntopic=reports\ncron=0 30 2 * * *\nzone=Europe/Berlin\nttr=60000\nmax=3\nmisfire=SKIP\n"
				+ "threshold=10000\ncatchup=10\noverlap=SKIP\ndeclared=1\nh.tenant=a=b\n\n{\"n\":1}";
		byte[] record = ("2,17,1,5,1,0,1700000000000,-1,reports:nightly@x\n" + spec).getBytes(StandardCharsets.UTF_8);
		RecurringJobInfo decoded = RecurringRecord.decode("nightly", List.of(record, -1L, "R".getBytes(StandardCharsets.UTF_8)), 0);
		assertThat(RecurringRecord.genOf(record)).isEqualTo(17);
		assertThat(decoded.version()).isEqualTo(2);
		assertThat(decoded.paused()).isTrue();
		assertThat(decoded.fired()).isEqualTo(5);
		assertThat(decoded.lastFireTime()).isEqualTo(Instant.ofEpochMilli(1700000000000L));
		assertThat(decoded.lastOccurrenceId()).isEqualTo("nightly@x");
		assertThat(decoded.lastOccurrenceState()).isEqualTo(JobState.READY);
		assertThat(decoded.job().getHeaders()).containsExactly(Map.entry("tenant", "a=b"));
		assertThat(decoded.job().getPayloadText()).isEqualTo("{\"n\":1}");
		assertThat(new String(RecurringRecord.encodeSpec(decoded.job()), StandardCharsets.UTF_8)).isEqualTo(spec);
		assertThat(RecurringRecord.genOf("written by another version".getBytes(StandardCharsets.UTF_8))).isEqualTo(-1);
		byte[] largest = ("2,17,1,9223372036854775807,1,0,1700000000000,-1,x\n" + spec).getBytes(StandardCharsets.UTF_8);
		assertThat(RecurringRecord.decode("nightly", List.of(largest, -1L, new byte[0]), 0).fired()).isEqualTo(Long.MAX_VALUE);
		byte[] notANumber = ("2,17,1,5x,1,0,1700000000000,-1,x\n" + spec).getBytes(StandardCharsets.UTF_8);
		assertThat(RecurringRecord.genOf(notANumber)).isEqualTo(-1);
	}

	@Test
	void aFireCallWithMalformedArgumentsIsRefusedBeforeItWritesAnything() {
		RedisDelayQueue queue = manual();
		queue.getRecurringJobs().put(hourly("valid").build());
		int bucket = bucketOf("valid");
		long tick = redisNow() - 1_000;
		setNextTick("valid", tick);
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		byte[] defs = KeySpace.bytes(keys.prefix(bucket) + "recurring");
		byte[] due = KeySpace.bytes(keys.prefix(bucket) + "recurring-due");
		byte[] name = KeySpace.bytes("valid");
		byte[] record;
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			record = connection.hashCommands().hGet(defs, name);
		}
		// a valid plan that moves "valid" on, then a plan announcing more occurrences than it carries
		List<String> arguments = List.of(keys.channel(), String.valueOf(bucket), "fire", "valid",
				String.valueOf(RecurringRecord.genOf(record)), String.valueOf(tick), String.valueOf(tick + HOUR), "0", "0",
				"0", "0", "other", "1", String.valueOf(tick), String.valueOf(tick + HOUR), "0", "0", "0", "3");
		byte[][] call = new byte[2 + arguments.size()][];
		call[0] = keys.jobs(bucket);
		call[1] = keys.guard(bucket);
		for (int i = 0; i < arguments.size(); i++) {
			call[2 + i] = KeySpace.bytes(arguments.get(i));
		}
		ScriptRunner runner = new ScriptRunner(queue.getConnectionFactory());
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> runner.run(LuaScript.job("recurring"), call))
			.withStackTraceContaining("malformed fire arguments");
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			assertThat(connection.hashCommands().hGet(defs, name)).as("record unchanged").isEqualTo(record);
			assertThat(connection.zSetCommands().zScore(due, name)).as("next tick unchanged").isEqualTo((double) tick);
		}
	}

	@Test
	void aCronCatchUpBeyondTheCountingLimitStillFindsTheMostRecentTicks() {
		RecurringSchedule everySecond = RecurringSchedule.cron("* * * * * *", "UTC");
		long now = 1_800_000_000_000L;
		long first = now - 200_000_000L;
		RecurringTicks ticks = RecurringTicks.between(everySecond, first, now, now - 10_000, 1);
		assertThat(ticks.recent()).containsExactly(now);
		ticks = RecurringTicks.between(everySecond, first, now, now - 10_000, 3);
		assertThat(ticks.recent()).containsExactly(now - 2_000, now - 1_000, now);
		// counted one by one up to the limit; those skipped by the jump are not counted
		assertThat(ticks.late()).isEqualTo(100_000);
		// office hours only: the last ticks are those of the evening before
		RecurringSchedule officeHours = RecurringSchedule.cron("* * 9-16 * * *", "UTC");
		long evening = Instant.parse("2027-03-10T20:00:00Z").toEpochMilli();
		ticks = RecurringTicks.between(officeHours, evening - 30L * 24 * HOUR, evening, evening - 10_000, 2);
		assertThat(ticks.recent()).hasSize(2)
			.last()
			.isEqualTo(Instant.parse("2027-03-10T16:59:59Z").toEpochMilli());
		// bursts (every second on Mondays and Tuesdays), on a Thursday: the end of Tuesday,
		// though a stretch back to Monday holds too many to count
		RecurringSchedule bursts = RecurringSchedule.cron("* * * * * MON,TUE", "UTC");
		long thursday = Instant.parse("2027-03-11T15:00:00Z").toEpochMilli();
		ticks = RecurringTicks.between(bursts, thursday - 21L * 24 * HOUR, thursday, thursday - 10_000, 3);
		assertThat(ticks.recent()).containsExactly(Instant.parse("2027-03-09T23:59:57Z").toEpochMilli(),
				Instant.parse("2027-03-09T23:59:58Z").toEpochMilli(), Instant.parse("2027-03-09T23:59:59Z").toEpochMilli());
		// a fixed rate's are worked out
		RecurringSchedule everyMinute = RecurringSchedule.every(Duration.ofMinutes(1));
		ticks = RecurringTicks.between(everyMinute, now - 600_000 - 1, now, now - 120_000, 3);
		// the first (off the grid), then the 11 multiples of a minute up to now
		assertThat(ticks.total()).isEqualTo(12);
		assertThat(ticks.recent()).containsExactly(now - 120_000, now - 60_000, now);
		assertThat(ticks.late()).isEqualTo(9);
		assertThat(ticks.recent()).filteredOn((tick) -> tick >= now - 120_000).hasSize(3);
	}

	@Test
	void aTriggerDoesNotMakeAFixedDelayLoseTheOccurrenceItScheduled() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(RecurringJob.builder("watch").topic("watches").fixedDelay(Duration.ofHours(1)).build());
		setNextTick("watch", redisNow());
		TimerSteps.fireRecurring(queue, bucketOf("watch"));
		String scheduled = recurring.find("watch").orElseThrow().lastOccurrenceId();
		// a trigger runs beside it, and finishes
		String triggered = recurring.trigger("watch").orElseThrow();
		assertThat(queue.cancel("watches", triggered)).isTrue();
		assertThat(recurring.find("watch").orElseThrow().lastOccurrenceId()).isEqualTo(scheduled);
		// the scheduled one is still DELAYED: a look creates nothing
		setNextTick("watch", redisNow());
		TimerSteps.fireRecurring(queue, bucketOf("watch"));
		RecurringJobInfo info = recurring.find("watch").orElseThrow();
		assertThat(info.fired()).isEqualTo(2);
		assertThat(info.lastOccurrenceId()).isEqualTo(scheduled);
		assertThat(queue.stats().topics().get("watches").delayed()).isEqualTo(1);
	}

	@Test
	void aTriggerThatFinishesDoesNotLetOverlapSkipFireWhileTheTicksOccurrenceRuns() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(hourly("single").overlapPolicy(OverlapPolicy.SKIP).build());
		long tick = (redisNow() / 1000) * 1000;
		setNextTick("single", tick);
		TimerSteps.fireRecurring(queue, bucketOf("single"));
		String scheduled = recurring.find("single").orElseThrow().lastOccurrenceId();
		ReservedJob running = queue.reserve("reports", 1, Duration.ofHours(1)).get(0);
		assertThat(running.id()).isEqualTo(scheduled);
		// a trigger runs beside it, and finishes
		String triggered = recurring.trigger("single").orElseThrow();
		ReservedJob trigger = queue.reserve("reports", 1, null).get(0);
		assertThat(trigger.id()).isEqualTo(triggered);
		assertThat(queue.finish(trigger)).isTrue();
		// the tick's occurrence still runs: the next tick is skipped
		setNextTick("single", tick + 1);
		TimerSteps.fireRecurring(queue, bucketOf("single"));
		RecurringJobInfo info = recurring.find("single").orElseThrow();
		assertThat(info.fired()).isEqualTo(2);
		assertThat(info.skipped()).isEqualTo(1);
		assertThat(info.lastOccurrenceId()).isEqualTo(scheduled);
		assertThat(queue.stats().topics().get("reports").reserved()).isEqualTo(1);
		assertThat(queue.stats().topics().get("reports").ready()).isZero();
		assertThat(queue.finish(running)).isTrue();
	}

	@Test
	void aTriggerBetweenTwoFixedDelayOccurrencesDoesNotMakeTheScheduleWait() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(RecurringJob.builder("watch").topic("watches").fixedDelay(Duration.ofHours(1)).build());
		setNextTick("watch", redisNow());
		TimerSteps.fireRecurring(queue, bucketOf("watch"));
		String first = recurring.find("watch").orElseThrow().lastOccurrenceId();
		// the first occurrence leaves the queue
		assertThat(queue.cancel("watches", first)).isTrue();
		// before the next look, a trigger's occurrence fails and waits an hour for its retry
		String triggered = recurring.trigger("watch").orElseThrow();
		ReservedJob trigger = queue.reserve("watches", 1, null).get(0);
		assertThat(trigger.id()).isEqualTo(triggered);
		assertThat(queue.fail(trigger, Duration.ofHours(1), "down")).isEqualTo(FailResult.RETRYING);
		// the look creates the next occurrence, due after the delay
		setNextTick("watch", redisNow());
		TimerSteps.fireRecurring(queue, bucketOf("watch"));
		RecurringJobInfo info = recurring.find("watch").orElseThrow();
		assertThat(info.fired()).isEqualTo(3);
		assertThat(info.lastOccurrenceId()).isNotIn(first, triggered);
		assertThat(queue.find("watches", info.lastOccurrenceId()).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(queue.stats().topics().get("watches").delayed()).isEqualTo(2);
	}

	@Test
	void aShorterFixedDelayIsNotHeldBackByTheLongerOnesPendingTick() {
		RedisDelayQueue queue = manual();
		RecurringJobs recurring = queue.getRecurringJobs();
		recurring.put(RecurringJob.builder("shrink").topic("shrinks").fixedDelay(Duration.ofHours(3)).build());
		setNextTick("shrink", redisNow());
		TimerSteps.fireRecurring(queue, bucketOf("shrink"));
		String first = recurring.find("shrink").orElseThrow().lastOccurrenceId();
		assertThat(queue.cancel("shrinks", first)).isTrue();
		recurring.put(RecurringJob.builder("shrink").topic("shrinks").fixedDelay(Duration.ofSeconds(1)).build());
		setNextTick("shrink", redisNow());
		TimerSteps.fireRecurring(queue, bucketOf("shrink"));
		RecurringJobInfo info = recurring.find("shrink").orElseThrow();
		assertThat(info.fired()).isEqualTo(2);
		assertThat(info.skipped()).isZero();
		assertThat(queue.find("shrinks", info.lastOccurrenceId()).orElseThrow().dueAt())
			.isBefore(Instant.ofEpochMilli(redisNow() + 2_000));
	}

	@Test
	void manyInstancesFiringTheSameBucketAtOnceCreateEachTickOnce() throws Exception {
		RedisDelayQueue queue = manual();
		List<RedisDelayQueue> instances = List.of(queue, this.queues.start((builder) -> builder.timerEnabled(false)),
				this.queues.start((builder) -> builder.timerEnabled(false)));
		queue.getRecurringJobs().put(hourly("race").build());
		int bucket = bucketOf("race");
		long tick = (redisNow() / 1000) * 1000;
		ExecutorService pool = Executors.newFixedThreadPool(6);
		try {
			for (int round = 0; round < 20; round++) {
				setNextTick("race", tick + round);
				CountDownLatch start = new CountDownLatch(1);
				List<Future<?>> firings = new ArrayList<>();
				for (int i = 0; i < 6; i++) {
					RedisDelayQueue instance = instances.get(i % 3);
					firings.add(pool.submit(() -> {
						start.await();
						return TimerSteps.fireRecurring(instance, bucket);
					}));
				}
				start.countDown();
				for (Future<?> firing : firings) {
					firing.get();
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
		RecurringJobInfo info = queue.getRecurringJobs().find("race").orElseThrow();
		assertThat(info.fired()).isEqualTo(20);
		assertThat(queue.stats().topics().get("reports").ready()).isEqualTo(20);
	}

	@Test
	void aDefinitionsBucketHoldsItsOccurrences() {
		RedisDelayQueue queue = manual();
		Map<String, Integer> buckets = new ConcurrentHashMap<>();
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		for (int i = 0; i < 200; i++) {
			RecurringJob job = hourly("job-" + i).topic("topic-" + (i % 7)).build();
			String id = RedisRecurringJobs.occurrenceId(keys, job, 1_700_000_000_000L + i * 1_234L, i % 2 == 0);
			buckets.put(id, keys.bucketOf(job.getTopic(), id));
			assertThat(keys.bucketOf(job.getTopic(), id)).as(id).isEqualTo(keys.bucketOfName(job.getName()));
		}
		assertThat(buckets).hasSize(200);
		assertThat(Optional.of(RedisRecurringJobs.occurrenceId(keys, hourly("n").build(), 1_700_000_000_250L, false)))
			.hasValueSatisfying((id) -> assertThat(id).startsWith("n@20231114T221320.250Z"));
	}

}
