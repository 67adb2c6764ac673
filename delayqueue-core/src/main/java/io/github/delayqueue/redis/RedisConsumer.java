package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.IntStream;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The consumer side of {@link RedisDelayQueue}: reserves from the buckets {@link ReadySignals}
 * marks, waits for work, and finishes, fails, touches or releases reservations. Thread-safe.
 */
abstract class RedisConsumer extends RedisProducer implements DelayQueueConsumer {

	/** The most jobs one finish script call finishes. */
	static final int FINISH_BATCH = 1_000;

	/** The longest a rate-limited topic waits here before it asks Redis for permits again. */
	static final Duration MAX_THROTTLE = RateLimit.MIN_PER.plus(RateLimit.MARGIN);

	/** The pause of a rate-limited topic after a take that came too late for its permits. */
	static final Duration LATE_PAUSE = Duration.ofMillis(100);

	RedisConsumer(RedisDelayQueueBuilder builder) {
		super(builder);
	}

	/** Which buckets' ready lists of a topic hold entries: the probe of {@link ReadySignals}. */
	static Function<String, boolean[]> readyListProbe(ScriptRunner runner, KeySpace keys) {
		return (topic) -> runner.execute("reading the ready lists of topic " + topic, (connection) -> {
			List<@Nullable Object> lengths = RetainedJobs.each(connection, IntStream.range(0, keys.buckets()).boxed().toList(),
					(bucket) -> connection.listCommands().lLen(keys.readyList(bucket, topic)));
			boolean[] nonEmpty = new boolean[keys.buckets()];
			for (int bucket = 0; bucket < nonEmpty.length; bucket++) {
				nonEmpty[bucket] = !(lengths.get(bucket) instanceof Long count) || count > 0;
			}
			return nonEmpty;
		});
	}

	@Override
	public List<ReservedJob> reserve(String topic, int max, @Nullable Duration ttr, @Nullable Integer maxAttempts) {
		JobConstraints.topic(topic);
		JobConstraints.max("max", max, MAX_RESERVE);
		long ttrMillis = ttrMillis(ttr);
		int attemptsLimit = attemptsLimit(maxAttempts);
		ReadySignals.TopicSignal signal = this.signals.topic(topic);
		RateLimit limit = this.rateLimits.of(topic);
		if (limit != null) {
			this.offers.refuseDelivered(topic);
			return reserveLimited(topic, max, ttrMillis, attemptsLimit, limit, signal);
		}
		List<ReservedJob> collected = this.offers.collect(topic, max, ttrMillis, attemptsLimit);
		if (!collected.isEmpty()) {
			collected.forEach(this.observer::delivered);
			return collected;
		}
		List<ReservedJob> jobs = new ArrayList<>(Math.min(max, 64));
		take(topic, signal.candidates(), max, ttrMillis, attemptsLimit, 0, signal, jobs);
		return jobs;
	}

	/** Reserves in a rate-limited topic: permits first, then at most that many jobs, then the unused permits back. */
	private List<ReservedJob> reserveLimited(String topic, int max, long ttrMillis, int attemptsLimit,
			RateLimit limit, ReadySignals.TopicSignal signal) {
		long[][] candidates = signal.candidates();
		if (candidates.length == 0 || signal.isThrottled()) {
			return List.of();
		}
		RateLimits.Grant grant = this.rateLimits.take(topic, limit, max);
		this.clock.update(grant.now());
		if (grant.granted() == 0) {
			this.observer.rateLimited(topic);
			throttle(signal, grant);
			return List.of();
		}
		List<ReservedJob> jobs = new ArrayList<>(grant.granted());
		Take ended = take(topic, candidates, grant.granted(), ttrMillis, attemptsLimit, grant.notAfter(), signal, jobs);
		if (ended != Take.FAILED) {
			this.rateLimits.giveBack(topic, grant, grant.granted() - jobs.size());
		}
		if (ended == Take.LATE) {
			this.rateLimits.late(topic, grant);
			signal.throttle(LATE_PAUSE.toMillis());
		}
		else if (grant.nextFree() > 0 && jobs.size() == grant.granted()) {
			throttle(signal, grant);
		}
		return jobs;
	}

	/** Throttles the topic until the permits a grant says are free, at most {@link #MAX_THROTTLE}. */
	private static void throttle(ReadySignals.TopicSignal signal, RateLimits.Grant grant) {
		long millis = (grant.nextFree() > 0) ? grant.nextFree() - grant.now() : MAX_THROTTLE.toMillis();
		signal.throttle(Math.min(millis, MAX_THROTTLE.toMillis()));
	}

	/** How a take of a rate-limited reserve ended. */
	private enum Take {

		/** As far as the jobs and buckets went. */
		DONE,

		/** A bucket had READY jobs after the permits' latest time: none of them was taken. */
		LATE,

		/** A bucket call failed after earlier ones took jobs. */
		FAILED

	}

	/** Takes up to {@code max} jobs from the candidate buckets into {@code jobs}, clearing the marks of empty ones. */
	private Take take(String topic, long[][] candidates, int max, long ttrMillis, int attemptsLimit, long notAfter,
			ReadySignals.TopicSignal signal, List<ReservedJob> jobs) {
		for (long[] candidate : candidates) {
			int bucket = (int) candidate[0];
			ScriptReplies.Taken taken;
			try {
				taken = this.scripts.reserve(bucket, topic, max - jobs.size(), ttrMillis, attemptsLimit, notAfter);
			}
			catch (RuntimeException ex) {
				if (jobs.isEmpty()) {
					throw ex;
				}
				logger.debug("Reserve of topic '" + topic + "' stopped at bucket " + bucket + " with " + jobs.size()
						+ " job(s) taken: " + ex.getMessage());
				return Take.FAILED;
			}
			if (taken.late()) {
				this.clock.update(taken.now());
				return Take.LATE;
			}
			if (taken(bucket, taken, jobs) == 0) {
				signal.clear(bucket, candidate[1]);
			}
			if (jobs.size() >= max) {
				break;
			}
		}
		return Take.DONE;
	}

	/** Hands over the jobs a reserve or finish took; returns the jobs left in the bucket's ready list. */
	private long taken(int bucket, ScriptReplies.Taken taken, List<ReservedJob> jobs) {
		if (taken.now() > 0) {
			this.clock.update(taken.now());
		}
		if (taken.announced() > 0) {
			this.timer.onHead(bucket, taken.announced());
		}
		for (ReservedJob job : taken.jobs()) {
			jobs.add(job);
			this.observer.delivered(job);
		}
		return taken.readyLeft();
	}

	private static int attemptsLimit(@Nullable Integer maxAttempts) {
		return (maxAttempts != null) ? JobConstraints.maxAttempts(maxAttempts) : 0;
	}

	private static long ttrMillis(@Nullable Duration ttr) {
		return (ttr != null) ? JobConstraints.ttr(ttr).toMillis() : 0;
	}

	@Override
	public boolean awaitWork(String topic, Duration timeout) throws InterruptedException {
		JobConstraints.topic(topic);
		Assert.notNull(timeout, "timeout must not be null");
		return this.signals.topic(topic).await(timeout);
	}

	@Override
	public boolean awaitWork(String topic, Duration timeout, int max, @Nullable Duration ttr,
			@Nullable Integer maxAttempts) throws InterruptedException {
		JobConstraints.topic(topic);
		Assert.notNull(timeout, "timeout must not be null");
		JobConstraints.max("max", max, MAX_RESERVE);
		return this.offers.await(topic, timeout, new Offers.Offer(max, ttrMillis(ttr), attemptsLimit(maxAttempts)));
	}

	@Override
	public boolean finish(ReservedJob job) {
		Assert.notNull(job, "job must not be null");
		return finishAndReserve(List.of(job), 0, null, null).stale().isEmpty();
	}

	@Override
	@SuppressWarnings("NullAway") // a generation is read only with a signal
	public FinishResult finishAndReserve(List<ReservedJob> jobs, int max, @Nullable Duration ttr,
			@Nullable Integer maxAttempts) {
		String topic = JobConstraints.topicOf(jobs);
		JobConstraints.count("max", max, MAX_NEXT);
		long ttrMillis = ttrMillis(ttr);
		int attemptsLimit = attemptsLimit(maxAttempts);
		// a rate-limited topic takes its permits first, and a finish that waits for replicas can fail
		// after its script reserved: their next jobs are reserved after the finish
		boolean reserveAfter = this.rateLimits.of(topic) != null || this.runner.waitsForReplicas();
		int wanted = reserveAfter ? 0 : max;
		ReadySignals.TopicSignal signal = (wanted > 0) ? this.signals.existing(topic) : null;
		Retention keep = this.retained.retentionOf(topic);
		List<ReservedJob> stale = new ArrayList<>();
		List<ReservedJob> next = new ArrayList<>();
		List<ScriptReplies.Finished> done = new ArrayList<>();
		try {
			// the first call on a marked bucket also reserves the next jobs
			for (Map.Entry<Integer, List<ReservedJob>> entry : byBucket(jobs, this::bucketOf, FINISH_BATCH)) {
				int bucket = entry.getKey();
				long generation = (wanted > 0 && signal != null) ? signal.markedGeneration(bucket) : -1;
				int take = (signal != null && generation < 0) ? 0 : wanted;
				ScriptReplies.Finished finished;
				try {
					finished = this.scripts.finish(bucket, topic, entry.getValue(), take, ttrMillis, attemptsLimit, keep);
				}
				catch (RuntimeException ex) {
					// give back the jobs taken so far before reporting the failure
					try {
						release(next);
					}
					catch (RuntimeException notReleased) {
						ex.addSuppressed(notReleased);
					}
					throw ex;
				}
				finished.finished().forEach((job) -> this.observer.completed(topic));
				done.add(finished);
				stale.addAll(finished.stale());
				if (finished.next() != null) {
					if (taken(bucket, finished.next(), next) == 0 && generation >= 0) {
						signal.clear(bucket, generation);
					}
					wanted = 0;
				}
			}
		}
		finally {
			this.retained.add(topic, done);
		}
		if (reserveAfter && max > 0) {
			try {
				next.addAll(reserve(topic, max, ttr, maxAttempts));
			}
			catch (RuntimeException ex) {
				logger.debug("Finished jobs of topic '" + topic + "'; could not reserve the next: " + ex.getMessage());
			}
		}
		return new FinishResult(stale, next);
	}

	@Override
	public boolean release(ReservedJob job) {
		Assert.notNull(job, "job must not be null");
		return release(List.of(job)) == 1;
	}

	/** Releases jobs in every bucket; the first failure is thrown after all were tried. */
	@Override
	public int release(List<ReservedJob> jobs) {
		Assert.notNull(jobs, "jobs must not be null");
		int released = 0;
		RuntimeException failure = null;
		for (Map.Entry<Integer, List<ReservedJob>> entry : byBucket(jobs, this::bucketOf, jobs.size())) {
			try {
				released += this.timerBackend.release(entry.getKey(), entry.getValue());
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
		return released;
	}

	@Override
	public FailResult fail(ReservedJob job, Duration backOff, String error) {
		JobConstraints.backOff("backOff", backOff);
		return fail(job, backOff.toMillis(), error);
	}

	@Override
	public FailResult kill(ReservedJob job, String error) {
		return fail(job, -1, error);
	}

	private FailResult fail(ReservedJob job, long backOffMillis, String error) {
		Assert.notNull(job, "job must not be null");
		int bucket = bucketOf(job);
		ScriptReplies.Failed failed = this.scripts.fail(bucket, job, backOffMillis, error);
		if (failed.result() == FailResult.DEAD) {
			this.observer.dead(job.topic());
			this.retained.died(job.topic(), job.id(), failed.dueMillis());
		}
		else if (failed.result() == FailResult.RETRYING) {
			written(job.topic(), bucket, (backOffMillis == 0) ? JobState.READY : JobState.DELAYED, failed.dueMillis(),
					failed.head());
			this.observer.retried(job.topic());
		}
		return failed.result();
	}

	@Override
	public Optional<Instant> touch(ReservedJob job, @Nullable Duration ttr) {
		Assert.notNull(job, "job must not be null");
		Duration extension = (ttr != null) ? JobConstraints.ttr(ttr) : job.ttr();
		Assert.notNull(extension, "ttr must be given: this reservation does not know its own");
		return this.scripts.touch(bucketOf(job), job, extension.toMillis());
	}

	/** The bucket of a reserved job, its topic and id checked (the record's constructor does not). */
	private int bucketOf(ReservedJob job) {
		return bucketOf(job.topic(), job.id());
	}

	@Override
	public void limitRate(String topic, @Nullable RateLimit limit) {
		this.rateLimits.set(topic, limit);
	}

	@Override
	public Optional<RateLimit> rateLimit(String topic) {
		return Optional.ofNullable(this.rateLimits.of(JobConstraints.topic(topic)));
	}

}
