package io.github.delayqueue.http;

import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.http.ReserveWaiters.WaitRefusedException;
import io.github.delayqueue.redis.RedisStats;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Long-polling reserve requests and many jobs through the HTTP job API.
 */
class DelayQueueHttpLongPollTests {

	static final String TOKEN = "poll-token";

	@RegisterExtension
	final WebApps apps = new WebApps();

	private App app;

	private DelayedJobTemplate template;

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	@BeforeEach
	void startApp() {
		// no guard re-check within a test: a job made due by one is not reserved for an offer
		this.app = this.apps.run(RedisTestServers.shared(), NoBeans.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN, "delayqueue.timer.guard-interval=10m");
		this.template = this.app.bean(DelayedJobTemplate.class);
	}

	private Response call(String method, String path, String body) {
		return this.app.send(method, "/delayqueue" + path, body, "Bearer " + TOKEN);
	}

	@Test
	void waitingReserveIsAnsweredWhenTheJobBecomesDueNotAtTheEndOfItsWait() throws Exception {
		ReserveWaiters waiters = this.app.bean(ReserveWaiters.class);
		// the first requests of a fresh application warm its code paths up
		this.template.schedule("poll", "warm-up", 1, Duration.ZERO);
		assertThat(call("POST", "/topics/poll/reserve?wait=PT1S", null).json().get("jobs")).hasSize(1);

		List<Long> lateMillis = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			CompletableFuture<Instant> answered = CompletableFuture.supplyAsync(() -> {
				Response response = call("POST", "/topics/poll/reserve?wait=PT10S", null);
				Instant at = Instant.now();
				assertThat(response.json().get("jobs")).hasSize(1);
				return at;
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 1);
			ScheduleResult scheduled = this.template.job("poll", "job-" + i)
				.payload(i)
				.delay(Duration.ofMillis(700))
				.schedule();
			Instant answeredAt = answered.get(15, TimeUnit.SECONDS);
			// same machine: Redis's clock (due time) and this JVM's clock (answer) are one clock
			long late = Duration.between(scheduled.dueAt(), answeredAt).toMillis();
			assertThat(late).isGreaterThanOrEqualTo(0);
			lateMillis.add(late);
		}
		System.out.println("long-poll answered after due (ms): " + lateMillis);
		// announced: well before the 10 s wait ends (the figure printed above is the latency; a
		// test does not assert performance)
		assertThat(lateMillis).as("answered this long after the due time (ms)").allMatch((late) -> late < 500);
	}

	@Test
	void aJobThatFallsDueWhileARequestWaitsIsReservedForItByTheTimerStep() throws Exception {
		ReserveWaiters waiters = this.app.bean(ReserveWaiters.class);
		CompletableFuture<Response> answered = CompletableFuture
			.supplyAsync(() -> call("POST", "/topics/offered/reserve?wait=PT10S&max=3&ttr=PT2M", null));
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 1);
		long pushes = calls("rpush");
		long takes = calls("lrange");
		this.template.job("offered", "1").payload(1).delay(Duration.ofMillis(300)).schedule();
		JsonNode jobs = answered.get(15, TimeUnit.SECONDS).json().get("jobs");
		assertThat(jobs).singleElement().satisfies((job) -> {
			assertThat(job.get("id").asString()).isEqualTo("1");
			assertThat(job.get("attempt").asInt()).isEqualTo(1);
			assertThat(job.get("ttr").asString()).isEqualTo("PT2M");
		});
		// reserved by the step that made it due, for the waiting request's reserve: never in a
		// ready list, and no take read one
		assertThat(calls("rpush")).isEqualTo(pushes);
		assertThat(calls("lrange")).isEqualTo(takes);
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace);
	}

	@Test
	void aRequestWhoseWaitRanOutLeavesNoOfferBehind() throws Exception {
		ReserveWaiters waiters = this.app.bean(ReserveWaiters.class);
		CompletableFuture<Response> answered = CompletableFuture
			.supplyAsync(() -> call("POST", "/topics/gone/reserve?wait=PT0.3S", null));
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 1);
		assertThat(answered.get(15, TimeUnit.SECONDS).json().get("jobs")).isEmpty();
		long givenBack = calls("lpush");
		// due with no request waiting
		this.template.job("gone", "1").payload(1).delay(Duration.ofMillis(300)).schedule();
		DelayQueueOperations operations = this.template.getOperations();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> operations.find("gone", "1").orElseThrow().state() == JobState.READY);
		// READY from the step, not reserved for the gone request and given back
		assertThat(operations.find("gone", "1").orElseThrow().attempt()).isZero();
		assertThat(calls("lpush")).isEqualTo(givenBack);
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace);
	}

	/** How often Redis ran a command (the waiting thread's and the timer's included). */
	private long calls(String command) {
		return RedisStats.commandStat(this.app.bean(RedisConnectionFactory.class), command, "calls");
	}

	@Test
	void shutdownAnswersWaitingRequestsWithNoJobs() {
		ReserveWaiters waiters = this.app.bean(ReserveWaiters.class);
		CompletableFuture<Response> answer = CompletableFuture
			.supplyAsync(() -> call("POST", "/topics/closing/reserve?wait=PT25S", null));
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 1);
		long start = System.nanoTime();
		this.app.context.close();
		Response response = answer.join();
		assertThat(response.status()).isEqualTo(200);
		assertThat(response.json().get("jobs")).isEmpty();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void waitingReservesDoNotPollRedis() {
		DelayQueueOperations operations = this.template.getOperations();
		AtomicInteger reserves = new AtomicInteger();
		DelayQueueOperations counting = (DelayQueueOperations) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayQueueOperations.class }, (proxy, method, args) -> {
					if (method.getName().equals("reserve")) {
						reserves.incrementAndGet();
					}
					try {
						return method.invoke(operations, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		ReserveWaiters waiters = new ReserveWaiters(counting, 10);
		waiters.start();
		try {
			CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
			assertThat(waiters.await("quiet", null, 1, null, Duration.ofMillis(2500), answer::complete,
					answer::completeExceptionally))
				.isNotNull();
			assertThat(answer.join()).isEmpty();
			// one reserve on arrival, then none until the queue announces jobs: no busy loop
			assertThat(reserves.get()).isBetween(1, 4);

			// and a job that becomes due is handed over
			CompletableFuture<List<ReservedJob>> second = new CompletableFuture<>();
			waiters.await("quiet", null, 5, null, Duration.ofSeconds(10), second::complete, second::completeExceptionally);
			this.template.schedule("quiet", "q-1", "x", Duration.ofMillis(300));
			List<ReservedJob> jobs = second.join();
			assertThat(jobs).extracting(ReservedJob::id).containsExactly("q-1");
			assertThat(operations.finish(jobs.get(0))).isTrue();
		}
		finally {
			waiters.stop();
			waiters.destroy();
		}
	}

	@Test
	void waitsBeyondTheLimitOrWhenStoppedAreRefused() {
		ReserveWaiters waiters = new ReserveWaiters(this.template.getOperations(), 1);
		try {
			// not started yet (or stopped): refused, nothing counted
			assertThatExceptionOfType(WaitRefusedException.class)
				.isThrownBy(() -> waiters.await("refused", null, 1, null, Duration.ofSeconds(5), (jobs) -> true, (ex) -> {
				}))
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(WaitRefusedException.Reason.STOPPED));
			assertThat(waiters.getWaiting()).isZero();
			waiters.start();
			Runnable first = waiters.await("refused", null, 1, null, Duration.ofSeconds(5), (jobs) -> true, (ex) -> {
			});
			assertThat(first).isNotNull();
			assertThatExceptionOfType(WaitRefusedException.class)
				.isThrownBy(() -> waiters.await("refused", null, 1, null, Duration.ofSeconds(5), (jobs) -> true, (ex) -> {
				}))
				.withMessageContaining("delayqueue.http.max-waiting=1")
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(WaitRefusedException.Reason.TOO_MANY_WAITING));
			assertThat(waiters.getWaiting()).isEqualTo(1);
			first.run();
			assertThat(waiters.getWaiting()).isZero();
		}
		finally {
			waiters.stop();
			waiters.destroy();
		}
	}

	@Test
	void jobsReservedForARequestThatTimedOutAreGivenBack() {
		DelayQueueOperations operations = this.template.getOperations();
		ReserveWaiters waiters = new ReserveWaiters(operations, 10);
		waiters.start();
		try {
			CompletableFuture<List<ReservedJob>> gone = new CompletableFuture<>();
			// the request went away: the answer does not reach it
			waiters.await("given-back", null, 1, null, Duration.ofSeconds(10), (jobs) -> {
				gone.complete(jobs);
				return false;
			}, gone::completeExceptionally);
			this.template.schedule("given-back", "g-1", "x", Duration.ZERO);
			assertThat(gone.join()).hasSize(1);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(operations.reserve("given-back", 1, null)).singleElement()
					.satisfies((job) -> assertThat(job.attempt()).isEqualTo(1)));
		}
		finally {
			waiters.stop();
			waiters.destroy();
		}
	}

	@Test
	void manyPollsOnOneTopicAndOneJobOnlyOneGetsIt() {
		ReserveWaiters waiters = this.app.bean(ReserveWaiters.class);
		List<CompletableFuture<Response>> answers = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			answers.add(CompletableFuture.supplyAsync(() -> call("POST", "/topics/contended/reserve?wait=PT2S", null)));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 10);
		this.template.schedule("contended", "only", 1, Duration.ZERO);
		int jobs = 0;
		for (CompletableFuture<Response> answer : answers) {
			Response response = answer.join();
			assertThat(response.status()).isEqualTo(200);
			jobs += response.json().get("jobs").size();
		}
		assertThat(jobs).isOne();
		assertThat(waiters.getWaiting()).isZero();
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace);
	}

	@Test
	void aPollWhoseClientDisconnectsLeavesNoWaiter() throws Exception {
		ReserveWaiters waiters = this.app.bean(ReserveWaiters.class);
		int port = Integer.parseInt(this.app.context.getEnvironment().getProperty("local.server.port"));
		try (Socket socket = new Socket("localhost", port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("POST /delayqueue/topics/disconnected/reserve?wait=PT1S HTTP/1.1\r\nHost: localhost\r\n"
					+ "Authorization: Bearer " + TOKEN + "\r\nContent-Length: 0\r\n\r\n")
				.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 1);
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 0);
		assertThat(waiters.getTopics()).isZero();
		// nothing waits for the topic any more: a job scheduled now is the next reserve's
		this.template.schedule("disconnected", "d-1", 1, Duration.ZERO);
		assertThat(this.template.getOperations().reserve("disconnected", 1, null)).singleElement()
			.satisfies((job) -> assertThat(job.attempt()).isEqualTo(1));
	}

	@Test
	void aThousandJobsRoundTripThroughTheApiWithNoneLost() throws Exception {
		int jobs = 1_000;
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			List<Future<Integer>> producers = new ArrayList<>();
			for (int p = 0; p < 4; p++) {
				int producer = p;
				producers.add(pool.submit(() -> {
					int created = 0;
					for (int i = producer; i < jobs; i += 4) {
						Response added = call("POST", "/jobs", "{\"topic\":\"bulk\",\"id\":\"b-" + i + "\",\"delay\":"
								+ ThreadLocalRandom.current().nextInt(2_000) + ",\"body\":{\"n\":" + i + "}}");
						created += (added.status() == 201) ? 1 : 0;
					}
					return created;
				}));
			}
			Map<String, Integer> received = new ConcurrentHashMap<>();
			AtomicInteger finished = new AtomicInteger();
			List<Future<?>> consumers = new ArrayList<>();
			for (int c = 0; c < 4; c++) {
				consumers.add(pool.submit(() -> {
					while (received.size() < jobs) {
						JsonNode reserved = call("POST", "/topics/bulk/reserve?max=50&wait=PT2S", null).json();
						for (JsonNode job : reserved.get("jobs")) {
							String id = job.get("id").asString();
							assertThat(job.get("body").get("n").asInt()).isEqualTo(Integer.parseInt(id.substring(2)));
							received.merge(id, 1, Integer::sum);
							Response done = call("POST", "/jobs/bulk/" + id + "/finish",
									"{\"token\":" + job.get("token").asLong() + "}");
							assertThat(done.status()).isEqualTo(200);
							finished.incrementAndGet();
						}
					}
					return null;
				}));
			}
			int created = 0;
			for (Future<Integer> producer : producers) {
				created += producer.get(60, TimeUnit.SECONDS);
			}
			for (Future<?> consumer : consumers) {
				consumer.get(60, TimeUnit.SECONDS);
			}
			assertThat(created).isEqualTo(jobs);
			assertThat(received).hasSize(jobs);
			assertThat(received.values()).allMatch((count) -> count == 1);
			assertThat(finished.get()).isEqualTo(jobs);
			assertThat(this.template.getOperations().stats().topics().getOrDefault("bulk", null))
				.satisfiesAnyOf((stats) -> assertThat(stats).isNull(), (stats) -> assertThat(stats.total()).isZero());
		}
		finally {
			pool.shutdownNow();
		}
	}

}
