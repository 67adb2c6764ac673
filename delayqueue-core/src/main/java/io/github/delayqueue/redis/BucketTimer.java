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
 * The timer of the buckets this instance owns: one thread sleeps until the earliest due time
 * of its buckets and runs the promote script of each bucket that is due; it is woken early by
 * {@link #onHead}, and re-checks every owned bucket each guard interval. Ownership comes from
 * {@link TimerBackend#coordinate}. A failed step is logged, backed off and retried. State is
 * guarded by one lock.
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

	/** Redis's clock as read by this timer's own calls alone: the heartbeat's expiry is written from it. */
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

	private boolean forceFull = true;

	// timer thread only: whether the last firing of each bucket's recurring jobs failed
	private final boolean[] recurringFailing;

	private volatile boolean running;

	private volatile @Nullable Thread thread;

	private volatile long lastProgressNanos = System.nanoTime();

	private volatile int ownedCount;

	private volatile @Nullable Throwable lastError;

	private long nextCoordination;

	private long nextFullCoordination;

	private long nextGuard;

	// timer thread only: the earliest heartbeat expiry read last (beat clock)
	private long nextExpiryCheck;

	// timer thread only: the namespace's epoch read at the last coordination
	private String epoch = "";

	private final Runnable dataLostListener;

	private int guardCursor;

	/**
	 * Creates a timer; {@link #start()} starts its thread.
	 * @param readyListener told of each topic and bucket that got READY jobs
	 * @param dataLostListener told when a coordination finds the namespace's epoch changed
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

	/** Starts the timer thread; does nothing when it runs already. */
	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.lastProgressNanos = System.nanoTime();
		Thread timer = new Thread(this::loop, "delayqueue-timer");
		timer.setDaemon(true);
		this.thread = timer;
		timer.start();
	}

	/** Stops the thread and gives this instance's buckets up, waiting for Redis a bounded time. */
	@SuppressWarnings("NullAway") // the future completes exceptionally with a cause
	void stop() {
		halt();
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

	/** Stops the thread without giving up the buckets, as a crash would. */
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

	/** Whether the timer thread runs: between {@link #start()} and {@link #stop()} or {@link #halt()}. */
	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** A job due at {@code dueMillis} (Redis's clock) became the earliest of a bucket's delay queue. */
	void onHead(int bucket, long dueMillis) {
		locked(() -> {
			if (bucket >= 0 && bucket < this.owned.length && this.owned[bucket] && dueMillis < this.nextDue[bucket]) {
				this.nextDue[bucket] = dueMillis;
				signal();
			}
		});
	}

	/** A recurring tick at {@code tickMillis} (Redis's clock) became the earliest of a bucket's. */
	void onRecurringTick(int bucket, long tickMillis) {
		locked(() -> {
			if (bucket >= 0 && bucket < this.owned.length && this.owned[bucket] && tickMillis < this.nextTick[bucket]) {
				this.nextTick[bucket] = tickMillis;
				signal();
			}
		});
	}

	/** Re-checks every owned bucket at once (after a reconnect). */
	void recheckAll() {
		locked(() -> {
			this.recheck = true;
			signal();
		});
	}

	/** Renews the heartbeat and the bucket shares at once (another instance left). */
	void coordinateSoon() {
		locked(() -> {
			this.coordinateNow = true;
			signal();
		});
	}

	/** Runs an action under the lock. */
	private void locked(Runnable action) {
		locked(() -> {
			action.run();
			return null;
		});
	}

	/** Reads under the lock. */
	private <T> T locked(Supplier<T> action) {
		this.lock.lock();
		try {
			return action.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Wakes the loop; called under the lock. */
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

	/** The back-off after a failed step: doubling, {@value #MIN_BACKOFF_MILLIS} to {@value #MAX_BACKOFF_MILLIS} ms. */
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
			boolean full = this.forceFull || monotonic - this.nextFullCoordination >= 0;
			coordinate(!full);
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
			boolean taken = takenOver(bucket);
			boolean guard = taken || plan.guardAll() || bucket == plan.guardBucket();
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

	/** What one step does, decided under the lock; {@code guardBucket} -1 for none. */
	private record Plan(boolean coordinate, boolean guardAll, int guardBucket) {

	}

	private void coordinate(boolean renewOnly) {
		if (renewOnly && this.beatClock.isSynced()) {
			long now = this.beatClock.millis();
			long earliest = this.backend.renew(now, now >= this.nextExpiryCheck);
			if (earliest >= 0) {
				if (earliest > 0) {
					this.nextExpiryCheck = earliest;
				}
				return;
			}
		}
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
					// its first step is a guard re-check
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
		locked(() -> {
			this.nextTick[bucket] = NONE;
		});
		TimerBackend.RecurringStep step;
		try {
			step = this.backend.fireRecurring(bucket);
		}
		catch (RuntimeException | Error ex) {
			long retryAt = this.clock.millis() + RECURRING_RETRY_MILLIS;
			locked(() -> {
				this.nextTick[bucket] = Math.min(this.nextTick[bucket], retryAt);
			});
			if (!this.running && !(ex instanceof Error)) {
				return;
			}
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
		long next = step.progressed() ? head : Math.max(head, this.clock.millis() + RECURRING_STALL_MILLIS);
		locked(() -> {
			if (this.owned[bucket]) {
				this.nextTick[bucket] = Math.min(this.nextTick[bucket], next);
			}
		});
	}

	/** Fires the recurring jobs of one bucket on the caller's thread, without the loop's bookkeeping (tests). */
	TimerBackend.RecurringStep fireRecurringNow(int bucket) {
		TimerBackend.RecurringStep step = this.backend.fireRecurring(bucket);
		step.topics().forEach((topic) -> this.readyListener.accept(topic, bucket));
		return step;
	}

	/** Promotes one bucket on the caller's thread, without the loop's bookkeeping (tests). */
	TimerBackend.Promotion promoteNow(int bucket, boolean guard) {
		TimerBackend.Promotion promotion = this.backend.promote(bucket, guard);
		promotion.topics().forEach((topic) -> this.readyListener.accept(topic, bucket));
		return promotion;
	}

	/** Whether a bucket was taken over since its last step; clears the flag. */
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
