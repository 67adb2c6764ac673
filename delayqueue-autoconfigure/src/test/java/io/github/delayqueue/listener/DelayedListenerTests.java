package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

class DelayedListenerTests {

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	record Order(long id, String item) {
	}

	record Delivery(String id, int attempt, int maxAttempts, Instant dueAt, Instant deliveredAt, Object payload) {

		static Delivery of(DelayedJob<?> job, Object payload) {
			return new Delivery(job.id(), job.attempt(), job.maxAttempts(), job.dueAt(), job.deliveredAt(), payload);
		}

	}

	// ------------------------------------------------------------------ 1. delivery and metadata

	static class OrderListener {

		final BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "orders")
		void on(Order order, DelayedJob<Order> job) {
			assertThat(job.payload()).isEqualTo(order);
			this.deliveries.add(Delivery.of(job, order));
		}

		@DelayedListener(topic = "generic")
		void generic(List<Order> orders, DelayedJob<List<Order>> job) {
			this.deliveries.add(Delivery.of(job, orders));
		}

		@DelayedListener("raw")
		void raw(DelayedJob<JsonNode> job) {
			this.deliveries.add(Delivery.of(job, job.payload().get("item").asString()));
		}

		@DelayedListener(topic = "${test.topic:text}")
		void text(String text, DelayedJob<byte[]> job) {
			this.deliveries.add(Delivery.of(job, text + "/" + job.payload().length));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OrderConfig {

		@Bean
		OrderListener orderListener() {
			return new OrderListener();
		}

	}

	@Test
	void recordPayloadArrivesAfterItsDelayWithTheJobsMetadata() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(OrderConfig.class);
		OrderListener listener = context.getBean(OrderListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);

		ScheduleResult scheduled = template.job("orders", "o-1")
			.payload(new Order(1, "book"))
			.delay(Duration.ofSeconds(1))
			.maxAttempts(4)
			.schedule();
		JobInfo info = template.find("orders", "o-1").orElseThrow();
		assertThat(Duration.between(info.createdAt(), scheduled.dueAt())).isEqualTo(Duration.ofSeconds(1));

		Delivery delivery = listener.deliveries.poll(10, TimeUnit.SECONDS);
		assertThat(delivery).isNotNull();
		assertThat(delivery.payload()).isEqualTo(new Order(1, "book"));
		assertThat(delivery.id()).isEqualTo("o-1");
		assertThat(delivery.attempt()).isEqualTo(1);
		assertThat(delivery.maxAttempts()).isEqualTo(4);
		assertThat(delivery.dueAt()).isEqualTo(scheduled.dueAt());
		assertThat(delivery.deliveredAt()).isAfterOrEqualTo(scheduled.dueAt())
			.isBefore(scheduled.dueAt().plusMillis(500));
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("orders", "o-1").isEmpty());
	}

	@Test
	void genericJsonNodeStringAndByteArrayPayloadsAreBound() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(OrderConfig.class);
		OrderListener listener = context.getBean(OrderListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("generic", "g", List.of(new Order(1, "a"), new Order(2, "b")), Duration.ZERO);
		assertThat(listener.deliveries.poll(10, TimeUnit.SECONDS).payload())
			.isEqualTo(List.of(new Order(1, "a"), new Order(2, "b")));
		template.schedule("raw", "r", new Order(3, "pen"), Duration.ZERO);
		assertThat(listener.deliveries.poll(10, TimeUnit.SECONDS).payload()).isEqualTo("pen");
		template.schedule("text", "t", "hello", Duration.ZERO);
		assertThat(listener.deliveries.poll(10, TimeUnit.SECONDS).payload()).isEqualTo("hello/5");
	}

	// ------------------------------------------------------------------ headers

	record Headed(Map<String, Object> headers, Object payload) {
	}

	static class HeaderListener {

		final BlockingQueue<Headed> deliveries = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "headed")
		void on(Order order, @Header(DelayQueueHeaders.ATTEMPT) int attempt,
				@Header(DelayQueueHeaders.MAX_ATTEMPTS) int maxAttempts, @Header(DelayQueueHeaders.ID) String id,
				@Header(DelayQueueHeaders.TOPIC) String topic, @Header(DelayQueueHeaders.DUE_AT) Instant dueAt,
				@Header(DelayQueueHeaders.RESERVATION_TOKEN) long token, ReservedJob job) {
			assertThat(token).isEqualTo(job.token());
			this.deliveries.add(new Headed(Map.of("attempt", attempt, "maxAttempts", maxAttempts, "id", id, "topic",
					topic, "dueAt", dueAt, "jobDueAt", job.dueAt()), order));
			if (attempt == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		}

		@DelayedListener(topic = "messaged")
		void message(Message<Order> message) {
			this.deliveries.add(new Headed(message.getHeaders(), message.getPayload()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HeaderConfig {

		@Bean
		HeaderListener headerListener() {
			return new HeaderListener();
		}

	}

	@Test
	void headerParametersCarryTheJobsFactsOnEveryAttempt() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(HeaderConfig.class,
				"delayqueue.listener.back-off.initial-interval=100ms");
		HeaderListener listener = context.getBean(HeaderListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		ScheduleResult scheduled = template.job("headed", "h-1")
			.payload(new Order(7, "lamp"))
			.maxAttempts(3)
			.delay(Duration.ofMillis(200))
			.schedule();
		Headed first = listener.deliveries.poll(10, TimeUnit.SECONDS);
		assertThat(first).isNotNull();
		assertThat(first.payload()).isEqualTo(new Order(7, "lamp"));
		assertThat(first.headers()).containsEntry("attempt", 1)
			.containsEntry("maxAttempts", 3)
			.containsEntry("id", "h-1")
			.containsEntry("topic", "headed")
			.containsEntry("dueAt", scheduled.dueAt());
		Headed second = listener.deliveries.poll(10, TimeUnit.SECONDS);
		assertThat(second).isNotNull();
		assertThat(second.headers()).containsEntry("attempt", 2).containsEntry("maxAttempts", 3);
		// a retry after a back-off is due at the retry's time
		assertThat((Instant) second.headers().get("dueAt")).isAfter(scheduled.dueAt());
		assertThat(second.headers().get("dueAt")).isEqualTo(second.headers().get("jobDueAt"));
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("headed", "h-1").isEmpty());
	}

	@Test
	void messageParameterCarriesTheConvertedPayloadAndEveryHeader() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(HeaderConfig.class);
		HeaderListener listener = context.getBean(HeaderListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		ScheduleResult scheduled = template.job("messaged", "m-1")
			.payload(new Order(8, "desk"))
			.ttr(Duration.ofSeconds(45))
			.delay(Duration.ZERO)
			.schedule();
		Headed delivery = listener.deliveries.poll(10, TimeUnit.SECONDS);
		assertThat(delivery).isNotNull();
		assertThat(delivery.payload()).isEqualTo(new Order(8, "desk"));
		Map<String, Object> headers = delivery.headers();
		assertThat(headers).containsEntry(DelayQueueHeaders.TOPIC, "messaged")
			.containsEntry(DelayQueueHeaders.ID, "m-1")
			.containsEntry(DelayQueueHeaders.ATTEMPT, 1)
			.containsEntry(DelayQueueHeaders.DUE_AT, scheduled.dueAt())
			.containsEntry(DelayQueueHeaders.TTR, Duration.ofSeconds(45));
		Instant deliveredAt = (Instant) headers.get(DelayQueueHeaders.DELIVERED_AT);
		assertThat(deliveredAt).isAfterOrEqualTo(scheduled.dueAt());
		assertThat(headers.get(DelayQueueHeaders.RESERVED_UNTIL)).isEqualTo(deliveredAt.plusSeconds(45));
		assertThat((Instant) headers.get(DelayQueueHeaders.CREATED_AT)).isBeforeOrEqualTo(scheduled.dueAt());
		assertThat((Long) headers.get(DelayQueueHeaders.RESERVATION_TOKEN)).isPositive();
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("messaged", "m-1").isEmpty());
	}

	// ------------------------------------------------------------------ 2. concurrency

	static class ConcurrentListener {

		final AtomicInteger current = new AtomicInteger();

		final AtomicInteger max = new AtomicInteger();

		final AtomicInteger done = new AtomicInteger();

		final CountDownLatch fourRunning = new CountDownLatch(4);

		final CountDownLatch release = new CountDownLatch(1);

		@DelayedListener(topic = "concurrent", concurrency = "4")
		void on(String payload) throws InterruptedException {
			int now = this.current.incrementAndGet();
			this.max.accumulateAndGet(now, Math::max);
			this.fourRunning.countDown();
			this.release.await(20, TimeUnit.SECONDS);
			this.current.decrementAndGet();
			this.done.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ConcurrentConfig {

		@Bean
		ConcurrentListener concurrentListener() {
			return new ConcurrentListener();
		}

	}

	@Test
	void concurrencyFourRunsFourHandlersAtOnceAndNeverMore() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(ConcurrentConfig.class);
		ConcurrentListener listener = context.getBean(ConcurrentListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		for (int i = 0; i < 12; i++) {
			template.schedule("concurrent", "c-" + i, "x", Duration.ZERO);
		}
		assertThat(listener.fourRunning.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(template.getOperations().stats().topics().get("concurrent").reserved()).isEqualTo(4);
		assertThat(listener.max).hasValue(4);
		listener.release.countDown();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(listener.done).hasValue(12));
		assertThat(listener.max).hasValue(4);
	}

	// ------------------------------------------------------------------ 3-5. failures

	static class FlakyListener {

		final Map<String, List<Delivery>> deliveries = new ConcurrentHashMap<>();

		private List<Delivery> record(DelayedJob<?> job) {
			List<Delivery> list = this.deliveries.computeIfAbsent(job.id(), (id) -> new java.util.concurrent.CopyOnWriteArrayList<>());
			list.add(Delivery.of(job, null));
			return list;
		}

		@DelayedListener(topic = "flaky", backOffInitial = "500ms", backOffMultiplier = "2")
		void flaky(DelayedJob<String> job) {
			if (record(job).size() <= 2) {
				throw new IllegalStateException("flaky failure " + job.attempt());
			}
		}

		@DelayedListener(topic = "doomed", maxAttempts = "3", backOffInitial = "100ms")
		void doomed(DelayedJob<String> job) {
			record(job);
			if (!"fixed".equals(job.payload())) {
				throw new IllegalStateException("always broken");
			}
		}

		@DelayedListener(topic = "typed", backOffInitial = "100ms")
		void typed(Order order, DelayedJob<Order> job) {
			record(job);
		}

		@DelayedListener(topic = "empty", backOffInitial = "100ms")
		void empty(String text) {
			throw new AssertionError("an empty payload cannot be bound to a payload parameter");
		}

		@DelayedListener(topic = "fatal", backOffInitial = "100ms", noRetryFor = UnsupportedOperationException.class)
		void fatal(DelayedJob<String> job) {
			record(job);
			throw new UnsupportedOperationException("never retry this");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FlakyConfig {

		@Bean
		FlakyListener flakyListener() {
			return new FlakyListener();
		}

	}

	@Test
	void handlerFailingTwiceThenSucceedingIsCalledThreeTimesWithTheBackOffBetween() {
		ConfigurableApplicationContext context = this.apps.run(FlakyConfig.class);
		FlakyListener listener = context.getBean(FlakyListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("flaky", "f", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> template.find("flaky", "f").isEmpty());
		List<Delivery> deliveries = listener.deliveries.get("f");
		assertThat(deliveries).extracting(Delivery::attempt).containsExactly(1, 2, 3);
		Duration first = Duration.between(deliveries.get(0).deliveredAt(), deliveries.get(1).deliveredAt());
		Duration second = Duration.between(deliveries.get(1).deliveredAt(), deliveries.get(2).deliveredAt());
		assertThat(first).isBetween(Duration.ofMillis(500), Duration.ofMillis(1000));
		assertThat(second).isBetween(Duration.ofMillis(1000), Duration.ofMillis(1500));
	}

	@Test
	void alwaysFailingJobGoesDeadWithTheExceptionMessageAndReplayDeliversItAgain() {
		ConfigurableApplicationContext context = this.apps.run(FlakyConfig.class);
		FlakyListener listener = context.getBean(FlakyListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.job("doomed", "d").payload("broken").delay(Duration.ZERO).maxAttempts(10).schedule();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("doomed", "d").orElseThrow().state()).isEqualTo(JobState.DEAD));
		JobInfo dead = template.find("doomed", "d").orElseThrow();
		assertThat(dead.lastError()).isEqualTo("java.lang.IllegalStateException: always broken");
		assertThat(listener.deliveries.get("d")).extracting(Delivery::attempt).containsExactly(1, 2, 3);

		assertThat(template.getOperations().replayDeadJobs("doomed", 10).count()).isEqualTo(1);
		await().atMost(Duration.ofSeconds(10)).until(() -> listener.deliveries.get("d").size() >= 4);
		assertThat(listener.deliveries.get("d").get(3).attempt()).as("attempts reset by the replay").isEqualTo(1);
	}

	@Test
	void payloadThatCannotBeConvertedIsDeadAtOnceAndOtherJobsFlow() {
		ConfigurableApplicationContext context = this.apps.run(FlakyConfig.class);
		FlakyListener listener = context.getBean(FlakyListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("typed", "bad", "{\"id\":\"not-a-number\"}", Duration.ZERO);
		template.schedule("typed", "good", new Order(7, "ok"), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("typed", "bad").orElseThrow().state()).isEqualTo(JobState.DEAD));
		JobInfo dead = template.find("typed", "bad").orElseThrow();
		assertThat(dead.attempt()).isEqualTo(1);
		assertThat(dead.lastError()).contains("PayloadConversionException")
			.contains("Could not read payload as " + Order.class.getName());
		await().atMost(Duration.ofSeconds(10)).until(() -> template.find("typed", "good").isEmpty());
		assertThat(listener.deliveries).containsKey("good").doesNotContainKey("bad");
	}

	@Test
	void emptyPayloadForAPayloadParameterIsDeadAtOnce() {
		ConfigurableApplicationContext context = this.apps.run(FlakyConfig.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("empty", "e", "", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("empty", "e").orElseThrow().state()).isEqualTo(JobState.DEAD));
		assertThat(template.find("empty", "e").orElseThrow().attempt()).isEqualTo(1);
		assertThat(template.find("empty", "e").orElseThrow().lastError()).contains("must not be empty");
	}

	@Test
	void exceptionListedAsNotRetryableIsDeadAtOnce() {
		ConfigurableApplicationContext context = this.apps.run(FlakyConfig.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("fatal", "x", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("fatal", "x").orElseThrow().state()).isEqualTo(JobState.DEAD));
		assertThat(template.find("fatal", "x").orElseThrow().attempt()).isEqualTo(1);
		assertThat(template.find("fatal", "x").orElseThrow().lastError()).contains("never retry this");
	}

	// ------------------------------------------------------------------ which attempts limit governs

	static class LimitListener {

		final Map<String, List<String>> deliveries = new ConcurrentHashMap<>();

		private void record(DelayedJob<?> job) {
			this.deliveries.computeIfAbsent(job.id(), (id) -> new java.util.concurrent.CopyOnWriteArrayList<>())
				.add(job.attempt() + "/" + job.maxAttempts());
		}

		@DelayedListener(topic = "above", maxAttempts = "4", backOffInitial = "100ms")
		void above(DelayedJob<String> job) {
			record(job);
			throw new IllegalStateException("always broken");
		}

		@DelayedListener(topic = "below", maxAttempts = "2", backOffInitial = "100ms")
		void below(DelayedJob<String> job) {
			record(job);
			throw new IllegalStateException("always broken");
		}

		@DelayedListener(topic = "expiring", maxAttempts = "2", ttr = "500ms")
		void expiring(DelayedJob<String> job) throws InterruptedException {
			record(job);
			Thread.sleep(800);
		}

	}

	static class RecordingRecoverer implements DelayedJobRecoverer {

		final List<String> recovered = new java.util.concurrent.CopyOnWriteArrayList<>();

		@Override
		public void recover(ReservedJob job, Throwable failure) {
			this.recovered.add(job.id() + "@" + job.attempt() + "/" + job.maxAttempts());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LimitConfig {

		@Bean
		LimitListener limitListener() {
			return new LimitListener();
		}

		@Bean
		RecordingRecoverer recordingRecoverer() {
			return new RecordingRecoverer();
		}

	}

	@Test
	void listenerLimitAboveTheJobsOwnIsUsedUpAndTheRecovererTakesTheLastFailure() {
		ConfigurableApplicationContext context = this.apps.run(LimitConfig.class);
		LimitListener listener = context.getBean(LimitListener.class);
		RecordingRecoverer recoverer = context.getBean(RecordingRecoverer.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.job("above", "a").payload("x").delay(Duration.ZERO).maxAttempts(2).schedule();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(recoverer.recovered).containsExactly("a@4/4"));
		assertThat(listener.deliveries.get("a")).containsExactly("1/4", "2/4", "3/4", "4/4");
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("above", "a").isEmpty());
	}

	@Test
	void listenerLimitBelowTheJobsOwnSendsTheJobToTheRecovererAtTheListenersLimit() {
		ConfigurableApplicationContext context = this.apps.run(LimitConfig.class);
		LimitListener listener = context.getBean(LimitListener.class);
		RecordingRecoverer recoverer = context.getBean(RecordingRecoverer.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.job("below", "b").payload("x").delay(Duration.ZERO).maxAttempts(5).schedule();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(recoverer.recovered).containsExactly("b@2/2"));
		assertThat(listener.deliveries.get("b")).containsExactly("1/2", "2/2");
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("below", "b").isEmpty());
	}

	@Test
	void ttrRunningOutOnTheListenersLastAttemptMakesTheJobDead() {
		ConfigurableApplicationContext context = this.apps.run(LimitConfig.class);
		LimitListener listener = context.getBean(LimitListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.job("expiring", "e").payload("x").delay(Duration.ZERO).maxAttempts(5).schedule();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("expiring", "e").orElseThrow().state()).isEqualTo(JobState.DEAD));
		assertThat(template.find("expiring", "e").orElseThrow().attempt()).isEqualTo(2);
		assertThat(listener.deliveries.get("e")).containsExactly("1/2", "2/2");
	}

	// ------------------------------------------------------------------ 6. TTR

	static class SlowListener {

		final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();

		@DelayedListener(topic = "slow", ttr = "600ms", concurrency = "2")
		void on(DelayedJob<String> job) throws InterruptedException {
			this.attempts.computeIfAbsent(job.id(), (id) -> new java.util.concurrent.CopyOnWriteArrayList<>())
				.add(job.attempt());
			if (job.attempt() > 1) {
				return;
			}
			for (int i = 0; i < 8; i++) {
				// 1.6 s of work in steps, past the 600 ms TTR
				Thread.sleep(200);
				if ("toucher".equals(job.id())) {
					assertThat(job.touch()).isTrue();
				}
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlowConfig {

		@Bean
		SlowListener slowListener() {
			return new SlowListener();
		}

	}

	@Test
	void handlerRunningPastItsTtrIsRedeliveredUnlessItTouches() {
		ConfigurableApplicationContext context = this.apps.run(SlowConfig.class);
		SlowListener listener = context.getBean(SlowListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("slow", "sleeper", "x", Duration.ZERO);
		template.schedule("slow", "toucher", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> template.find("slow", "sleeper").isEmpty() && template.find("slow", "toucher").isEmpty());
		assertThat(listener.attempts.get("sleeper")).containsExactly(1, 2);
		assertThat(listener.attempts.get("toucher")).containsExactly(1);
	}

	// ------------------------------------------------------------------ 7. graceful shutdown

	static class BlockingListener {

		final AtomicInteger started = new AtomicInteger();

		final AtomicInteger completed = new AtomicInteger();

		final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();

		volatile Duration work = Duration.ZERO;

		@DelayedListener(topic = "shutdown", concurrency = "2")
		void on(DelayedJob<String> job) throws InterruptedException {
			this.seen.computeIfAbsent(job.id(), (id) -> new AtomicInteger()).incrementAndGet();
			this.started.incrementAndGet();
			Thread.sleep(this.work.toMillis());
			this.completed.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BlockingConfig {

		@Bean
		BlockingListener blockingListener() {
			return new BlockingListener();
		}

	}

	@Test
	void shutdownLetsRunningHandlersFinishAndLeavesTheRestToAnotherInstanceAtOnce() throws Exception {
		ConfigurableApplicationContext first = this.apps.run(BlockingConfig.class, "delayqueue.default-ttr=60s");
		BlockingListener firstListener = first.getBean(BlockingListener.class);
		firstListener.work = Duration.ofMillis(1500);
		DelayedJobTemplate template = first.getBean(DelayedJobTemplate.class);
		for (int i = 0; i < 10; i++) {
			template.schedule("shutdown", "s-" + i, "x", Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> firstListener.started.get() == 2);
		first.close();
		assertThat(firstListener.completed).as("in-flight handlers finished, not interrupted").hasValue(2);
		assertThat(firstListener.started).hasValue(2);

		ConfigurableApplicationContext second = this.apps.run(BlockingConfig.class);
		BlockingListener secondListener = second.getBean(BlockingListener.class);
		// far sooner than the 60 s TTR
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(secondListener.completed).hasValue(8));
		List<String> all = new ArrayList<>(firstListener.seen.keySet());
		all.addAll(secondListener.seen.keySet());
		assertThat(all).hasSize(10).doesNotHaveDuplicates();
	}

	// ------------------------------------------------------------------ 8. two instances

	static class CountingListener {

		final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();

		@DelayedListener(topic = "bulk", concurrency = "4")
		void on(Order order, DelayedJob<Order> job) {
			this.seen.computeIfAbsent(job.id(), (id) -> new AtomicInteger()).incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CountingConfig {

		@Bean
		CountingListener countingListener() {
			return new CountingListener();
		}

	}

	@Test
	void twoInstancesProcessFiveThousandJobsNoneLostNoneTwice() {
		ConfigurableApplicationContext a = this.apps.run(CountingConfig.class);
		ConfigurableApplicationContext b = this.apps.run(CountingConfig.class);
		DelayedJobTemplate template = a.getBean(DelayedJobTemplate.class);
		for (int chunk = 0; chunk < 10; chunk++) {
			List<JobBuilder> jobs = new ArrayList<>();
			for (int i = 0; i < 500; i++) {
				int n = chunk * 500 + i;
				jobs.add(template.job("bulk", "b-" + n).payload(new Order(n, "item")).delay(Duration.ofMillis(n % 2000)));
			}
			assertThat(template.scheduleAll(jobs)).allMatch(ScheduleResult::created);
		}
		CountingListener onA = a.getBean(CountingListener.class);
		CountingListener onB = b.getBean(CountingListener.class);
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(onA.seen.size() + onB.seen.size()).isEqualTo(5000));
		assertThat(onA.seen.values()).allMatch((n) -> n.get() == 1);
		assertThat(onB.seen.values()).allMatch((n) -> n.get() == 1);
		assertThat(onA.seen.keySet()).doesNotContainAnyElementsOf(onB.seen.keySet());
		assertThat(onA.seen).isNotEmpty();
		assertThat(onB.seen).isNotEmpty();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> template.getOperations().stats().totals().total() == 0);
	}

	// ------------------------------------------------------------------ start by id

	@Test
	void registryStartsAContainerThatDoesNotStartWithTheContextById() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(OrderConfig.class,
				"delayqueue.listener.auto-startup=false");
		OrderListener listener = context.getBean(OrderListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		String id = "orderListener.on#orders";
		assertThat(registry.getListenerContainer(id).isRunning()).isFalse();
		template.schedule("orders", "s-1", new Order(1, "cup"), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> template.find("orders", "s-1").map(JobInfo::state).orElse(null) == JobState.READY);

		registry.startListenerContainer(id);
		assertThat(registry.getListenerContainer(id).isRunning()).isTrue();
		Delivery delivery = listener.deliveries.poll(10, TimeUnit.SECONDS);
		assertThat(delivery).isNotNull();
		assertThat(delivery.id()).isEqualTo("s-1");

		assertThatIllegalArgumentException().isThrownBy(() -> registry.startListenerContainer("nope"))
			.withMessageStartingWith("No listener container has id 'nope' (registered: [")
			.withMessageContaining(id);
	}

	@Test
	void noContainerIsStartedByIdOnceTheRegistryStopped() {
		ConfigurableApplicationContext context = this.apps.run(OrderConfig.class,
				"delayqueue.listener.auto-startup=false");
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		String id = "orderListener.on#orders";
		registry.stop();
		assertThatIllegalStateException().isThrownBy(() -> registry.startListenerContainer(id))
			.withMessageContaining("the listener containers are stopped");
		assertThat(registry.getListenerContainer(id).isRunning()).isFalse();
		// a container started directly while the registry is stopped is still stopped when the
		// context closes
		DelayedListenerContainer container = registry.getListenerContainer(id);
		container.start();
		assertThat(container.isRunning()).isTrue();
		context.close();
		assertThat(container.isRunning()).isFalse();
	}

	// ------------------------------------------------------------------ recoverers

	@Configuration(proxyBeanMethods = false)
	static class DeadLetterConfig {

		@Bean
		FlakyListener flakyListener() {
			return new FlakyListener();
		}

		@Bean
		DeadLetterTopicRecoverer deadLetterTopicRecoverer(DelayedJobTemplate template) {
			// the job's own topic for "fatal": a destination that cannot be used
			return new DeadLetterTopicRecoverer(template.getOperations(),
					(job) -> job.topic().equals("fatal") ? "fatal" : job.topic() + DeadLetterTopicRecoverer.DEFAULT_SUFFIX);
		}

	}

	@Test
	void deadLetterTopicRecovererMovesAnExhaustedJobToItsDeadLetterTopicWithItsIdAndPayload() {
		ConfigurableApplicationContext context = this.apps.run(DeadLetterConfig.class);
		FlakyListener listener = context.getBean(FlakyListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("doomed", "d", "broken", Duration.ofMillis(500));
		byte[] stored = template.find("doomed", "d").orElseThrow().payload();
		await().atMost(Duration.ofSeconds(10)).until(() -> template.find("doomed-dlt", "d").isPresent());
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("doomed", "d").isEmpty());
		JobInfo moved = template.find("doomed-dlt", "d").orElseThrow();
		assertThat(moved.state()).isEqualTo(JobState.READY);
		assertThat(moved.payload()).isEqualTo(stored);
		assertThat(moved.attempt()).isZero();
		assertThat(listener.deliveries.get("d")).extracting(Delivery::attempt).containsExactly(1, 2, 3);

		// a destination the recoverer refuses leaves the job DEAD in Redis with its own error
		template.schedule("fatal", "f", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("fatal", "f").orElseThrow().state()).isEqualTo(JobState.DEAD));
		assertThat(template.find("fatal", "f").orElseThrow().lastError())
			.isEqualTo("java.lang.UnsupportedOperationException: never retry this");
	}

	static class LongErrorListener {

		@DelayedListener(topic = "near-limit", maxAttempts = "1")
		void on(String payload) {
			throw new IllegalStateException("declined: " + "y".repeat(200));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NearLimitDeadLetterConfig {

		@Bean
		LongErrorListener longErrorListener() {
			return new LongErrorListener();
		}

		@Bean
		DeadLetterTopicRecoverer deadLetterTopicRecoverer(DelayedJobTemplate template) {
			return new DeadLetterTopicRecoverer(template.getOperations());
		}

	}

	@Test
	void aJobNearThePayloadLimitMovesWithItsErrorCutToFit() {
		ConfigurableApplicationContext context = this.apps.run(NearLimitDeadLetterConfig.class,
				"delayqueue.max-payload-size=450B");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		// 200 bytes of payload and a header: the full error (about 240 characters) would not fit
		template.job("near-limit", "n-1").payload("x".repeat(200)).header("tenant", "acme").delay(Duration.ZERO)
			.schedule();
		await().atMost(Duration.ofSeconds(10)).until(() -> template.find("near-limit-dlt", "n-1").isPresent());
		JobInfo moved = template.find("near-limit-dlt", "n-1").orElseThrow();
		assertThat(moved.payloadAsString()).isEqualTo("x".repeat(200));
		assertThat(moved.headers()).containsEntry("tenant", "acme")
			.containsEntry(DelayQueueHeaders.DLT_ORIGINAL_TOPIC, "near-limit")
			.containsEntry(DelayQueueHeaders.DLT_ATTEMPTS, "1");
		assertThat(moved.headers().get(DelayQueueHeaders.DLT_ERROR)).hasSize(100)
			.startsWith("java.lang.IllegalStateException: declined: yyy")
			.endsWith("...");
	}

	@Configuration(proxyBeanMethods = false)
	static class LoggingRecovererConfig {

		@Bean
		FlakyListener flakyListener() {
			return new FlakyListener();
		}

		@Bean
		LoggingRecoverer loggingRecoverer() {
			return new LoggingRecoverer();
		}

	}

	@Test
	void loggingRecovererDropsAnExhaustedJob() {
		ConfigurableApplicationContext context = this.apps.run(LoggingRecovererConfig.class);
		FlakyListener listener = context.getBean(FlakyListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("fatal", "f", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> listener.deliveries.containsKey("f"));
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("fatal", "f").isEmpty());
		assertThat(listener.deliveries.get("f")).extracting(Delivery::attempt).containsExactly(1);
		assertThat(template.getOperations().stats().totals().dead()).isZero();
	}

	// ------------------------------------------------------------------ error handler

	static class FailingListener {

		final AtomicInteger calls = new AtomicInteger();

		@DelayedListener(topic = "failing")
		void on(String payload) {
			this.calls.incrementAndGet();
			throw new IllegalStateException("nope " + payload);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FixedBackOffDeadLetterConfig {

		@Bean
		FailingListener failingListener() {
			return new FailingListener();
		}

		@Bean
		DelayedJobErrorHandler errorHandler(DelayedJobTemplate template) {
			// two retries 100 ms apart, then the dead-letter topic
			return new DefaultDelayedJobErrorHandler(new org.springframework.util.backoff.FixedBackOff(100, 2),
					List.of(), new DeadLetterTopicRecoverer(template.getOperations()));
		}

	}

	@Test
	void anErrorHandlerWithAFixedBackOffAndADeadLetterTopicRecovererMovesTheJobAfterItsRetries() {
		ConfigurableApplicationContext context = this.apps.run(FixedBackOffDeadLetterConfig.class);
		FailingListener listener = context.getBean(FailingListener.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.job("failing", "order-42")
			.payload("boom")
			.header("tenant", "acme")
			.delay(Duration.ofMillis(300))
			.maxAttempts(10)
			.schedule();
		byte[] stored = template.find("failing", "order-42").orElseThrow().payload();
		await().atMost(Duration.ofSeconds(10)).until(() -> template.find("failing-dlt", "order-42").isPresent());
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("failing", "order-42").isEmpty());
		JobInfo moved = template.find("failing-dlt", "order-42").orElseThrow();
		assertThat(moved.payload()).isEqualTo(stored);
		assertThat(moved.state()).isEqualTo(JobState.READY);
		// the job's own header, and the failure's in the queue's header names
		assertThat(moved.headers()).containsExactly(entry("tenant", "acme"),
				entry(DelayQueueHeaders.DLT_ERROR, "java.lang.IllegalStateException: nope boom"),
				entry(DelayQueueHeaders.DLT_ORIGINAL_TOPIC, "failing"), entry(DelayQueueHeaders.DLT_ATTEMPTS, "3"));
		// the first attempt and the back-off's two retries, although the job allowed ten
		assertThat(listener.calls).hasValue(3);
	}

	@Configuration(proxyBeanMethods = false)
	static class ErrorHandlerConfig {

		@Bean
		FailingListener failingListener() {
			return new FailingListener();
		}

		@Bean
		DelayedJobErrorHandler errorHandler() {
			return (job, failure, container, consumer) -> {
				consumer.kill(job, container.getId() + " on " + container.getTopic() + ": " + failure.getMessage());
				return DelayedJobErrorHandler.Outcome.DEAD;
			};
		}

	}

	@Test
	void anErrorHandlerBeanSettlesEveryFailedJobInsteadOfTheBackOff() {
		ConfigurableApplicationContext context = this.apps.run(ErrorHandlerConfig.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("failing", "x", "boom", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("failing", "x").orElseThrow().state()).isEqualTo(JobState.DEAD));
		JobInfo dead = template.find("failing", "x").orElseThrow();
		assertThat(dead.lastError()).isEqualTo("failingListener.on#failing on failing: nope boom");
		assertThat(dead.attempt()).as("killed on its first attempt, not retried").isEqualTo(1);
	}

	// ------------------------------------------------------------------ interceptors

	/**
	 * What the interceptors of {@link InterceptedConfig} heard, in order.
	 */
	static class EventLog {

		final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();

	}

	/**
	 * An interceptor bean: it runs for every listener, by its order.
	 */
	static class NamedInterceptor implements DelayedJobInterceptor {

		private final String name;

		private final EventLog log;

		NamedInterceptor(String name, EventLog log) {
			this.name = name;
			this.log = log;
		}

		@Override
		public boolean intercept(ReservedJob job) {
			this.log.events.add(this.name + " " + job.topic());
			return true;
		}

	}

	/**
	 * A listener's own interceptor, made by the bean factory with the log injected.
	 */
	static class AuditInterceptor implements DelayedJobInterceptor {

		private final EventLog log;

		AuditInterceptor(EventLog log) {
			this.log = log;
		}

		@Override
		public boolean intercept(ReservedJob job) {
			this.log.events.add("audit " + job.topic());
			return !new String(job.payload(), java.nio.charset.StandardCharsets.UTF_8).contains("skip");
		}

		@Override
		public void afterJob(ReservedJob job) {
			this.log.events.add("audit done " + job.topic());
		}

	}

	static class InterceptedListener {

		final BlockingQueue<String> deliveries = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "audited", interceptors = AuditInterceptor.class)
		void audited(String payload) {
			this.deliveries.add("audited " + payload);
		}

		@DelayedListener(topic = "plain")
		void plain(String payload) {
			this.deliveries.add("plain " + payload);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InterceptedConfig {

		@Bean
		EventLog eventLog() {
			return new EventLog();
		}

		@Bean
		@org.springframework.core.annotation.Order(2)
		NamedInterceptor second(EventLog log) {
			return new NamedInterceptor("second", log);
		}

		@Bean
		@org.springframework.core.annotation.Order(1)
		NamedInterceptor first(EventLog log) {
			return new NamedInterceptor("first", log);
		}

		@Bean
		InterceptedListener interceptedListener() {
			return new InterceptedListener();
		}

	}

	@Test
	void interceptorBeansRunInOrderForEveryListenerAndAListenersOwnOnlyForIt() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(InterceptedConfig.class);
		InterceptedListener listener = context.getBean(InterceptedListener.class);
		List<String> events = context.getBean(EventLog.class).events;
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);

		template.schedule("plain", "p", "one", Duration.ZERO);
		assertThat(listener.deliveries.poll(10, TimeUnit.SECONDS)).isEqualTo("plain one");
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("plain", "p").isEmpty());
		assertThat(events).containsExactly("first plain", "second plain");

		events.clear();
		template.schedule("audited", "a", "two", Duration.ZERO);
		assertThat(listener.deliveries.poll(10, TimeUnit.SECONDS)).isEqualTo("audited two");
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("audited", "a").isEmpty());
		assertThat(events).containsExactly("first audited", "second audited", "audit audited", "audit done audited");

		// the listener's own interceptor skips a job: finished without the listener
		events.clear();
		template.schedule("audited", "s", "skip me", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("audit done audited"));
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("audited", "s").isEmpty());
		assertThat(listener.deliveries).isEmpty();
	}

	// ------------------------------------------------------------------ events

	static class EventCollector {

		final List<org.springframework.context.ApplicationEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();

		@org.springframework.context.event.EventListener
		void on(DelayedListenerContainerEvent event) {
			this.events.add(event);
		}

		<E> List<E> of(Class<E> type) {
			return this.events.stream().filter(type::isInstance).map(type::cast).toList();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EventsConfig {

		@Bean
		EventCollector eventCollector() {
			return new EventCollector();
		}

		@Bean
		FlakyListener flakyListener() {
			return new FlakyListener();
		}

	}

	@Test
	void containersPublishLifecycleIdleAndOutcomeEvents() {
		ConfigurableApplicationContext context = this.apps.run(EventsConfig.class,
				"delayqueue.listener.idle-event-interval=300ms", "delayqueue.listener.outcome-events=true");
		EventCollector collector = context.getBean(EventCollector.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		String id = "flakyListener.fatal#fatal";
		assertThat(collector.of(DelayedListenerContainerStartedEvent.class))
			.extracting(DelayedListenerContainerEvent::getListenerId)
			.contains(id);

		// a listener that gets no job says so after the interval, and again after each further one
		await().atMost(Duration.ofSeconds(10)).until(() -> collector.of(DelayedListenerIdleEvent.class).stream()
			.filter((event) -> event.getListenerId().equals(id))
			.count() >= 2);
		DelayedListenerIdleEvent idle = collector.of(DelayedListenerIdleEvent.class).stream()
			.filter((event) -> event.getListenerId().equals(id))
			.toList()
			.get(1);
		assertThat(idle.getIdleTime()).isGreaterThanOrEqualTo(Duration.ofMillis(600));
		assertThat(idle.getTopic()).isEqualTo("fatal");

		// each job's outcome, with the job and what the listener threw
		template.schedule("fatal", "f", "x", Duration.ZERO);
		template.schedule("typed", "t", new Order(1, "pen"), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> collector.of(DelayedJobOutcomeEvent.class).size() >= 2);
		assertThat(collector.of(DelayedJobOutcomeEvent.class))
			.extracting((event) -> event.getJob().id() + " " + event.getOutcome() + " "
					+ ((event.getFailure() != null) ? event.getFailure().getMessage() : null))
			.containsExactlyInAnyOrder("f dead never retry this", "t success null");

		// pause and resume: once each, however often they are called
		DelayedListenerContainer container = registry.getListenerContainer(id);
		container.pause();
		container.pause();
		container.resume();
		container.resume();
		assertThat(collector.of(DelayedListenerContainerPausedEvent.class)).hasSize(1);
		assertThat(collector.of(DelayedListenerContainerResumedEvent.class)).hasSize(1);
		// a paused container is not idle (one check under way as it pauses may still publish)
		container.pause();
		long idleBefore = collector.of(DelayedListenerIdleEvent.class).stream()
			.filter((event) -> event.getListenerId().equals(id))
			.count();
		await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
			.until(() -> collector.of(DelayedListenerIdleEvent.class).stream()
				.filter((event) -> event.getListenerId().equals(id))
				.count() <= idleBefore + 1);

		registry.stop();
		assertThat(collector.of(DelayedListenerContainerStoppedEvent.class))
			.extracting(DelayedListenerContainerEvent::getListenerId)
			.contains(id);
	}

	// ------------------------------------------------------------------ pause / resume

	@Test
	void pausedListenerTakesNoJobsUntilResumed() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(OrderConfig.class);
		OrderListener listener = context.getBean(OrderListener.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayedListenerContainer container = registry.getListenerContainer("orderListener.on#orders");
		assertThat(container).isNotNull();
		container.pause();
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("orders", "p", new Order(9, "later"), Duration.ZERO);
		assertThat(listener.deliveries.poll(1500, TimeUnit.MILLISECONDS)).isNull();
		assertThat(template.find("orders", "p").orElseThrow().state()).isEqualTo(JobState.READY);
		container.resume();
		assertThat(listener.deliveries.poll(10, TimeUnit.SECONDS)).isNotNull();
	}

}
