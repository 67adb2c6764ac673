package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The timer of the buckets this instance owns ({@link Heartbeat}): one thread sleeps until the
 * earliest due time or recurring tick of its buckets and steps each bucket that is due,
 * re-checking one bucket per guard tick. A failed step is retried with back-off.
 */
final class BucketTimer implements TimerStatus {

	private static final Log logger = LogFactory.getLog(BucketTimer.class);

	private static final long NONE = Long.MAX_VALUE;

	/** The next due time of a bucket taken over: at once, with a guard re-check. */
	private static final long TAKEN_OVER = -1;

	/** How long a bucket's recurring jobs wait after a firing that failed. */
	private static final long RECURRING_RETRY_MILLIS = 5_000;

	/** How long a bucket's recurring jobs wait after a firing that moved none of them on. */
	private static final long RECURRING_STALL_MILLIS = 100;

	private final TimerBackend backend;

	private final int batchSize;

	private final long guardTickNanos;

	private final RedisClock clock;

	private final Heartbeat heartbeat;

	private final ExponentialBackOff errorBackOff = retryBackOff();

	private final OnceAMinute recurringWarning = new OnceAMinute(logger);

	private final Object lock = new Object();

	// guarded by the lock: owned buckets, their next due time and recurring tick (0: now,
	// NONE: none known; set when a bucket becomes owned, read only while it is)
	private final boolean[] owned;

	private final long[] nextDue;

	private final long[] nextTick;

	private boolean woken;

	private boolean recheck = true;

	private boolean coordinateNow;

	// timer thread only
	private long nextGuard;

	private int guardCursor;

	/** The timer thread, {@code null} when halted; a loop runs while the field is its own thread. */
	private volatile @Nullable Thread thread;

	private volatile long lastProgressNanos = System.nanoTime();

	private volatile @Nullable Throwable lastError;

	/**
	 * Creates a timer; {@link #start()} starts its thread. {@code dataLostListener} is told when
	 * the namespace's epoch changed.
	 */
	BucketTimer(TimerBackend backend, int buckets, int batchSize, Duration coordinationInterval,
			Duration guardInterval, RedisClock clock, Runnable dataLostListener) {
		this.backend = backend;
		this.heartbeat = new Heartbeat(backend, coordinationInterval, guardInterval, dataLostListener);
		this.batchSize = batchSize;
		this.guardTickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), guardInterval.toNanos() / buckets);
		this.clock = clock;
		this.owned = new boolean[buckets];
		this.nextDue = new long[buckets];
		this.nextTick = new long[buckets];
	}

	/** Starts the timer thread, unless it runs; it coordinates at once. */
	synchronized void start() {
		if (this.thread != null) {
			return;
		}
		this.lastProgressNanos = System.nanoTime();
		coordinateSoon();
		Thread timer = new Thread(this::loop, "delayqueue-timer");
		timer.setDaemon(true);
		this.thread = timer;
		timer.start();
	}

	/** Stops the thread and gives the buckets up ({@link Heartbeat#leave()}). */
	void stop() {
		halt();
		this.heartbeat.leave();
		synchronized (this.lock) {
			Arrays.fill(this.owned, false);
		}
	}

	/** Stops the thread without giving up the buckets, as a crash would. */
	synchronized void halt() {
		Thread timer = this.thread;
		if (timer == null) {
			return;
		}
		this.thread = null;
		timer.interrupt();
		try {
			timer.join(TimeUnit.SECONDS.toMillis(10));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.thread != null;
	}

	/** A job due at {@code dueMillis} (Redis's clock) became the earliest of a bucket. */
	void onHead(int bucket, long dueMillis) {
		lower(this.nextDue, bucket, dueMillis);
	}

	/** A recurring tick at {@code tickMillis} (Redis's clock) became the earliest of a bucket. */
	void onRecurringTick(int bucket, long tickMillis) {
		lower(this.nextTick, bucket, tickMillis);
	}

	/** Re-checks every owned bucket at once. */
	void recheckAll() {
		synchronized (this.lock) {
			this.recheck = true;
			signal();
		}
	}

	/** Coordinates at once. */
	void coordinateSoon() {
		synchronized (this.lock) {
			this.coordinateNow = true;
			signal();
		}
	}

	/** Wakes the loop; under the lock. */
	private void signal() {
		this.woken = true;
		this.lock.notifyAll();
	}

	/** Lowers the time of an owned bucket, and wakes the loop when it did. */
	private void lower(long[] times, int bucket, long millis) {
		synchronized (this.lock) {
			if (bucket >= 0 && bucket < this.owned.length && this.owned[bucket] && millis < times[bucket]) {
				times[bucket] = millis;
				signal();
			}
		}
	}

	@Override
	public long lastProgressNanos() {
		return this.lastProgressNanos;
	}

	@Override
	public int[] ownedBucketNumbers() {
		synchronized (this.lock) {
			return IntStream.range(0, this.owned.length).filter((b) -> this.owned[b]).toArray();
		}
	}

	@Override
	public @Nullable Throwable lastError() {
		return this.lastError;
	}

	/** The back-off of the timer's and the subscription's retries: 100 ms doubling up to 5 s. */
	static ExponentialBackOff retryBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(100, 2);
		backOff.setMaxInterval(5_000);
		return backOff;
	}

	/** Whether the calling thread is the timer thread: a thread a halt left running ends its loop. */
	private boolean isTimerThread() {
		return this.thread == Thread.currentThread();
	}

	private void loop() {
		BackOffExecution backOff = this.errorBackOff.start();
		while (isTimerThread()) {
			try {
				step();
				if (this.lastError != null) {
					logger.info("Bucket timer resumed after: " + this.lastError.getMessage());
				}
				this.lastError = null;
			}
			catch (InterruptedException ex) {
				// woken or halted: the loop's condition decides
			}
			catch (Throwable ex) {
				if (!isTimerThread()) {
					break;
				}
				// a first failure after a success starts the back-off anew
				backOff = (this.lastError != null) ? backOff : this.errorBackOff.start();
				long wait = backOff.nextBackOff();
				if (this.lastError == null) {
					logger.warn("Bucket timer step failed; retrying with back-off up to "
							+ this.errorBackOff.getMaxInterval() + " ms", ex);
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
					// woken or halted: the loop's condition decides
				}
			}
		}
	}

	private void step() throws InterruptedException {
		long monotonic = System.nanoTime();
		boolean coordinateNow;
		boolean guardAll;
		int guardBucket = -1;
		synchronized (this.lock) {
			coordinateNow = this.coordinateNow;
			guardAll = this.recheck;
			if (guardAll || monotonic - this.nextGuard >= 0) {
				guardBucket = this.guardCursor;
				this.guardCursor = (this.guardCursor + 1) % this.owned.length;
				this.nextGuard = monotonic + this.guardTickNanos;
			}
			this.coordinateNow = false;
			this.recheck = false;
		}
		TimerBackend.Coordination coordination = this.heartbeat.beat(monotonic, coordinateNow);
		if (coordination != null) {
			own(coordination);
		}
		for (int bucket = 0; bucket < this.owned.length; bucket++) {
			if (!isTimerThread()) {
				return;
			}
			boolean guard = guardAll || bucket == guardBucket;
			if (isDue(this.nextTick, bucket, guardAll)) {
				fireRecurring(bucket);
			}
			if (isDue(this.nextDue, bucket, guard)) {
				promote(bucket, guard);
			}
		}
		this.lastProgressNanos = System.nanoTime();
		sleepUntilDue();
	}

	/** Takes the buckets of a coordination; a bucket taken over is due for a guard re-check. */
	private void own(TimerBackend.Coordination coordination) {
		this.clock.update(coordination.redisMillis());
		boolean[] now = new boolean[this.owned.length];
		for (int bucket : coordination.buckets()) {
			now[bucket] = true;
		}
		boolean changed = false;
		synchronized (this.lock) {
			for (int b = 0; b < this.owned.length; b++) {
				if (now[b] != this.owned[b]) {
					this.nextDue[b] = now[b] ? TAKEN_OVER : NONE;
					this.nextTick[b] = now[b] ? 0 : NONE;
					this.owned[b] = now[b];
					changed = true;
				}
			}
		}
		if (changed && logger.isInfoEnabled()) {
			logger.info("Running the timers of " + coordination.buckets().length + " of " + this.owned.length
					+ ((this.owned.length == 1) ? " bucket (" : " buckets (") + coordination.liveInstances()
					+ " instance(s) share them)");
		}
	}

	/** Steps a bucket; one taken over since its last step gets a guard re-check. */
	private void promote(int bucket, boolean guardAsked) {
		boolean guard;
		synchronized (this.lock) {
			guard = guardAsked || this.nextDue[bucket] == TAKEN_OVER;
			this.nextDue[bucket] = NONE;
		}
		// a failure fails the step, whose retry re-checks every bucket
		TimerBackend.Promotion promotion = this.backend.promote(bucket, guard);
		synced(promotion.redisMillis());
		if (promotion.recurringTickMillis() >= 0) {
			onRecurringTick(bucket, promotion.recurringTickMillis());
		}
		boolean more = promotion.moved() + promotion.expired() >= this.batchSize;
		long next = more ? 0 : ((promotion.nextDueMillis() < 0) ? NONE : promotion.nextDueMillis());
		lower(this.nextDue, bucket, next);
	}

	private void fireRecurring(int bucket) {
		synchronized (this.lock) {
			this.nextTick[bucket] = NONE;
		}
		TimerBackend.RecurringStep step;
		try {
			step = this.backend.fireRecurring(bucket);
		}
		catch (RuntimeException | Error ex) {
			lower(this.nextTick, bucket, this.clock.millis() + RECURRING_RETRY_MILLIS);
			// a failure of a call the stop interrupted is none
			if (isTimerThread() || ex instanceof Error) {
				this.recurringWarning.warn("Could not fire the recurring jobs of bucket " + bucket + "; trying again in "
						+ RECURRING_RETRY_MILLIS + " ms: " + ex.getMessage());
			}
			return;
		}
		if (step.redisMillis() >= 0) {
			synced(step.redisMillis());
		}
		long head = (step.nextTickMillis() < 0) ? NONE : step.nextTickMillis();
		long next = step.progressed() ? head : Math.max(head, this.clock.millis() + RECURRING_STALL_MILLIS);
		lower(this.nextTick, bucket, next);
	}

	private void synced(long redisMillis) {
		this.clock.update(redisMillis);
		this.heartbeat.synced(redisMillis);
	}

	/** Whether a bucket is owned, and {@code force} or its time in {@code times} has come. */
	private boolean isDue(long[] times, int bucket, boolean force) {
		synchronized (this.lock) {
			return this.owned[bucket] && (force || times[bucket] <= this.clock.millis());
		}
	}

	private void sleepUntilDue() throws InterruptedException {
		synchronized (this.lock) {
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
			if (earliest <= 0) {
				return;
			}
			long monotonic = System.nanoTime();
			long waitNanos = Math.min(this.heartbeat.next() - monotonic, this.nextGuard - monotonic);
			if (earliest != NONE) {
				long untilDue = earliest - this.clock.millis();
				waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(untilDue, 1)));
			}
			if (waitNanos > 0) {
				TimeUnit.NANOSECONDS.timedWait(this.lock, waitNanos);
			}
			this.woken = false;
		}
	}

}
