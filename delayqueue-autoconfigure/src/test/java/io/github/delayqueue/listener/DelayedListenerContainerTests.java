package io.github.delayqueue.listener;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.MethodDelayedListenerEndpoint;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The container's loop at its edges: handlers and Redis calls that throw {@link Error}s,
 * a job of a batch that outlives the TTR of the others, a stop in the middle of a batch, a
 * finish that fails. Containers run on a real queue (one bucket, so the ready list is in
 * scheduling order) seen through {@link InterceptedOperations}, which can make the
 * container's {@code finishAndReserve} take more jobs than it asked for: a chained batch of
 * known jobs whatever the handlers' speed.
 */
class DelayedListenerContainerTests {

	private static final String TOPIC = "edges";

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	private final List<DelayedListenerContainer> containers = new ArrayList<>();

	private final ScriptedListener listener = new ScriptedListener();

	private ConfigurableApplicationContext context;

	private DelayedJobTemplate template;

	private InterceptedOperations operations;

	@Configuration(proxyBeanMethods = false)
	static class NoListeners {

	}

	@BeforeEach
	void startApplication() {
		this.context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		this.template = this.context.getBean(DelayedJobTemplate.class);
		this.operations = new InterceptedOperations(this.context.getBean(DelayQueueOperations.class));
	}

	@AfterEach
	void stopContainers() {
		this.containers.forEach(DelayedListenerContainer::stop);
	}

	// ------------------------------------------------------------------ errors

	@Test
	void errorsThrownByAHandlerAreRetriedAfterTheBackOffAndTheRestOfTheirBatchSettles() {
		forceBatches();
		Map<String, Supplier<Throwable>> errors = Map.of("assertion", () -> new AssertionError("broken invariant"),
				"overflow", StackOverflowError::new, "linkage", () -> new NoClassDefFoundError("com/example/Gone"));
		this.listener.behaviour = (job) -> {
			if (errors.containsKey(job.id()) && job.attempt() == 1) {
				throw errors.get(job.id()).get();
			}
		};
		schedule("lead", "ok-1", "assertion", "ok-2", "overflow", "ok-3", "linkage", "ok-4");
		start(Duration.ofSeconds(30), null, null);
		// far sooner than the 30 s TTR that a job left reserved would wait for
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pendingJobs()).isZero());
		for (String ok : List.of("lead", "ok-1", "ok-2", "ok-3", "ok-4")) {
			assertThat(this.listener.attempts(ok)).as(ok).containsExactly(1);
		}
		for (String failed : errors.keySet()) {
			assertThat(this.listener.attempts(failed)).as(failed).containsExactly(1, 2);
		}
	}

	@Test
	void errorOnTheLastAttemptGoesToTheRecoverer() {
		List<String> recovered = new CopyOnWriteArrayList<>();
		this.listener.behaviour = (job) -> {
			throw new AssertionError("still broken");
		};
		this.template.job(TOPIC, "doomed").payload("x").delay(Duration.ZERO).maxAttempts(2).schedule();
		start(Duration.ofSeconds(30), null,
				(job, failure) -> recovered.add(job.id() + "@" + job.attempt() + ": " + failure));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(recovered).containsExactly("doomed@2: java.lang.AssertionError: still broken"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.template.find(TOPIC, "doomed").isEmpty());
		assertThat(this.listener.attempts("doomed")).containsExactly(1, 2);
	}

	@Test
	void recovererThrowingAnErrorLeavesTheJobDeadInRedisAndTheBatchGoesOn() {
		forceBatches();
		this.listener.behaviour = (job) -> {
			if (job.id().equals("doomed")) {
				throw new IllegalStateException("handler broke");
			}
		};
		schedule("lead");
		this.template.job(TOPIC, "doomed").payload("x").delay(Duration.ZERO).maxAttempts(1).schedule();
		schedule("next");
		start(Duration.ofSeconds(30), null, (job, failure) -> {
			throw new AssertionError("recoverer broke");
		});
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.template.find(TOPIC, "doomed").orElseThrow().state())
				.isEqualTo(JobState.DEAD));
		assertThat(this.template.find(TOPIC, "doomed").orElseThrow().lastError())
			.isEqualTo("java.lang.IllegalStateException: handler broke");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.template.find(TOPIC, "next").isEmpty());
		assertThat(this.listener.attempts("next")).containsExactly(1);
	}

	@Test
	void consumerLoopOutlivesErrorsFromReserveBacksOffAndShowsNoProgressMeanwhile() {
		AtomicBoolean failing = new AtomicBoolean(true);
		List<Long> failedAt = new CopyOnWriteArrayList<>();
		this.operations.intercept("reserve", (args, invocation) -> {
			if (failing.get()) {
				failedAt.add(System.nanoTime());
				throw new NoClassDefFoundError("io/lettuce/core/Gone");
			}
			return invocation.proceed(args);
		});
		schedule("job");
		DelayedListenerContainer container = start(Duration.ofSeconds(30), null, null);
		await().atMost(Duration.ofSeconds(5)).until(() -> failedAt.size() >= 2);
		long progress = container.getLastProgressNanos();
		await().atMost(Duration.ofSeconds(5)).until(() -> failedAt.size() >= 4);
		assertThat(container.getLastProgressNanos()).as("no progress while every reserve fails").isEqualTo(progress);
		assertThat(container.getState()).isEqualTo("running");
		// exponential from 100 ms: 100, 200, 400
		assertThat(gapMillis(failedAt, 0)).isBetween(95L, 1000L);
		assertThat(gapMillis(failedAt, 1)).isBetween(195L, 1500L);
		assertThat(gapMillis(failedAt, 2)).isBetween(395L, 2000L);

		failing.set(false);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.template.find(TOPIC, "job").isEmpty());
		assertThat(this.listener.attempts("job")).containsExactly(1);
		assertThat(container.getLastProgressNanos() - progress).isPositive();
	}

	// ------------------------------------------------------------------ a slow job in a batch

	@Test
	void successesOfABatchAreFinishedBeforeASlowJobAfterThemOutlivesTheirTtr() {
		forceBatches();
		this.listener.behaviour = (job) -> {
			if (job.id().equals("slow") && job.attempt() == 1) {
				Thread.sleep(1500);
			}
		};
		// "lead" is reserved alone; finishing it takes "early" and "slow" as one batch
		schedule("lead", "early", "slow");
		start(Duration.ofSeconds(1), null, null);
		await().atMost(Duration.ofSeconds(15)).until(() -> pendingJobs() == 0);
		assertThat(this.listener.attempts("early")).as("run once, finished before its TTR ran out").containsExactly(1);
		// the slow job outlived its own TTR: delivered again, its late finish refused
		assertThat(this.listener.attempts("slow")).containsExactly(1, 2);
	}

	@Test
	void jobsOfABatchNotStartedWhenAJobStallsAreGivenBackWithoutUsingAnAttempt() {
		forceBatches();
		this.listener.behaviour = (job) -> {
			if (job.id().equals("slow") && job.attempt() == 1) {
				Thread.sleep(1500);
			}
		};
		schedule("lead", "early", "slow", "late");
		start(Duration.ofSeconds(1), null, null);
		await().atMost(Duration.ofSeconds(15)).until(() -> pendingJobs() == 0);
		assertThat(this.listener.attempts("late")).as("given back unstarted, not left to expire").containsExactly(1);
	}

	@Test
	void fastHandlersStillFinishManyJobsPerRoundTrip() {
		AtomicInteger calls = new AtomicInteger();
		AtomicInteger finished = new AtomicInteger();
		this.operations.intercept("finishAndReserve", (args, invocation) -> {
			calls.incrementAndGet();
			finished.addAndGet(((List<?>) args[0]).size());
			return invocation.proceed(args);
		});
		List<JobBuilder> jobs = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			jobs.add(this.template.job(TOPIC, "fast-" + i).payload("x").delay(Duration.ZERO));
		}
		this.template.scheduleAll(jobs);
		start(null, null, null);
		await().atMost(Duration.ofSeconds(30)).until(() -> pendingJobs() == 0);
		assertThat(this.listener.attempts).hasSize(1000).allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1));
		assertThat(finished).hasValueGreaterThanOrEqualTo(999);
		assertThat(finished.get() / calls.get()).as("jobs finished per finishAndReserve call").isGreaterThanOrEqualTo(8);
	}

	// ------------------------------------------------------------------ stop and Redis failures

	@Test
	void stopInTheMiddleOfABatchFinishesTheRunningJobAndGivesBackTheRestAtOnce() throws Exception {
		forceBatches();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.listener.behaviour = (job) -> {
			if (job.id().equals("a")) {
				running.countDown();
				release.await(10, TimeUnit.SECONDS);
			}
		};
		schedule("lead", "a", "b", "c", "d", "e");
		DelayedListenerContainer container = start(Duration.ofSeconds(30), null, null);
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		Thread stopper = new Thread(container::stop);
		stopper.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> !container.isRunning());
		release.countDown();
		stopper.join(10_000);
		assertThat(stopper.isAlive()).isFalse();
		assertThat(this.listener.attempts("a")).containsExactly(1);
		assertThat(this.template.find(TOPIC, "a")).as("finished").isEmpty();
		for (String unstarted : List.of("b", "c", "d", "e")) {
			assertThat(this.listener.attempts(unstarted)).as(unstarted).isEmpty();
			JobInfo info = this.template.find(TOPIC, unstarted).orElseThrow();
			assertThat(info.state()).as(unstarted).isEqualTo(JobState.READY);
			assertThat(info.attempt()).as(unstarted).isZero();
		}
		// given back in the order they were reserved
		List<ReservedJob> again = this.operations.operations().reserve(TOPIC, 10, null);
		assertThat(again).extracting(ReservedJob::id).containsExactly("b", "c", "d", "e");
		this.operations.operations().release(again);
	}

	@Test
	void pauseInTheMiddleOfAChainedBatchGivesBackTheRestAtOnceAndResumeRunsThemOnce() throws Exception {
		forceBatches();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.listener.behaviour = (job) -> {
			if (job.id().equals("a")) {
				running.countDown();
				release.await(10, TimeUnit.SECONDS);
			}
		};
		schedule("lead", "a", "b", "c", "d");
		DelayedListenerContainer container = start(Duration.ofSeconds(30), null, null);
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		container.pause();
		release.countDown();
		// the jobs of the batch not started yet go back at once, their attempt not counted
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			for (String unstarted : List.of("b", "c", "d")) {
				JobInfo info = this.template.find(TOPIC, unstarted).orElseThrow();
				assertThat(info.state()).as(unstarted).isEqualTo(JobState.READY);
				assertThat(info.attempt()).as(unstarted).isZero();
			}
			assertThat(this.template.find(TOPIC, "a")).as("finished").isEmpty();
		});
		// not run while paused
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
			.until(() -> this.listener.attempts("b").isEmpty());
		container.resume();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pendingJobs()).isZero());
		for (String id : List.of("lead", "a", "b", "c", "d")) {
			assertThat(this.listener.attempts(id)).as(id).containsExactly(1);
		}
	}

	@Test
	void finishThatFailsLeavesTheJobToBeDeliveredAgainAfterItsTtr() {
		AtomicBoolean failNext = new AtomicBoolean(true);
		this.operations.intercept("finishAndReserve", (args, invocation) -> {
			if (failNext.getAndSet(false)) {
				throw new DelayQueueConnectionException("connection lost", new RuntimeException("reset"));
			}
			return invocation.proceed(args);
		});
		schedule("job");
		start(Duration.ofSeconds(1), null, null);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.template.find(TOPIC, "job").isEmpty());
		assertThat(this.listener.attempts("job")).as("not finished the first time: at least once").containsExactly(1, 2);
	}

	// ------------------------------------------------------------------ error handler

	@Test
	void anErrorHandlerThatThrowsOrLeavesTheJobHasItDeliveredAgainAfterItsTtr() {
		List<String> handled = new CopyOnWriteArrayList<>();
		this.listener.behaviour = (job) -> {
			if (job.attempt() == 1) {
				throw new IllegalStateException("first attempt of " + job.id());
			}
		};
		DefaultDelayedListenerContainerFactory factory = factory();
		List<String> outcomes = new CopyOnWriteArrayList<>();
		factory.getContainerProperties().setObserver(new io.github.delayqueue.core.DelayQueueObserver() {

			@Override
			public void handled(String topic, Duration duration, String outcome, Throwable failure) {
				outcomes.add(outcome + ((failure != null) ? " " + failure.getMessage() : ""));
			}

		});
		factory.getContainerProperties().setErrorHandler((job, failure, container, consumer) -> {
			handled.add(container.getId() + " " + job.id() + "@" + job.attempt() + " " + failure.getMessage());
			if (job.id().equals("thrown")) {
				throw new StackOverflowError();
			}
			return null;
		});
		Method method = ReflectionUtils.findMethod(ScriptedListener.class, "on", DelayedJob.class);
		DelayedListenerContainer container = factory.createContainer(new MethodDelayedListenerEndpoint("handled",
				TOPIC, this.listener, method, "handledListener", 2, Duration.ofSeconds(1), null, true, null, null, null,
				List.of(), null, List.of(), null, null));
		this.containers.add(container);
		schedule("thrown", "left");
		container.start();
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(pendingJobs()).isZero());
		assertThat(handled).containsExactlyInAnyOrder("handled thrown@1 first attempt of thrown",
				"handled left@1 first attempt of left");
		// not settled: delivered again once the 1 s reservation ran out, as the next attempt
		assertThat(this.listener.attempts("thrown")).containsExactly(1, 2);
		assertThat(this.listener.attempts("left")).containsExactly(1, 2);
		// a handler that returns null or throws counts as leaving the job
		assertThat(outcomes).containsExactlyInAnyOrder("left first attempt of thrown", "left first attempt of left",
				"success", "success");
	}

	// ------------------------------------------------------------------ stopping from inside

	@Test
	void aContainerStoppedFromItsOwnIdleEventOrHandlerStopsWithoutWaitingForItself() {
		List<Object> events = new CopyOnWriteArrayList<>();
		AtomicInteger stops = new AtomicInteger();
		DefaultDelayedListenerContainerFactory factory = factory();
		factory.getContainerProperties().setIdleEventInterval(Duration.ofMillis(200));
		factory.getContainerProperties().setEventPublisher((event) -> {
			events.add(event);
			if (event instanceof DelayedListenerIdleEvent idle && stops.incrementAndGet() == 1) {
				// on the consumer thread: must not wait for that thread to end
				idle.getContainer().stop();
			}
		});
		Method method = ReflectionUtils.findMethod(ScriptedListener.class, "on", DelayedJob.class);
		DelayedListenerContainer idle = factory.createContainer(new MethodDelayedListenerEndpoint("idle", TOPIC,
				this.listener, method, "idleListener", 1, Duration.ofSeconds(30), null, true, null, null, null, List.of(),
				null, List.of(), null, null));
		this.containers.add(idle);
		idle.start();
		// far sooner than the 5 s the consumer thread would wait to join itself
		await().atMost(Duration.ofSeconds(3))
			.until(() -> events.stream().anyMatch(DelayedListenerContainerStoppedEvent.class::isInstance));
		assertThat(idle.isRunning()).isFalse();

		// a handler that stops its own container: its job still succeeds and is finished
		DelayedListenerContainer[] self = new DelayedListenerContainer[1];
		this.listener.behaviour = (job) -> self[0].stop();
		factory.getContainerProperties().setIdleEventInterval(null);
		self[0] = factory.createContainer(new MethodDelayedListenerEndpoint("self", TOPIC, this.listener, method,
				"selfListener", 2, Duration.ofSeconds(30), null, true, null, null, null, List.of(), null, List.of(), null, null));
		this.containers.add(self[0]);
		schedule("stopper");
		self[0].start();
		await().atMost(Duration.ofSeconds(5)).until(() -> !self[0].isRunning() && pendingJobs() == 0);
		assertThat(this.listener.attempts("stopper")).containsExactly(1);
	}

	@Test
	void theRegistrysStopWaitsForAContainerWhoseStopIsUnderWayAlready() throws Exception {
		List<String> steps = new CopyOnWriteArrayList<>();
		CountDownLatch stopping = new CountDownLatch(1);
		DelayedListenerContainer[] self = new DelayedListenerContainer[1];
		this.listener.behaviour = (job) -> {
			// the container stops itself, in the background, while its handler goes on
			self[0].stop();
			steps.add("stop called");
			stopping.countDown();
			Thread.sleep(800);
			steps.add("handler done");
		};
		DefaultDelayedListenerContainerFactory factory = factory();
		Method method = ReflectionUtils.findMethod(ScriptedListener.class, "on", DelayedJob.class);
		io.github.delayqueue.config.DelayedListenerEndpointRegistry registry = new io.github.delayqueue.config.DelayedListenerEndpointRegistry();
		self[0] = registry.registerListenerContainer(new MethodDelayedListenerEndpoint("stopping", TOPIC, this.listener,
				method, "stoppingListener", 1, Duration.ofSeconds(30), null, true, null, null, null, List.of(), null, List.of(), null, null),
				factory);
		this.containers.add(self[0]);
		registry.start();
		schedule("slow");
		assertThat(stopping.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(self[0].isRunning()).isFalse();
		// the container no longer runs, but its stop is under way: the registry waits for it
		registry.stop();
		assertThat(steps).containsExactly("stop called", "handler done");
	}

	// ------------------------------------------------------------------ interceptors

	@Test
	void interceptorsRunInOrderAroundEachJobAndTheFirstThatSaysNoSkipsIt() {
		forceBatches();
		List<String> events = new CopyOnWriteArrayList<>();
		this.listener.behaviour = (job) -> {
			events.add("listener " + job.id() + "@" + job.attempt());
			if (job.id().equals("fail") && job.attempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		};
		schedule("ok", "skip", "fail");
		startIntercepted(2, new Recording("a", events, null), new Recording("b", events, "skip"));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pendingJobs()).isZero());

		assertThat(eventsOf(events, "ok@1")).containsExactly("a intercept ok@1", "b intercept ok@1", "listener ok@1",
				"a success ok@1", "b success ok@1", "a afterJob ok@1", "b afterJob ok@1");
		// the first interceptor that says no ends the asking; every afterJob still runs
		assertThat(eventsOf(events, "skip@1")).containsExactly("a intercept skip@1", "b intercept skip@1",
				"a afterJob skip@1", "b afterJob skip@1");
		assertThat(this.listener.attempts("skip")).isEmpty();
		// a failure is heard before it is settled; afterJob runs once the retry is in Redis
		assertThat(eventsOf(events, "fail@1")).containsExactly("a intercept fail@1", "b intercept fail@1",
				"listener fail@1", "a failure fail@1 java.lang.IllegalStateException: first attempt fails",
				"b failure fail@1 java.lang.IllegalStateException: first attempt fails", "a afterJob fail@1 settled",
				"b afterJob fail@1 settled");
		assertThat(eventsOf(events, "fail@2")).containsExactly("a intercept fail@2", "b intercept fail@2",
				"listener fail@2", "a success fail@2", "b success fail@2", "a afterJob fail@2", "b afterJob fail@2");
	}

	@Test
	void anInterceptorThatThrowsFailsTheJobBeforeTheListenerAndHooksThatThrowChangeNothing() {
		List<String> events = new CopyOnWriteArrayList<>();
		DelayedJobInterceptor throwing = new DelayedJobInterceptor() {

			@Override
			public boolean intercept(ReservedJob job) {
				if (job.id().equals("guarded") && job.attempt() == 1) {
					throw new AssertionError("not yet");
				}
				return true;
			}

			@Override
			public void success(ReservedJob job) {
				throw new IllegalStateException("success hook broken");
			}

			@Override
			public void failure(ReservedJob job, Throwable failure) {
				throw new StackOverflowError();
			}

			@Override
			public void afterJob(ReservedJob job) {
				throw new NoClassDefFoundError("com/example/Gone");
			}

		};
		schedule("guarded", "plain");
		startIntercepted(2, throwing, new Recording("after", events, null));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pendingJobs()).isZero());

		// intercept threw: a failure of the job, the listener not called, retried after the back-off
		assertThat(this.listener.attempts("guarded")).containsExactly(2);
		// the interceptor after the one that threw is not asked, and hears nothing of the job
		assertThat(eventsOf(events, "guarded@1")).isEmpty();
		// success hooks that throw leave the job a success, finished; the next interceptor hears it
		assertThat(eventsOf(events, "guarded@2")).contains("after success guarded@2", "after afterJob guarded@2");
		assertThat(eventsOf(events, "plain@1")).contains("after success plain@1", "after afterJob plain@1");
		assertThat(this.listener.attempts("plain")).containsExactly(1);
	}

	private static List<String> eventsOf(List<String> events, String job) {
		return events.stream().filter((event) -> event.contains(" " + job)).toList();
	}

	/**
	 * Records each hook as "name hook id@attempt"; afterJob of a failure adds whether Redis
	 * had settled it by then (the attempt no longer reserved). Says no to the job with the
	 * given id.
	 */
	private final class Recording implements DelayedJobInterceptor {

		private final String name;

		private final List<String> events;

		private final String skip;

		private final Set<String> failed = ConcurrentHashMap.newKeySet();

		Recording(String name, List<String> events, String skip) {
			this.name = name;
			this.events = events;
			this.skip = skip;
		}

		@Override
		public boolean intercept(ReservedJob job) {
			this.events.add(this.name + " intercept " + job.id() + "@" + job.attempt());
			return !job.id().equals(this.skip);
		}

		@Override
		public void success(ReservedJob job) {
			this.events.add(this.name + " success " + job.id() + "@" + job.attempt());
		}

		@Override
		public void failure(ReservedJob job, Throwable failure) {
			this.failed.add(job.id() + "@" + job.attempt());
			this.events.add(this.name + " failure " + job.id() + "@" + job.attempt() + " " + failure);
		}

		@Override
		public void afterJob(ReservedJob job) {
			String attempt = job.id() + "@" + job.attempt();
			String settled = "";
			if (this.failed.contains(attempt)) {
				boolean reserved = DelayedListenerContainerTests.this.template.find(TOPIC, job.id())
					.map((info) -> info.state() == JobState.RESERVED && info.attempt() == job.attempt())
					.orElse(false);
				settled = reserved ? " still reserved" : " settled";
			}
			this.events.add(this.name + " afterJob " + attempt + settled);
		}

	}

	@Test
	void oneEndpointsOwnSettingsLeaveTheFactorysForTheNextContainer() {
		DefaultDelayedListenerContainerFactory factory = factory();
		factory.getContainerProperties().setConcurrency(3);
		factory.getContainerProperties().setAutoStartup(false);
		factory.getContainerProperties().setIdleEventInterval(Duration.ofSeconds(7));
		DelayedJobInterceptor shared = new Recording("shared", new CopyOnWriteArrayList<>(), null);
		DelayedJobInterceptor own = new Recording("own", new CopyOnWriteArrayList<>(), null);
		factory.getContainerProperties().setInterceptors(List.of(shared));
		io.github.delayqueue.config.SimpleDelayedListenerEndpoint<String> first = new io.github.delayqueue.config.SimpleDelayedListenerEndpoint<>(
				"first", TOPIC, String.class, (job) -> { });
		first.setConcurrency(9);
		first.setAutoStartup(true);
		first.setTtr(Duration.ofSeconds(42));
		first.setMaxAttempts(2);
		first.setInterceptors(List.of(own));
		io.github.delayqueue.config.SimpleDelayedListenerEndpoint<String> second = new io.github.delayqueue.config.SimpleDelayedListenerEndpoint<>(
				"second", "other", String.class, (job) -> { });
		ContainerProperties one = ((DefaultDelayedListenerContainer) factory.createContainer(first))
			.getContainerProperties();
		ContainerProperties two = ((DefaultDelayedListenerContainer) factory.createContainer(second))
			.getContainerProperties();
		assertThat(one.getConcurrency()).isEqualTo(9);
		assertThat(one.isAutoStartup()).isTrue();
		assertThat(one.getInterceptors()).containsExactly(shared, own);
		assertThat(two.getId()).isEqualTo("second");
		assertThat(two.getTopic()).isEqualTo("other");
		assertThat(two.getConcurrency()).isEqualTo(3);
		assertThat(two.isAutoStartup()).isFalse();
		assertThat(two.getTtr()).isNull();
		assertThat(two.getMaxAttempts()).isNull();
		assertThat(two.getIdleEventInterval()).isEqualTo(Duration.ofSeconds(7));
		assertThat(two.getInterceptors()).containsExactly(shared);
		assertThat(two.getErrorHandler()).isNotSameAs(one.getErrorHandler());
		assertThat(two.getThreadFactory().newThread(() -> { }).getName()).startsWith("delayqueue-second-");
	}

	private DelayedListenerContainer startIntercepted(Integer maxAttempts, DelayedJobInterceptor... interceptors) {
		DefaultDelayedListenerContainerFactory factory = factory();
		factory.getContainerProperties().setInterceptors(List.of(interceptors[0]));
		Method method = ReflectionUtils.findMethod(ScriptedListener.class, "on", DelayedJob.class);
		// the first interceptor is the factory's, the others the listener's own
		DelayedListenerContainer container = factory.createContainer(new MethodDelayedListenerEndpoint("intercepted",
				TOPIC, this.listener, method, "interceptedListener", 1, Duration.ofSeconds(30), maxAttempts, true, null,
				null, null, List.of(), null, List.of(interceptors).subList(1, interceptors.length), null, null));
		this.containers.add(container);
		container.start();
		return container;
	}

	// ------------------------------------------------------------------ support

	private void schedule(String... ids) {
		for (String id : ids) {
			this.template.schedule(TOPIC, id, "x", Duration.ZERO);
		}
	}

	private long pendingJobs() {
		return this.template.getOperations().stats().totals().total();
	}

	/**
	 * Makes every {@code finishAndReserve} that asks for more jobs take up to ten: the jobs
	 * READY then become the next batch of the handler thread, whatever its handlers' speed.
	 */
	private void forceBatches() {
		this.operations.intercept("finishAndReserve", (args, invocation) -> {
			Object[] changed = args.clone();
			if ((int) changed[1] > 0) {
				changed[1] = 10;
			}
			return invocation.proceed(changed);
		});
	}

	/**
	 * A batch whose early settle comes late (the settle of the batch before is held by a slow
	 * finish, as a Redis latency spike would hold it): its job whose TTR ran out meanwhile is
	 * not run (it may be delivered again already) but given back, so that its attempt is not
	 * burnt by the TTR expiry and, on its last attempt, it does not die without running.
	 */
	@Test
	void aJobWhoseTtrRanOutBecauseItsBatchsSettleCameLateIsGivenBackNotLeftToDie() {
		this.operations.intercept("finishAndReserve", (args, invocation) -> {
			Object[] changed = args.clone();
			if (Thread.currentThread().getName().endsWith("-settler")) {
				// the settler finishing an earlier batch meets a slow Redis
				Thread.sleep(1500);
			}
			else if ((int) changed[1] > 0) {
				// batches of two: lead -> [a, b] -> [slow, victim]
				changed[1] = 2;
			}
			return invocation.proceed(changed);
		});
		this.listener.behaviour = (job) -> {
			if (job.id().equals("b")) {
				Thread.sleep(150);
			}
			if (job.id().equals("slow") && job.attempt() == 1) {
				Thread.sleep(1100);
			}
		};
		this.template.job(TOPIC, "lead").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(60)).schedule();
		this.template.job(TOPIC, "a").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(60)).schedule();
		this.template.job(TOPIC, "b").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(60)).schedule();
		this.template.job(TOPIC, "slow").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(1)).schedule();
		this.template.job(TOPIC, "victim").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(1)).schedule();
		start(null, 1, null);
		await().atMost(Duration.ofSeconds(20)).until(() -> this.template.find(TOPIC, "victim")
			.map((info) -> info.state() == JobState.DEAD)
			.orElse(true) && this.template.find(TOPIC, "slow").map((info) -> info.state() == JobState.DEAD).orElse(true));
		assertThat(this.listener.attempts("victim")).as("the listener ran the victim's only attempt").containsExactly(1);
	}

	private DelayedListenerContainer start(Duration ttr, Integer maxAttempts, DelayedJobRecoverer recoverer) {
		DefaultDelayedListenerContainerFactory factory = factory();
		factory.setRecoverer(recoverer);
		Method method = ReflectionUtils.findMethod(ScriptedListener.class, "on", DelayedJob.class);
		DelayedListenerContainer container = factory.createContainer(new MethodDelayedListenerEndpoint("scripted",
				TOPIC, this.listener, method, "scriptedListener", 1, ttr, maxAttempts, true, null, null, null,
				List.of(), null, List.of(), null, null));
		this.containers.add(container);
		container.start();
		return container;
	}

	/**
	 * A factory on the test's queue: retries after 100 ms without jitter, stops waiting 10 s
	 * for handlers.
	 */
	private DefaultDelayedListenerContainerFactory factory() {
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(
				this.operations.operations(), this.context.getBean(JobPayloadConverter.class));
		factory.setBackOffInitial(Duration.ofMillis(100));
		factory.setBackOffJitter(Duration.ZERO);
		factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(10));
		return factory;
	}

	private static long gapMillis(List<Long> nanos, int index) {
		return TimeUnit.NANOSECONDS.toMillis(nanos.get(index + 1) - nanos.get(index));
	}

	@FunctionalInterface
	interface Behaviour {

		void run(DelayedJob<String> job) throws Throwable;

	}

	/**
	 * Records each delivery's attempt by job id, then does what the test says.
	 */
	static class ScriptedListener {

		final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();

		volatile Behaviour behaviour = (job) -> {
		};

		public void on(DelayedJob<String> job) throws Throwable {
			this.attempts.computeIfAbsent(job.id(), (id) -> new CopyOnWriteArrayList<>()).add(job.attempt());
			this.behaviour.run(job);
		}

		List<Integer> attempts(String id) {
			return this.attempts.getOrDefault(id, List.of());
		}

	}

	// a container started again while its stop is under way (the registry stops containers on
	// threads of their own): the first run's consumer thread ends with its run
	@Test
	void restartDuringAStopLeavesNoConsumerThatReservesAndGivesBackJobs() throws Exception {
		AtomicInteger releases = new AtomicInteger();
		this.operations.intercept("release", (args, invocation) -> {
			releases.addAndGet((args[0] instanceof List<?> jobs) ? jobs.size() : 1);
			return invocation.proceed(args);
		});
		this.listener.behaviour = (job) -> Thread.sleep(100);
		DelayedListenerContainer container = restartable();
		container.start();
		// the consumer thread waits for work
		Thread.sleep(300);
		Thread stopper = new Thread(container::stop, "stopper");
		stopper.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> !container.isRunning());
		// started again before the stop has ended (it waits up to 5 s for the old consumer thread)
		container.start();
		stopper.join(30_000);
		assertThat(stopper.isAlive()).isFalse();

		int before = releases.get();
		for (int i = 0; i < 10; i++) {
			this.template.schedule(TOPIC, "job-" + i, "x", Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.template.getOperations().stats().totals().total() == 0);
		for (int i = 0; i < 10; i++) {
			assertThat(this.listener.attempts("job-" + i)).as("job-" + i).containsExactly(1);
		}
		assertThat(releases.get() - before).as("jobs reserved and given back unstarted while the container ran")
			.isLessThan(5);
	}

	private DelayedListenerContainer restartable() {
		DefaultDelayedListenerContainerFactory factory = factory();
		Method method = ReflectionUtils.findMethod(DelayedListenerContainerTests.ScriptedListener.class, "on",
				DelayedJob.class);
		DelayedListenerContainer container = factory.createContainer(new MethodDelayedListenerEndpoint("restart", TOPIC, this.listener, method,
				"restartListener", 1, Duration.ofSeconds(30), null, true, null, null, null, List.of(), null, List.of(), null, null));
		this.containers.add(container);
		return container;
	}

}
