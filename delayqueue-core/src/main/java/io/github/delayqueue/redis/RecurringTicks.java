package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.recurring.RecurringSchedule;
import org.jspecify.annotations.Nullable;

/**
 * The ticks of a schedule from one tick up to now: how many, how many late, and the most
 * recent (at most a cap), oldest first. A cron schedule's are counted one by one up to
 * {@value #TICK_LIMIT}, then only near now.
 *
 * @param total the ticks counted
 * @param late those before the misfire threshold
 * @param onTime how many of recent are on time
 * @param recent the most recent ticks
 * @param iterations the schedule's ticks worked out one by one
 */
record RecurringTicks(long total, long late, int onTime, List<Long> recent, long iterations) {

	static RecurringTicks between(RecurringSchedule schedule, long first, long now, long lateBefore, int cap) {
		if (schedule.getPeriod() != null) {
			return fixedRate(schedule.getPeriod().toMillis(), first, now, lateBefore, cap);
		}
		Walk walk = Walk.from(schedule, first, now, lateBefore, cap);
		long total = walk.total;
		long late = walk.late;
		long iterations = walk.total;
		if (walk.stoppedAt >= 0) {
			RecurringTicks tail = tail(schedule, walk.stoppedAt, now, lateBefore, cap);
			tail.recent.forEach((tick) -> Walk.keep(walk.recent, tick, cap));
			total += tail.total;
			late += tail.late;
			iterations += tail.iterations;
		}
		List<Long> list = new ArrayList<>(walk.recent);
		int onTime = (int) list.stream().filter((tick) -> tick >= lateBefore).count();
		return new RecurringTicks(total, late, onTime, list, iterations);
	}

	/** The ticks of a stretch back from now (1 s, 2 s, 4 s ..., halved when too many) that holds cap. */
	private static RecurringTicks tail(RecurringSchedule schedule, long from, long now, long lateBefore, int cap) {
		long[] iterations = { 0 };
		RecurringTicks best = null;
		long tooMany = -1;
		long tooFew = now;
		while (iterations[0] < 4L * TICK_LIMIT && (tooMany < 0 || tooFew - tooMany > 1_000)) {
			long start = (tooMany < 0) ? Math.max(from, now - Math.max(1_000, 2 * (now - tooFew)))
					: tooMany + (tooFew - tooMany) / 2;
			RecurringTicks probe = probe(schedule, start, now, lateBefore, cap, iterations);
			if (probe == null) {
				tooMany = start;
				continue;
			}
			if (probe.recent.size() >= cap || start == from) {
				return probe;
			}
			best = probe;
			tooFew = start;
		}
		return (best != null) ? best : new RecurringTicks(0, 0, 0, List.of(), iterations[0]);
	}

	/** The ticks from start up to now, or {@code null} when more than {@value #TICK_LIMIT}. */
	private static @Nullable RecurringTicks probe(RecurringSchedule schedule, long start, long now, long lateBefore,
			int cap, long[] iterations) {
		Instant first = schedule.next(Instant.ofEpochMilli(start - 1));
		Walk walk = Walk.from(schedule, (first != null) ? first.toEpochMilli() : now + 1, now, lateBefore, cap);
		iterations[0] += walk.total;
		if (walk.stoppedAt >= 0) {
			return null;
		}
		return new RecurringTicks(walk.total, walk.late, 0, new ArrayList<>(walk.recent), iterations[0]);
	}

	/** A fixed rate's ticks: the first, then the multiples of the period after it. */
	private static RecurringTicks fixedRate(long period, long first, long now, long lateBefore, int cap) {
		long aligned = Math.floorDiv(first, period) * period + period;
		long more = (aligned <= now) ? Math.floorDiv(now - aligned, period) + 1 : 0;
		long total = 1 + more;
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
		int onTime = (int) recent.stream().filter((tick) -> tick >= lateBefore).count();
		return new RecurringTicks(total, late, onTime, recent, 0);
	}

	/** The most past ticks of one definition that one firing counts one by one. */
	static final int TICK_LIMIT = 100_000;

	/** Ticks counted one by one, at most {@value #TICK_LIMIT}; stoppedAt: the first not counted, or -1. */
	private static final class Walk {

		long total;

		long late;

		final ArrayDeque<Long> recent;

		long stoppedAt = -1;

		private Walk(int cap) {
			this.recent = new ArrayDeque<>(cap);
		}

		static Walk from(RecurringSchedule schedule, long first, long now, long lateBefore, int cap) {
			Walk walk = new Walk(cap);
			long t = first;
			while (t <= now) {
				if (walk.total == TICK_LIMIT) {
					walk.stoppedAt = t;
					break;
				}
				walk.total++;
				if (t < lateBefore) {
					walk.late++;
				}
				keep(walk.recent, t, cap);
				Instant following = schedule.next(Instant.ofEpochMilli(t));
				if (following == null) {
					break;
				}
				t = following.toEpochMilli();
			}
			return walk;
		}

		static void keep(ArrayDeque<Long> recent, long tick, int cap) {
			if (recent.size() == cap) {
				recent.pollFirst();
			}
			recent.addLast(tick);
		}

	}

}
