package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.recurring.RecurringSchedule;

/**
 * The ticks of a schedule from one tick up to now: how many, how many late, and the most
 * recent (at most a cap), oldest first. A cron schedule's are counted one by one up to
 * {@value #TICK_LIMIT}, then only near now.
 *
 * @param total the ticks counted
 * @param late those before the misfire threshold
 * @param recent the most recent ticks
 * @param iterations the schedule's ticks worked out one by one
 */
record RecurringTicks(long total, long late, List<Long> recent, long iterations) {

	/** The most past ticks of one definition that one firing counts one by one. */
	static final int TICK_LIMIT = 100_000;

	static RecurringTicks between(RecurringSchedule schedule, long first, long now, long lateBefore, int cap) {
		if (schedule.getPeriod() != null) {
			return fixedRate(schedule.getPeriod().toMillis(), first, now, lateBefore, cap);
		}
		Walk walk = new Walk(schedule, first, now, lateBefore, cap);
		long iterations = walk.total;
		if (walk.stoppedAt >= 0) {
			// the ticks of a stretch back from now (1 s, 2 s, 4 s ..., halved when too many) that holds cap
			Walk tail = null;
			long tooMany = -1;
			long tooFew = now;
			while (iterations < 5L * TICK_LIMIT && (tooMany < 0 || tooFew - tooMany > 1_000)) {
				long start = (tooMany < 0) ? Math.max(walk.stoppedAt, now - Math.max(1_000, 2 * (now - tooFew)))
						: tooMany + (tooFew - tooMany) / 2;
				Instant from = schedule.next(Instant.ofEpochMilli(start - 1));
				Walk probe = new Walk(schedule, (from != null) ? from.toEpochMilli() : now + 1, now, lateBefore, cap);
				iterations += probe.total;
				if (probe.stoppedAt >= 0) {
					tooMany = start;
					continue;
				}
				tail = probe;
				tooFew = start;
				if (probe.recent.size() >= cap || start == walk.stoppedAt) {
					break;
				}
			}
			if (tail != null) {
				walk.total += tail.total;
				walk.late += tail.late;
				tail.recent.forEach((tick) -> keep(walk.recent, tick, cap));
			}
		}
		return new RecurringTicks(walk.total, walk.late, new ArrayList<>(walk.recent), iterations);
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
		return new RecurringTicks(1 + more, late, recent, 0);
	}

	private static void keep(ArrayDeque<Long> recent, long tick, int cap) {
		if (recent.size() == cap) {
			recent.pollFirst();
		}
		recent.addLast(tick);
	}

	/** Ticks counted one by one from first, at most {@value #TICK_LIMIT}; stoppedAt: the first not counted, or -1. */
	private static final class Walk {

		long total;

		long late;

		long stoppedAt = -1;

		final ArrayDeque<Long> recent = new ArrayDeque<>();

		Walk(RecurringSchedule schedule, long first, long now, long lateBefore, int cap) {
			for (long t = first; t <= now;) {
				if (this.total == TICK_LIMIT) {
					this.stoppedAt = t;
					return;
				}
				this.total++;
				this.late += (t < lateBefore) ? 1 : 0;
				keep(this.recent, t, cap);
				Instant following = schedule.next(Instant.ofEpochMilli(t));
				if (following == null) {
					return;
				}
				t = following.toEpochMilli();
			}
		}

	}

}
