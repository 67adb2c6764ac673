package io.github.delayqueue.http;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With Redis unreachable, the HTTP job API answers 503 with a generic text: nothing of the
 * driver's message (the host, the address, the port of Redis) reaches the client.
 */
class DelayQueueHttpRedisDownTests {

	static final String TOKEN = "down-token";

	static final String BEARER = "Bearer " + TOKEN;

	static final String GENERIC = "the queue's Redis is unreachable; retry later";

	@RegisterExtension
	final WebApps apps = new WebApps();

	private RedisTestServer redis;

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	@BeforeEach
	void startRedis() {
		this.redis = RedisTestServers.local().start();
	}

	@AfterEach
	void closeRedis() {
		this.redis.close();
	}

	@Test
	void aWriteTooFewReplicasAcknowledgedIsAnswered503SayingWhatWasWritten() {
		App app = this.apps.run(this.redis, NoBeans.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN, "delayqueue.redis.wait-replicas=1", "delayqueue.redis.wait-timeout=100ms");
		Response scheduled = app.send("POST", "/delayqueue/jobs", "{\"topic\":\"t\",\"id\":\"x\",\"delay\":0,\"body\":1}",
				BEARER);
		assertThat(scheduled.status()).isEqualTo(503);
		assertThat(scheduled.headers().firstValue("Retry-After")).contains("1");
		assertThat(scheduled.json().get("detail").asString()).contains("reached 0 of the 1 replicas", "on the master");
		assertThat(app.bean(DelayedJobTemplate.class).getOperations().find("t", "x")).isPresent();
		// a write that changed nothing answers as usual
		assertThat(app.send("DELETE", "/delayqueue/jobs/t/none", null, BEARER).status()).isEqualTo(404);
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void unreachableRedisIsAnsweredWithoutItsAddress(String client) {
		App app = this.apps.run(this.redis, NoBeans.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN, "spring.data.redis.timeout=500ms",
				"spring.data.redis.client-type=" + client);
		// two READY jobs, one taken: a reserve of the topic goes to Redis
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("ready", "r-1", 1, Duration.ZERO);
		template.schedule("ready", "r-2", 2, Duration.ZERO);
		assertThat(app.send("POST", "/delayqueue/topics/ready/reserve?wait=PT5S", null, BEARER).json().get("jobs"))
			.hasSize(1);
		this.redis.stop();

		List<Response> answers = List.of(app.send("GET", "/delayqueue/jobs/t/x", null, BEARER),
				app.send("DELETE", "/delayqueue/jobs/t/x", null, BEARER),
				app.send("POST", "/delayqueue/jobs", "{\"topic\":\"t\",\"id\":\"x\",\"delay\":0,\"body\":1}", BEARER),
				app.send("POST", "/delayqueue/topics/ready/reserve?wait=PT5S", null, BEARER),
				app.send("POST", "/delayqueue/jobs/t/x/finish", "{\"token\":1}", BEARER),
				app.send("POST", "/delayqueue/jobs/t/x/touch", "{\"token\":1}", BEARER));
		this.redis.start();
		for (Response answer : answers) {
			assertThat(answer.status()).as(answer.body()).isEqualTo(503);
			assertThat(answer.body()).doesNotContain(String.valueOf(this.redis.port()), this.redis.host(), "127.0.0.1",
					"localhost", "Exception", "Redis unreachable during");
		}
		for (Response answer : answers) {
			assertUnavailable(answer);
		}
	}

	/**
	 * Waiting reserve requests whose queue fails the way a Redis that went away does, with a
	 * driver message that names the server.
	 */
	@Configuration(proxyBeanMethods = false)
	static class FailingWaiters {

		@Bean
		ReserveWaiters failingReserveWaiters(DelayQueueOperations operations) {
			DelayQueueOperations failing = (DelayQueueOperations) Proxy.newProxyInstance(
					getClass().getClassLoader(), new Class<?>[] { DelayQueueOperations.class },
					(proxy, method, args) -> {
						if (method.getName().equals("reserve")) {
							throw new DelayQueueConnectionException(
									"Redis unreachable during reserve: Connection refused: redis-7.internal/10.1.2.3:6390",
									new ConnectException("Connection refused: redis-7.internal/10.1.2.3:6390"));
						}
						try {
							return method.invoke(operations, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
			return new ReserveWaiters(failing, 10);
		}

	}

	@Test
	void aWaitingReserveThatFailsIsAnsweredWithoutTheAddress() {
		App app = this.apps.run(this.redis, FailingWaiters.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN);
		// nothing READY: the request waits, and its waiter's reserve fails (asynchronous dispatch)
		Response answer = app.send("POST", "/delayqueue/topics/nothing/reserve?wait=PT10S", null, BEARER);
		assertThat(answer.status()).as(answer.body()).isEqualTo(503);
		assertThat(answer.body()).doesNotContain("10.1.2.3", "6390", "redis-7", "Connection refused");
		assertUnavailable(answer);
	}

	@Test
	void pollsWaitingWhileRedisGoesAwayEndCleanlyOrGetTheJob() {
		App app = this.apps.run(this.redis, NoBeans.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN, "spring.data.redis.timeout=500ms");
		ReserveWaiters waiters = app.bean(ReserveWaiters.class);
		List<CompletableFuture<Response>> answers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			answers.add(CompletableFuture
				.supplyAsync(() -> app.send("POST", "/delayqueue/topics/dropped/reserve?wait=PT8S", null, BEARER)));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 3);
		this.redis.stop();
		this.redis.start();
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
			.untilAsserted(() -> template.schedule("dropped", "after", 1, Duration.ZERO));
		int jobs = 0;
		for (CompletableFuture<Response> answer : answers) {
			Response response = answer.orTimeout(15, TimeUnit.SECONDS).join();
			assertThat(response.status()).as(response.body()).isIn(200, 503);
			if (response.status() == 200) {
				jobs += response.json().get("jobs").size();
			}
		}
		// the job went to a waiting poll, or is still READY for the next
		if (jobs == 0) {
			assertThat(template.getOperations().find("dropped", "after").orElseThrow().state()).isEqualTo(JobState.READY);
		}
		assertThat(jobs).isLessThanOrEqualTo(1);
		assertThat(waiters.getWaiting()).isZero();
	}

	private static void assertUnavailable(Response answer) {
		assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(answer.json().get("status").asInt()).isEqualTo(503);
		assertThat(answer.json().get("detail").asString()).isEqualTo(GENERIC);
	}

}
