package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.recurring.RecurringSchedule;

/**
 * The ticks of a schedule from one tick up to now: how many, how many are late, the most recent
 * (at most a cap, oldest first), how many were computed, and the first one left uncounted (-1:
 * none). A cron schedule's are counted up to {@value #TICK_LIMIT}, then only near now.
 */
record RecurringTicks(long total, long late, List<Long> recent, long iterations, long stoppedAt) {

	/** The most past ticks of one definition that one firing counts one by one. */
	static final int TICK_LIMIT = 100_000;

	static RecurringTicks between(RecurringSchedule schedule, long first, long now, long lateBefore, int cap) {
		if (schedule.getPeriod() != null) {
			return fixedRate(schedule.getPeriod().toMillis(), first, now, lateBefore, cap);
		}
		RecurringTicks counted = count(schedule, first, now, lateBefore, cap);
		if (counted.stoppedAt < 0) {
			return counted;
		}
		// then the ticks of a stretch back from now (1 s, 2 s, 4 s ..., halved when too many) that holds cap
		RecurringTicks tail = new RecurringTicks(0, 0, List.of(), 0, -1);
		long iterations = counted.total;
		long tooMany = -1;
		long tooFew = now;
		while (iterations < 5L * TICK_LIMIT && (tooMany < 0 || tooFew - tooMany > 1_000)) {
			long start = (tooMany < 0) ? Math.max(counted.stoppedAt, now - Math.max(1_000, 2 * (now - tooFew)))
					: tooMany + (tooFew - tooMany) / 2;
			Instant from = schedule.next(Instant.ofEpochMilli(start - 1));
			RecurringTicks probe = count(schedule, (from != null) ? from.toEpochMilli() : now + 1, now, lateBefore, cap);
			iterations += probe.total;
			if (probe.stoppedAt >= 0) {
				tooMany = start;
				continue;
			}
			tail = probe;
			tooFew = start;
			if (probe.recent.size() >= cap || start == counted.stoppedAt) {
				break;
			}
		}
		List<Long> recent = new ArrayList<>(counted.recent);
		recent.addAll(tail.recent);
		return new RecurringTicks(counted.total + tail.total, counted.late + tail.late,
				recent.subList(Math.max(0, recent.size() - cap), recent.size()), iterations, counted.stoppedAt);
	}

	/** The ticks from first up to now, counted one by one up to {@value #TICK_LIMIT}. */
	private static RecurringTicks count(RecurringSchedule schedule, long first, long now, long lateBefore, int cap) {
		ArrayDeque<Long> recent = new ArrayDeque<>();
		long total = 0;
		long late = 0;
		long t = first;
		for (; t <= now && total < TICK_LIMIT; total++) {
			late += (t < lateBefore) ? 1 : 0;
			if (recent.size() == cap) {
				recent.pollFirst();
			}
			recent.addLast(t);
			Instant following = schedule.next(Instant.ofEpochMilli(t));
			t = (following != null) ? following.toEpochMilli() : Long.MAX_VALUE;
		}
		return new RecurringTicks(total, late, new ArrayList<>(recent), total, (t <= now) ? t : -1);
	}

	/** A fixed rate's ticks: the first, then the multiples of the period after it. */
	private static RecurringTicks fixedRate(long period, long first, long now, long lateBefore, int cap) {
		long aligned = Math.floorDiv(first, period) * period + period;
		long more = (aligned <= now) ? Math.floorDiv(now - aligned, period) + 1 : 0;
		long late = (first < lateBefore) ? 1 : 0;
		if (more > 0 && lateBefore > aligned) {
			late += Math.min(more, Math.floorDiv(lateBefore - aligned - 1, period) + 1);
		}
		List<Long> recent = new ArrayList<>();
		if (more < cap) {
			recent.add(first);
		}
		for (long k = Math.max(0, more - cap); k < more; k++) {
			recent.add(aligned + k * period);
		}
		return new RecurringTicks(1 + more, late, recent, 0, -1);
	}

}
