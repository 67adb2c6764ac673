package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringSchedule;
import org.jspecify.annotations.Nullable;

/**
 * Fires the recurring jobs of a bucket whose tick has come, for the bucket's timer: reads them
 * ({@code recurring.lua due}), works out each one's occurrences by its schedule and misfire
 * policy here (the schedule is Spring's {@code CronExpression}, which Lua cannot run), and
 * creates them with the definition's next tick in one script call that fires a definition
 * only while it is unchanged and still at the tick read. A second timer firing the same
 * bucket at the same moment therefore creates nothing more.
 */
final class RecurringFiring {

	private static final Log logger = LogFactory.getLog(RecurringFiring.class);

	/** The most definitions one call fires; more due ones are fired by the next call. */
	private static final int DUE_LIMIT = 100;

	/** How often a fixed delay looks whether its occurrence left the queue, at most. */
	private static final long FIXED_DELAY_LOOK_MILLIS = 1_000;

	/** The most occurrences one call creates. */
	private static final int MAX_OCCURRENCES = 1_000;

	/** The most payload bytes (with headers) of the occurrences one call creates. */
	private static final long MAX_BYTES = 16L * 1024 * 1024;

	/** How long a definition whose spec cannot be read waits before it is read again. */
	private static final long UNREADABLE_RETRY_MILLIS = 60_000;

	private static final DateTimeFormatter TICK = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss")
		.withZone(ZoneOffset.UTC);

	private final QueueScripts scripts;

	private final KeySpace keys;

	private final Duration defaultTtr;

	private final int defaultMaxAttempts;

	private final DelayQueueObserver observer;

	RecurringFiring(QueueScripts scripts, KeySpace keys, Duration defaultTtr, int defaultMaxAttempts,
			DelayQueueObserver observer) {
		this.scripts = scripts;
		this.keys = keys;
		this.defaultTtr = defaultTtr;
		this.defaultMaxAttempts = defaultMaxAttempts;
		this.observer = observer;
	}

	/**
	 * The id of a recurring job's occurrence: {@code <name>@<tick>}, the tick in UTC, then
	 * {@code -trigger} for a manual one, then {@code ~<n>} with the smallest n that puts it into
	 * the definition's bucket (none when it lands there already).
	 * @param job the definition
	 * @param tickMillis the tick
	 * @param trigger whether it is a manual trigger
	 * @return the id
	 */
	String occurrenceId(RecurringJob job, long tickMillis, boolean trigger) {
		Instant tick = Instant.ofEpochMilli(tickMillis);
		long millis = Math.floorMod(tickMillis, 1000L);
		String base = job.getName() + "@" + TICK.format(tick) + ((millis != 0) ? String.format(".%03d", millis) : "")
				+ "Z" + (trigger ? "-trigger" : "");
		int bucket = this.keys.bucketOfName(job.getName());
		String id = base;
		for (int n = 1; this.keys.bucketOf(job.getTopic(), id) != bucket; n++) {
			id = base + "~" + n;
		}
		return id;
	}

	/**
	 * The script arguments of one occurrence: seven for a firing (the last, the tick it stands
	 * for, is the latest of the ticks it covers), five for a trigger.
	 */
	void addOccurrence(List<Object> arguments, RecurringJob job, long idTickMillis, long dueMillis, long tickMillis,
			boolean trigger) {
		String id = occurrenceId(job, idTickMillis, trigger);
		arguments.add(KeySpace.jobKey(job.getTopic(), id));
		arguments.add(job.getTopic());
		arguments.add(StoredPayload.encode(job.getHeaders(), job.getPayload()));
		if (!trigger) {
			arguments.add(dueMillis);
		}
		arguments.add(((job.getTtr() != null) ? job.getTtr() : this.defaultTtr).toMillis());
		arguments.add((job.getMaxAttempts() != null) ? job.getMaxAttempts() : this.defaultMaxAttempts);
		if (!trigger) {
			arguments.add(tickMillis);
		}
	}

	/**
	 * Fires the definitions of a bucket whose tick has come. One call creates at most
	 * {@value #MAX_OCCURRENCES} occurrences of at most {@value #MAX_BYTES} bytes of payload in
	 * all (a definition alone is cut to that); definitions beyond that stay due, for the next
	 * call.
	 * @param bucket the bucket
	 * @return the bucket's next tick, Redis's time, the topics that got READY jobs, and whether
	 * any definition moved on
	 */
	@SuppressWarnings("NullAway") // the script's reply has these values
	TimerBackend.RecurringStep fire(int bucket) {
		List<Object> due = Replies.list(this.scripts.recurring(bucket, "due", DUE_LIMIT));
		long now = Replies.asLong(due.get(0));
		long head = Replies.asLong(due.get(1));
		if (due.size() == 2) {
			return new TimerBackend.RecurringStep(head, now, List.of(), true);
		}
		List<Object> arguments = new ArrayList<>();
		arguments.add("fire");
		List<Plan> plans = new ArrayList<>();
		Budget budget = new Budget();
		long[] counted = { 0 };
		for (int i = 2; i + 3 < due.size(); i += 4) {
			String name = Replies.asString(due.get(i));
			byte[] value = Replies.asBytes(due.get(i + 1));
			long tick = Replies.asLong(due.get(i + 2));
			String lastState = Replies.asString(due.get(i + 3));
			if (!plans.isEmpty() && counted[0] >= RecurringTicks.TICK_LIMIT) {
				// enough ticks counted for one call: the rest stay due
				break;
			}
			Plan plan = plan(name, value, tick, now, lastState, counted);
			if (!plans.isEmpty() && !budget.fits(plan)) {
				// it stays due, for the next call
				break;
			}
			budget.take(plan);
			plans.add(plan);
			arguments.add(name);
			arguments.add(plan.gen);
			arguments.add(tick);
			arguments.add(plan.nextTick);
			arguments.add(plan.overlap ? "1" : "0");
			arguments.add(plan.skipped);
			arguments.add(plan.misfired);
			arguments.add(plan.occurrences.size());
			for (long[] occurrence : plan.occurrences) {
				addOccurrence(arguments, plan.job, occurrence[0], occurrence[1], occurrence[2], false);
			}
		}
		List<Object> reply = Replies.list(this.scripts.recurring(bucket, arguments.toArray()));
		long redisMillis = Replies.asLong(reply.get(0));
		long next = Replies.asLong(reply.get(1));
		int topicCount = (int) Replies.asLong(reply.get(2));
		List<String> topics = new ArrayList<>(topicCount);
		for (int i = 0; i < topicCount; i++) {
			topics.add(Replies.asString(reply.get(3 + i)));
		}
		int at = 3 + topicCount;
		boolean progressed = false;
		for (Plan plan : plans) {
			String result = Replies.asString(reply.get(at));
			long created = Replies.asLong(reply.get(at + 1));
			at += 2;
			progressed |= !"s".equals(result) && !"e".equals(result);
			report(plan, result, created);
		}
		return new TimerBackend.RecurringStep(next, redisMillis, topics, progressed);
	}

	private void report(Plan plan, String result, long created) {
		if ("u".equals(result)) {
			logger.error("Cannot read the recurring job " + plan.name + " of this namespace (written by another "
					+ "version?): it is not fired until it is put again");
			return;
		}
		if (plan.job == null) {
			return;
		}
		if ("f".equals(result)) {
			long skipped = plan.skipped + plan.occurrences.size() - created;
			if (created == 0 && skipped == 0 && plan.misfired == 0) {
				// a fixed delay that looked and waits on
				return;
			}
			this.observer.recurringFired(plan.name, plan.job.getTopic(), created, skipped, plan.misfired);
			if (plan.misfired > 0 && logger.isInfoEnabled()) {
				logger.info("Recurring job " + plan.name + " missed " + plan.misfired + " tick(s) (misfire policy "
						+ plan.job.getMisfirePolicy() + "): created " + created + " occurrence(s)");
			}
		}
		else if ("k".equals(result)) {
			this.observer.recurringFired(plan.name, plan.job.getTopic(), 0, plan.skipped + plan.occurrences.size(),
					plan.misfired);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Recurring job " + plan.name + " not fired: " + result);
		}
	}

	/**
	 * What one definition's firing creates. A record whose spec cannot be read is only moved
	 * on (logged); one whose header cannot be read either is left to the script, which takes
	 * it out of the due set.
	 */
	private Plan plan(String name, byte[] value, long tick, long now, String lastState, long[] counted) {
		RecurringRecord record;
		try {
			record = RecurringRecord.decode(name, value);
		}
		catch (RuntimeException ex) {
			long gen = RecurringRecord.genOf(value);
			if (gen >= 0) {
				logger.error("Cannot read the recurring job " + name + " of this namespace (written by another "
						+ "version?); it is not fired. Put it again to replace it: " + ex.getMessage());
			}
			return new Plan(name, null, gen, (gen >= 0) ? now + UNREADABLE_RETRY_MILLIS : -1, false, 0, 0, List.of(), 0);
		}
		RecurringJob job = record.job();
		RecurringSchedule schedule = job.getSchedule();
		if (schedule.getDelay() != null) {
			return fixedDelay(name, job, record, now, lastState);
		}
		Instant nextAfterNow = schedule.next(Instant.ofEpochMilli(now));
		long nextTick = (nextAfterNow != null) ? nextAfterNow.toEpochMilli() : -1;
		// the most occurrences this definition may create now: its catch-up limit, within the
		// limits of one call
		long size = Math.max(1, StoredPayload.size(job.getHeaders(), job.getPayload()));
		int cap = (int) Math.max(1, Math.min(Math.min(job.getMaxCatchUp(), MAX_OCCURRENCES), MAX_BYTES / size));
		RecurringTicks ticks = RecurringTicks.between(schedule, tick, now, now - job.getMisfireThreshold().toMillis(), cap);
		counted[0] += ticks.iterations();
		long misfired = ticks.late();
		List<long[]> occurrences = new ArrayList<>();
		List<Long> recent = ticks.recent();
		int onTime = ticks.onTime();
		if (ticks.late() == 0 || job.getMisfirePolicy() == MisfirePolicy.FIRE_ALL) {
			// on time, or every missed tick: the most recent ones, at most cap
			recent.forEach((t) -> occurrences.add(new long[] { t, t, t }));
		}
		else if (job.getMisfirePolicy() == MisfirePolicy.FIRE_ONCE) {
			// one occurrence, due now, named after the first tick it stands for, recorded as the
			// last (none of them is fired again)
			occurrences.add(new long[] { tick, now, recent.get(recent.size() - 1) });
		}
		else {
			// SKIP: the late ticks create nothing; the most recent of those still on time do
			recent.subList(Math.max(0, recent.size() - onTime), recent.size())
				.forEach((t) -> occurrences.add(new long[] { t, t, t }));
		}
		if (job.getOverlapPolicy() == OverlapPolicy.SKIP && occurrences.size() > 1) {
			// at most one at a time: the newest
			occurrences.subList(0, occurrences.size() - 1).clear();
		}
		long skipped = ticks.total() - occurrences.size();
		return new Plan(name, job, record.gen(), nextTick, job.getOverlapPolicy() == OverlapPolicy.SKIP, skipped,
				misfired, occurrences, occurrences.size() * size);
	}

	/**
	 * A fixed delay's firing: while the last occurrence is in the queue (due, running or
	 * waiting for a retry), look again shortly; once it left, create the next one, due after
	 * the delay, and look again when it is due. (A trigger's occurrence runs beside it: a
	 * trigger does not make the schedule wait.)
	 */
	@SuppressWarnings("NullAway") // called for a fixed delay only
	private Plan fixedDelay(String name, RecurringJob job, RecurringRecord record, long now, String lastState) {
		long delay = job.getSchedule().getDelay().toMillis();
		boolean inQueue = !lastState.isEmpty() && !lastState.equals("X");
		if (inQueue) {
			return new Plan(name, job, record.gen(), now + Math.min(delay, FIXED_DELAY_LOOK_MILLIS), false, 0, 0,
					List.of(), 0);
		}
		long due = now + delay;
		long size = Math.max(1, StoredPayload.size(job.getHeaders(), job.getPayload()));
		return new Plan(name, job, record.gen(), due, false, 0, 0, List.of(new long[] { due, due, due }), size);
	}

	/**
	 * What is left of one call's limits.
	 */
	private static final class Budget {

		int occurrences = MAX_OCCURRENCES;

		long bytes = MAX_BYTES;

		boolean fits(Plan plan) {
			return plan.occurrences.size() <= this.occurrences && plan.bytes <= this.bytes;
		}

		void take(Plan plan) {
			this.occurrences -= plan.occurrences.size();
			this.bytes -= plan.bytes;
		}

	}

	/**
	 * One definition's firing.
	 *
	 * @param name its name
	 * @param job the definition, or {@code null} when it cannot be read (it is then only moved
	 * on to nextTick, or taken out of the due set by the script)
	 * @param gen its gen, or -1 when not even its header can be read
	 * @param nextTick its next tick, or -1 for none
	 * @param overlap whether a tick is skipped while the last occurrence still exists
	 * @param skipped ticks that create nothing
	 * @param misfired ticks that came late
	 * @param occurrences the occurrences: the tick its id names, its due time and the tick it is
	 * recorded as (the latest it stands for), in ms
	 * @param bytes their payload bytes (with headers) in all
	 */
	private record Plan(String name, @Nullable RecurringJob job, long gen, long nextTick, boolean overlap, long skipped,
			long misfired, List<long[]> occurrences, long bytes) {

	}

}
