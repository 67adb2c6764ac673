package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ObjIntConsumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The timer of the buckets this instance owns. One thread sleeps until the earliest due
 * time (or TTR deadline) of its buckets, by {@link RedisClock}, and then runs the promote
 * script of each bucket that is due. It never polls on a fixed period: it is woken early
 * when a schedule makes a job the head of one of its buckets ({@link #onHead}), and re-checks
 * every owned bucket each guard interval (one bucket at a time, spread over the interval) and
 * all of them after every reconnect ({@link #recheckAll}), and a bucket it takes over at its
 * first step, so that a lost notification costs at most the guard interval.
 *
 * <p>
 * Ownership comes from {@link TimerBackend#coordinate} every coordination interval: a
 * heartbeat that only renews the lease while nothing changed, and a full re-coordination (a
 * fair share of the buckets) when an instance joined, left or expired — announced on the
 * channel ({@link #coordinateSoon}) or seen by the heartbeat — and each guard interval; an
 * instance that stops heartbeating loses its buckets to the others within the heartbeat TTL
 * plus one interval. Two instances briefly promoting the same bucket is harmless: each
 * promotion is atomic and moves a job once.
 *
 * <p>
 * The loop never dies silently: a failure is logged, backed off (from
 * {@value #MIN_BACKOFF_MILLIS} ms, doubling, up to {@value #MAX_BACKOFF_MILLIS} ms; from the
 * start again after a step that succeeds) and retried; its {@link TimerStatus} view tells
 * health checks when it last completed a step. The owned buckets, their due times and the
 * wake-up flags are guarded by one lock and changed by the timer thread only.
 */
final class BucketTimer implements TimerStatus {

	private static final Log logger = LogFactory.getLog(BucketTimer.class);

	private static final long NONE = Long.MAX_VALUE;

	private static final long MIN_BACKOFF_MILLIS = 100;

	private static final long MAX_BACKOFF_MILLIS = 5_000;

	/** How long a bucket's recurring jobs wait after a firing that failed. */
	private static final long RECURRING_RETRY_MILLIS = 5_000;

	/** How long a bucket's recurring jobs wait after a firing that moved none of them on. */
	private static final long RECURRING_STALL_MILLIS = 100;

	/** How long {@link #stop()} waits for Redis to take the buckets back. */
	private static final long LEAVE_TIMEOUT_MILLIS = 2_000;

	private final TimerBackend backend;

	private final int batchSize;

	private final long coordinationNanos;

	private final long guardNanos;

	private final long guardTickNanos;

	private final RedisClock clock;

	/**
	 * Redis's clock as read by this timer's own calls alone, each applied as soon as its
	 * reply is back: the heartbeat's expiry is written from it. The shared {@link #clock} also
	 * takes readings from consumers' replies, which a big reply or a descheduled thread may
	 * apply late, pulling the estimate back and shortening the heartbeat by as much.
	 */
	private final RedisClock beatClock = new RedisClock();

	private final ObjIntConsumer<String> readyListener;

	private final BackOff errorBackOff = errorBackOff();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	private final boolean[] owned;

	private final long[] nextDue;

	/** Buckets taken over since their last step: it is a guard re-check. */
	private final boolean[] takenOver;

	/** The next recurring-job tick of each owned bucket (0: read it; NONE: none known). */
	private final long[] nextTick;

	private boolean woken;

	private boolean recheck = true;

	private boolean coordinateNow = true;

	// touched by the timer thread only
	private boolean forceFull = true;

	// touched by the timer thread only: whether the last firing of each bucket's recurring jobs failed
	private final boolean[] recurringFailing;

	private volatile boolean running;

	private volatile @Nullable Thread thread;

	private volatile long lastProgressNanos = System.nanoTime();

	private volatile int ownedCount;

	private volatile @Nullable Throwable lastError;

	private long nextCoordination;

	private long nextFullCoordination;

	private long nextGuard;

	// touched by the timer thread only: the earliest heartbeat expiry read last (beat clock)
	private long nextExpiryCheck;

	// touched by the timer thread only: the namespace's epoch read at the last coordination
	private String epoch = "";

	private final Runnable dataLostListener;

	private int guardCursor;

	/**
	 * Creates a timer; {@link #start()} starts its thread.
	 * @param backend the Redis side
	 * @param buckets the number of buckets
	 * @param batchSize the most jobs one promotion moves
	 * @param coordinationInterval how often the heartbeat and the bucket shares are renewed
	 * @param guardInterval how often every owned bucket is re-checked
	 * @param clock the estimate of Redis's clock
	 * @param readyListener told of each topic and bucket that got READY jobs
	 * @param dataLostListener told when a coordination finds that Redis lost the namespace's
	 * data since the last one (its epoch changed)
	 */
	BucketTimer(TimerBackend backend, int buckets, int batchSize, Duration coordinationInterval,
			Duration guardInterval, RedisClock clock, ObjIntConsumer<String> readyListener,
			Runnable dataLostListener) {
		this.backend = backend;
		this.dataLostListener = dataLostListener;
		this.batchSize = batchSize;
		this.coordinationNanos = coordinationInterval.toNanos();
		this.guardNanos = guardInterval.toNanos();
		this.guardTickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), this.guardNanos / buckets);
		this.clock = clock;
		this.readyListener = readyListener;
		this.owned = new boolean[buckets];
		this.takenOver = new boolean[buckets];
		this.nextDue = new long[buckets];
		Arrays.fill(this.nextDue, NONE);
		this.recurringFailing = new boolean[buckets];
		this.nextTick = new long[buckets];
		Arrays.fill(this.nextTick, NONE);
	}

	/**
	 * Starts the timer thread, which joins the coordination and takes its share of the
	 * buckets; does nothing when it runs already.
	 */
	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		// progress is counted from the start, not from the construction of the timer
		this.lastProgressNanos = System.nanoTime();
		Thread timer = new Thread(this::loop, "delayqueue-timer");
		timer.setDaemon(true);
		this.thread = timer;
		timer.start();
	}

	/**
	 * Stops the thread and gives this instance's buckets up at once, so that other
	 * instances take them over without waiting for the heartbeat to expire.
	 */
	@SuppressWarnings("NullAway") // the future completes exceptionally with a cause
	void stop() {
		halt();
		// bounded: when Redis is gone at shutdown, do not wait for the command timeout
		CompletableFuture<Void> leave = new CompletableFuture<>();
		Thread leaver = new Thread(() -> {
			try {
				this.backend.coordinate(true);
				leave.complete(null);
			}
			catch (Throwable ex) {
				leave.completeExceptionally(ex);
			}
		}, "delayqueue-timer-leave");
		leaver.setDaemon(true);
		leaver.start();
		try {
			leave.get(LEAVE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			logger.warn("Redis did not answer within " + LEAVE_TIMEOUT_MILLIS + " ms while giving up bucket timers "
					+ "on stop; others take over when the heartbeat expires");
		}
		catch (ExecutionException ex) {
			logger.warn("Could not give up bucket timers on stop (others take over when the heartbeat expires): "
					+ ex.getCause().getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		locked(() -> {
			Arrays.fill(this.owned, false);
			this.ownedCount = 0;
		});
	}

	/**
	 * Stops the thread without giving up the buckets, as a crash would.
	 */
	synchronized void halt() {
		this.running = false;
		Thread timer = this.thread;
		if (timer == null) {
			return;
		}
		timer.interrupt();
		try {
			timer.join(TimeUnit.SECONDS.toMillis(10));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.thread = null;
	}

	/**
	 * Whether the timer thread runs.
	 * @return {@code true} between {@link #start()} and {@link #stop()} or {@link #halt()}
	 */
	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * A job became the earliest of a bucket's delay queue.
	 * @param bucket the bucket
	 * @param dueMillis its due time by Redis's clock
	 */
	void onHead(int bucket, long dueMillis) {
		locked(() -> {
			if (bucket >= 0 && bucket < this.owned.length && this.owned[bucket] && dueMillis < this.nextDue[bucket]) {
				this.nextDue[bucket] = dueMillis;
				signal();
			}
		});
	}

	/**
	 * A recurring job's tick became the earliest of a bucket's recurring jobs.
	 * @param bucket the bucket
	 * @param tickMillis the tick by Redis's clock
	 */
	void onRecurringTick(int bucket, long tickMillis) {
		locked(() -> {
			if (bucket >= 0 && bucket < this.owned.length && this.owned[bucket] && tickMillis < this.nextTick[bucket]) {
				this.nextTick[bucket] = tickMillis;
				signal();
			}
		});
	}

	/**
	 * Re-checks every owned bucket at once (after a reconnect).
	 */
	void recheckAll() {
		locked(() -> {
			this.recheck = true;
			signal();
		});
	}

	/**
	 * Renews the heartbeat and the bucket shares at once (another instance left).
	 */
	void coordinateSoon() {
		locked(() -> {
			this.coordinateNow = true;
			signal();
		});
	}

	/**
	 * Runs an action under the lock that guards the buckets' state and the wake-up flags.
	 */
	private void locked(Runnable action) {
		locked(() -> {
			action.run();
			return null;
		});
	}

	/**
	 * Reads under the lock that guards the buckets' state and the wake-up flags.
	 */
	private <T> T locked(Supplier<T> action) {
		this.lock.lock();
		try {
			return action.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wakes the loop; called under the lock.
	 */
	private void signal() {
		this.woken = true;
		this.wakeUp.signal();
	}

	@Override
	public long lastProgressNanos() {
		return this.lastProgressNanos;
	}

	@Override
	public int ownedBuckets() {
		return this.ownedCount;
	}

	@Override
	public int[] ownedBucketNumbers() {
		return locked(() -> {
			int[] result = new int[this.ownedCount];
			int i = 0;
			for (int b = 0; b < this.owned.length && i < result.length; b++) {
				if (this.owned[b]) {
					result[i++] = b;
				}
			}
			return result;
		});
	}

	@Override
	public @Nullable Throwable lastError() {
		return this.lastError;
	}

	private void loop() {
		BackOffExecution backOff = null;
		while (this.running) {
			try {
				step();
				if (this.lastError != null) {
					logger.info("Bucket timer resumed after: " + this.lastError.getMessage());
				}
				this.lastError = null;
				backOff = null;
			}
			catch (InterruptedException ex) {
				if (!this.running) {
					break;
				}
			}
			catch (Throwable ex) {
				if (!this.running) {
					break;
				}
				if (backOff == null) {
					backOff = this.errorBackOff.start();
				}
				long wait = backOff.nextBackOff();
				if (this.lastError == null) {
					logger.warn("Bucket timer step failed; retrying with back-off up to " + MAX_BACKOFF_MILLIS + " ms", ex);
				}
				else if (logger.isDebugEnabled()) {
					logger.debug("Bucket timer step failed again; next try in " + wait + " ms", ex);
				}
				this.lastError = ex;
				recheckAll();
				try {
					Thread.sleep(wait);
				}
				catch (InterruptedException interrupted) {
					if (!this.running) {
						break;
					}
				}
			}
		}
	}

	/**
	 * The back-off of the loop after a failed step: {@value #MIN_BACKOFF_MILLIS} ms, doubling,
	 * at most {@value #MAX_BACKOFF_MILLIS} ms.
	 */
	private static BackOff errorBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(MIN_BACKOFF_MILLIS, 2);
		backOff.setMaxInterval(MAX_BACKOFF_MILLIS);
		return backOff;
	}

	private void step() throws InterruptedException {
		long monotonic = System.nanoTime();
		Plan plan = locked(() -> {
			boolean guardAll = this.recheck;
			int guardBucket = -1;
			if (guardAll || monotonic - this.nextGuard >= 0) {
				// the guard re-checks one bucket per tick, in turn: each bucket once per guard
				// interval, spread evenly over it
				guardBucket = this.guardCursor;
				this.guardCursor = (this.guardCursor + 1) % this.owned.length;
				this.nextGuard = monotonic + this.guardTickNanos;
			}
			Plan next = new Plan(this.coordinateNow || monotonic - this.nextCoordination >= 0, guardAll, guardBucket);
			this.forceFull |= this.coordinateNow;
			this.coordinateNow = false;
			this.recheck = false;
			return next;
		});
		if (plan.coordinate()) {
			// a full coordination when asked for, and each guard interval; a renewal otherwise
			boolean full = this.forceFull || monotonic - this.nextFullCoordination >= 0;
			coordinate(!full);
			// cleared only once it succeeded: a failed one is retried in full
			this.forceFull = false;
			this.nextCoordination = monotonic + this.coordinationNanos;
			if (full) {
				this.nextFullCoordination = monotonic + this.guardNanos;
			}
		}
		for (int bucket = 0; bucket < this.owned.length; bucket++) {
			if (!this.running) {
				return;
			}
			// read (and cleared) first: any guard step is the one a bucket taken over asks for
			boolean taken = takenOver(bucket);
			boolean guard = taken || plan.guardAll() || bucket == plan.guardBucket();
			// recurring jobs first: an occurrence created due now is READY at once, and one
			// created for later is in the delay queue the promotion reads
			if (isOwned(bucket) && (plan.guardAll() || tickOf(bucket) <= this.clock.millis())) {
				fireRecurring(bucket);
			}
			if (isOwned(bucket) && (guard || dueOf(bucket) <= this.clock.millis())) {
				promote(bucket, guard);
			}
		}
		this.lastProgressNanos = System.nanoTime();
		sleepUntilDue();
	}

	/**
	 * What one step does, decided under the lock.
	 *
	 * @param coordinate whether to send the heartbeat (or coordinate fully)
	 * @param guardAll whether to re-check every owned bucket (after a reconnect or a failure)
	 * @param guardBucket the bucket the guard re-checks at this tick, or -1
	 */
	private record Plan(boolean coordinate, boolean guardAll, int guardBucket) {

	}

	private void coordinate(boolean renewOnly) {
		if (renewOnly && this.beatClock.isSynced()) {
			long now = this.beatClock.millis();
			// no heartbeat runs out before the earliest expiry read last: until then a beat
			// only renews, and a crashed instance is still seen at the first beat after its
			// expiry
			long earliest = this.backend.renew(now, now >= this.nextExpiryCheck);
			if (earliest >= 0) {
				if (earliest > 0) {
					this.nextExpiryCheck = earliest;
				}
				return;
			}
		}
		// read again at the first renewal after a coordination
		this.nextExpiryCheck = 0;
		TimerBackend.Coordination coordination = this.backend.coordinate(false);
		this.clock.update(coordination.redisMillis());
		this.beatClock.update(coordination.redisMillis());
		String before = this.epoch;
		this.epoch = coordination.epoch();
		if (!before.isEmpty() && !before.equals(this.epoch)) {
			this.dataLostListener.run();
		}
		boolean[] now = new boolean[this.owned.length];
		for (int bucket : coordination.buckets()) {
			now[bucket] = true;
		}
		locked(() -> {
			int count = 0;
			for (int b = 0; b < this.owned.length; b++) {
				if (now[b] && !this.owned[b]) {
					this.nextDue[b] = 0;
					this.nextTick[b] = 0;
					// its first step is a guard re-check: it re-announces the READY jobs that
					// the last owner may have left to its own consumers, gone with it
					this.takenOver[b] = true;
					if (logger.isDebugEnabled()) {
						logger.debug("Took over the timer of bucket " + b);
					}
				}
				else if (!now[b]) {
					this.nextDue[b] = NONE;
					this.nextTick[b] = NONE;
					this.takenOver[b] = false;
				}
				this.owned[b] = now[b];
				count += now[b] ? 1 : 0;
			}
			if (count != this.ownedCount && logger.isInfoEnabled()) {
				logger.info("Running the timers of " + count + " of " + this.owned.length
						+ ((this.owned.length == 1) ? " bucket (" : " buckets (")
						+ coordination.liveInstances() + " instance(s) share them)");
			}
			this.ownedCount = count;
		});
	}

	private void promote(int bucket, boolean guard) {
		// heads announced while the script runs lower this again
		locked(() -> {
			this.nextDue[bucket] = NONE;
		});
		TimerBackend.Promotion promotion;
		try {
			promotion = this.backend.promote(bucket, guard);
		}
		catch (RuntimeException ex) {
			locked(() -> {
				this.nextDue[bucket] = 0;
			});
			throw ex;
		}
		this.clock.update(promotion.redisMillis());
		this.beatClock.update(promotion.redisMillis());
		for (String topic : promotion.topics()) {
			this.readyListener.accept(topic, bucket);
		}
		if (promotion.recurringTickMillis() >= 0) {
			// the guard read the bucket's next recurring tick: one whose announcement was lost
			// is fired all the same
			onRecurringTick(bucket, promotion.recurringTickMillis());
		}
		boolean more = promotion.moved() + promotion.expired() >= this.batchSize;
		long next = more ? 0 : ((promotion.nextDueMillis() < 0) ? NONE : promotion.nextDueMillis());
		locked(() -> {
			if (this.owned[bucket]) {
				this.nextDue[bucket] = Math.min(this.nextDue[bucket], next);
			}
		});
	}

	private void fireRecurring(int bucket) {
		// ticks announced while the script runs lower this again
		locked(() -> {
			this.nextTick[bucket] = NONE;
		});
		TimerBackend.RecurringStep step;
		try {
			step = this.backend.fireRecurring(bucket);
		}
		catch (RuntimeException | Error ex) {
			// a recurring job that cannot be fired must not hold up the promotions: it is
			// tried again after a pause, and the step goes on
			long retryAt = this.clock.millis() + RECURRING_RETRY_MILLIS;
			locked(() -> {
				this.nextTick[bucket] = Math.min(this.nextTick[bucket], retryAt);
			});
			if (!this.running && !(ex instanceof Error)) {
				// the stop interrupted the call: no failure to report
				return;
			}
			// once at WARN until the bucket's firing succeeds again
			if (!this.recurringFailing[bucket]) {
				logger.warn("Could not fire the recurring jobs of bucket " + bucket + "; trying again in "
						+ RECURRING_RETRY_MILLIS + " ms: " + ex.getMessage());
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Could not fire the recurring jobs of bucket " + bucket + " again", ex);
			}
			this.recurringFailing[bucket] = true;
			return;
		}
		if (this.recurringFailing[bucket]) {
			logger.info("Firing the recurring jobs of bucket " + bucket + " again");
			this.recurringFailing[bucket] = false;
		}
		if (step.redisMillis() >= 0) {
			this.clock.update(step.redisMillis());
			this.beatClock.update(step.redisMillis());
		}
		for (String topic : step.topics()) {
			this.readyListener.accept(topic, bucket);
		}
		long head = (step.nextTickMillis() < 0) ? NONE : step.nextTickMillis();
		// a firing that moved nothing on (each definition read had changed meanwhile, or its
		// tick had not come by Redis's clock) is not repeated at once
		long next = step.progressed() ? head : Math.max(head, this.clock.millis() + RECURRING_STALL_MILLIS);
		locked(() -> {
			if (this.owned[bucket]) {
				this.nextTick[bucket] = Math.min(this.nextTick[bucket], next);
			}
		});
	}

	/**
	 * Fires the recurring jobs of one bucket on the caller's thread, as the loop does, without
	 * the loop's bookkeeping: for tests that drive the timer themselves.
	 * @param bucket the bucket
	 * @return what the firing did
	 */
	TimerBackend.RecurringStep fireRecurringNow(int bucket) {
		TimerBackend.RecurringStep step = this.backend.fireRecurring(bucket);
		step.topics().forEach((topic) -> this.readyListener.accept(topic, bucket));
		return step;
	}

	/**
	 * Runs the promotion of one bucket on the caller's thread, as the loop does, without the
	 * loop's bookkeeping: for tests that drive the timer themselves.
	 * @param bucket the bucket
	 * @param guard {@code true} for the guard re-check
	 * @return what the promotion did
	 */
	TimerBackend.Promotion promoteNow(int bucket, boolean guard) {
		TimerBackend.Promotion promotion = this.backend.promote(bucket, guard);
		promotion.topics().forEach((topic) -> this.readyListener.accept(topic, bucket));
		return promotion;
	}

	/**
	 * Whether a bucket was taken over since its last step; clears the flag.
	 */
	private boolean takenOver(int bucket) {
		return locked(() -> {
			boolean taken = this.takenOver[bucket];
			this.takenOver[bucket] = false;
			return taken;
		});
	}

	private boolean isOwned(int bucket) {
		return locked(() -> this.owned[bucket]);
	}

	private long dueOf(int bucket) {
		return locked(() -> this.nextDue[bucket]);
	}

	private long tickOf(int bucket) {
		return locked(() -> this.nextTick[bucket]);
	}

	private void sleepUntilDue() throws InterruptedException {
		this.lock.lock();
		try {
			if (this.woken) {
				this.woken = false;
				return;
			}
			long earliest = NONE;
			for (int b = 0; b < this.owned.length; b++) {
				if (this.owned[b]) {
					earliest = Math.min(earliest, Math.min(this.nextDue[b], this.nextTick[b]));
				}
			}
			long monotonic = System.nanoTime();
			long waitNanos = Math.min(this.nextCoordination - monotonic, this.nextGuard - monotonic);
			if (earliest == 0) {
				return;
			}
			if (earliest != NONE) {
				// at least 1 ms: the estimate may run a little ahead of Redis's clock
				long untilDue = earliest - this.clock.millis();
				waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(untilDue, 1)));
			}
			if (waitNanos > 0) {
				this.wakeUp.awaitNanos(waitNanos);
			}
			this.woken = false;
		}
		finally {
			this.lock.unlock();
		}
	}

}
