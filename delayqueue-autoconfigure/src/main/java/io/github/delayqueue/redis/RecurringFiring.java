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

	/** The most past ticks of one definition that one firing counts. */
	private static final int TICK_LIMIT = 10_000;

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
	 * The seven script arguments of one occurrence.
	 */
	void addOccurrence(List<Object> arguments, RecurringJob job, long tickMillis, long dueMillis, boolean trigger) {
		String id = occurrenceId(job, tickMillis, trigger);
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
	 * Fires the definitions of a bucket whose tick has come.
	 * @param bucket the bucket
	 * @return the bucket's next tick, Redis's time and the topics that got READY jobs
	 */
	TimerBackend.RecurringStep fire(int bucket) {
		List<Object> due = Replies.list(this.scripts.recurring(bucket, "due", DUE_LIMIT));
		long now = Replies.asLong(due.get(0));
		long head = Replies.asLong(due.get(1));
		if (due.size() == 2) {
			return new TimerBackend.RecurringStep(head, now, List.of());
		}
		List<Object> arguments = new ArrayList<>();
		arguments.add("fire");
		List<Plan> plans = new ArrayList<>();
		for (int i = 2; i + 2 < due.size(); i += 3) {
			String name = Replies.asString(due.get(i));
			byte[] value = Replies.asBytes(due.get(i + 1));
			long tick = Replies.asLong(due.get(i + 2));
			Plan plan = plan(name, value, tick, now);
			if (plan == null) {
				continue;
			}
			plans.add(plan);
			arguments.add(name);
			arguments.add(plan.version);
			arguments.add(tick);
			arguments.add(plan.nextTick);
			arguments.add(plan.overlap ? "1" : "0");
			arguments.add(plan.skipped);
			arguments.add(plan.misfired);
			arguments.add(plan.occurrences.size());
			for (long[] occurrence : plan.occurrences) {
				addOccurrence(arguments, plan.job, occurrence[0], occurrence[1], false);
			}
		}
		if (plans.isEmpty()) {
			return new TimerBackend.RecurringStep(head, now, List.of());
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
		for (Plan plan : plans) {
			String result = Replies.asString(reply.get(at));
			long created = Replies.asLong(reply.get(at + 1));
			at += 2;
			report(plan, result, created);
		}
		return new TimerBackend.RecurringStep(next, redisMillis, topics);
	}

	private void report(Plan plan, String result, long created) {
		if (plan.job == null) {
			return;
		}
		if ("f".equals(result)) {
			long skipped = plan.skipped + plan.occurrences.size() - created;
			this.observer.recurringFired(plan.job.getName(), plan.job.getTopic(), created, skipped, plan.misfired);
			if (plan.misfired > 0 && logger.isInfoEnabled()) {
				logger.info("Recurring job " + plan.job.getName() + " missed " + plan.misfired + " tick(s) (misfire policy "
						+ plan.job.getMisfirePolicy() + "): created " + created + " occurrence(s)");
			}
		}
		else if ("k".equals(result)) {
			this.observer.recurringFired(plan.job.getName(), plan.job.getTopic(), 0,
					plan.skipped + plan.occurrences.size(), plan.misfired);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Recurring job " + plan.job.getName() + " not fired: " + result);
		}
	}

	/**
	 * What one definition's firing creates, or {@code null} when its record cannot be read
	 * (logged; it is left as it is).
	 */
	private Plan plan(String name, byte[] value, long tick, long now) {
		RecurringRecord record;
		try {
			record = RecurringRecord.decode(name, value);
		}
		catch (RuntimeException ex) {
			logger.error("Cannot read the recurring job " + name + " of this namespace (written by another version?); "
					+ "it is not fired. Put it again to repair it: " + ex.getMessage());
			long version = versionOf(value);
			if (version < 0) {
				return null;
			}
			return new Plan(null, version, now + UNREADABLE_RETRY_MILLIS, false, 0, 0, List.of());
		}
		RecurringJob job = record.job();
		Instant nextAfterNow = job.getSchedule().next(Instant.ofEpochMilli(now));
		long nextTick = (nextAfterNow != null) ? nextAfterNow.toEpochMilli() : -1;
		// the ticks that have come, from the one read on (bounded)
		List<Long> ticks = new ArrayList<>();
		long t = tick;
		while (t <= now && ticks.size() < TICK_LIMIT) {
			ticks.add(t);
			Instant following = job.getSchedule().next(Instant.ofEpochMilli(t));
			if (following == null) {
				break;
			}
			t = following.toEpochMilli();
		}
		long lateBefore = now - job.getMisfireThreshold().toMillis();
		int late = 0;
		while (late < ticks.size() && ticks.get(late) < lateBefore) {
			late++;
		}
		int cap = job.getMaxCatchUp();
		List<long[]> occurrences = new ArrayList<>();
		long skipped = 0;
		if (late == 0 || job.getMisfirePolicy() == MisfirePolicy.FIRE_ALL) {
			// on time, or every missed tick: the most recent ones, at most max catch-up
			int from = Math.max(0, ticks.size() - cap);
			skipped = from;
			for (int i = from; i < ticks.size(); i++) {
				occurrences.add(new long[] { ticks.get(i), ticks.get(i) });
			}
		}
		else if (job.getMisfirePolicy() == MisfirePolicy.FIRE_ONCE) {
			// one occurrence, due now, named after the first tick it stands for
			occurrences.add(new long[] { ticks.get(0), now });
			skipped = ticks.size() - 1;
		}
		else {
			// SKIP: the late ticks create nothing; those still on time do
			skipped = late;
			for (int i = late; i < ticks.size(); i++) {
				occurrences.add(new long[] { ticks.get(i), ticks.get(i) });
			}
		}
		return new Plan(job, record.version(), nextTick, job.getOverlapPolicy() == OverlapPolicy.SKIP, skipped, late,
				occurrences);
	}

	private static long versionOf(byte[] value) {
		int end = 0;
		while (end < value.length && value[end] >= '0' && value[end] <= '9') {
			end++;
		}
		if (end == 0 || end > 18) {
			return -1;
		}
		return Long.parseLong(new String(value, 0, end, java.nio.charset.StandardCharsets.US_ASCII));
	}

	/**
	 * One definition's firing.
	 *
	 * @param job the definition, or {@code null} when it cannot be read (it is then only moved
	 * on to nextTick)
	 * @param version its version
	 * @param nextTick its next tick, or -1 for none
	 * @param overlap whether a tick is skipped while the last occurrence still exists
	 * @param skipped ticks that create nothing
	 * @param misfired ticks that came late
	 * @param occurrences the occurrences: tick and due time, in ms
	 */
	private record Plan(RecurringJob job, long version, long nextTick, boolean overlap, long skipped, long misfired,
			List<long[]> occurrences) {

	}

}
