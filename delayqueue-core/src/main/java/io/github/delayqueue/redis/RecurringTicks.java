package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;

import io.github.delayqueue.recurring.RecurringSchedule;

/**
 * The ticks of a schedule from one tick up to now: how many, how many are late, the most recent
 * (at most a cap, oldest first). They are counted up to {@value #TICK_LIMIT}; beyond, only the
 * most recent are found, back from now, and counted.
 */
record RecurringTicks(long total, long late, List<Long> recent) {

	/** The most past ticks of one definition that one firing counts one by one. */
	static final int TICK_LIMIT = 100_000;

	static RecurringTicks between(RecurringSchedule schedule, long first, long now, long lateBefore, int cap) {
		ArrayDeque<Long> recent = new ArrayDeque<>();
		long total = 0;
		long late = 0;
		long t = first;
		for (; t <= now && total < TICK_LIMIT; t = next(schedule, t), total++) {
			late += (t < lateBefore) ? 1 : 0;
			recent.addLast(t);
			if (recent.size() > cap) {
				recent.pollFirst();
			}
		}
		// beyond the limit: the most recent ticks, each found by bisection back from the one after it
		ArrayDeque<Long> tail = new ArrayDeque<>();
		for (long before = now + 1; before > t && tail.size() < cap; before = tail.getFirst(), total++) {
			// next(low - 1) < before <= next(high - 1): low ends as the latest tick before 'before'
			long low = t;
			long high = before;
			while (high - low > 1) {
				long mid = low + (high - low) / 2;
				if (next(schedule, mid - 1) < before) {
					low = mid;
				}
				else {
					high = mid;
				}
			}
			late += (low < lateBefore) ? 1 : 0;
			tail.addFirst(low);
		}
		recent.addAll(tail);
		return new RecurringTicks(total, late, List.copyOf(recent).subList(Math.max(0, recent.size() - cap), recent.size()));
	}

	private static long next(RecurringSchedule schedule, long after) {
		Instant next = schedule.next(Instant.ofEpochMilli(after));
		return (next != null) ? next.toEpochMilli() : Long.MAX_VALUE;
	}

}
