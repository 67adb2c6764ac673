package io.github.delayqueue.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * At most {@code delayqueue.http.max-topics} topics have waiting reserve requests at once; a
 * topic stops counting once it has no waiters.
 */
class DelayQueueHttpTopicLimitTests {

	static final String TOKEN = "topic-token";

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	private Response call(App app, String path) {
		return app.send("POST", "/delayqueue" + path, null, "Bearer " + TOKEN);
	}

	@Test
	void waitsOnMoreTopicsThanTheLimitAreRefusedWith429() {
		App app = this.apps.run(RedisTestServers.shared(), NoBeans.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN, "delayqueue.http.max-topics=2");
		ReserveWaiters waiters = app.bean(ReserveWaiters.class);
		CompletableFuture<Response> first = CompletableFuture
			.supplyAsync(() -> call(app, "/topics/first/reserve?wait=PT20S"));
		CompletableFuture<Response> second = CompletableFuture
			.supplyAsync(() -> call(app, "/topics/second/reserve?wait=PT20S"));
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 2);

		Response refused = call(app, "/topics/third/reserve?wait=PT1S");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(refused.json().get("detail").asString()).contains("delayqueue.http.max-topics=2");
		assertThat(waiters.getWaiting()).isEqualTo(2);
		// a reserve that does not wait, and a wait on a topic that has waiters, are served
		assertThat(call(app, "/topics/third/reserve").status()).isEqualTo(200);
		CompletableFuture<Response> alsoFirst = CompletableFuture
			.supplyAsync(() -> call(app, "/topics/first/reserve?wait=PT20S"));
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 3);

		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		for (String topic : List.of("first", "first", "second")) {
			template.schedule(topic, topic + "-" + System.nanoTime(), 1, Duration.ZERO);
		}
		for (CompletableFuture<Response> answer : List.of(first, second, alsoFirst)) {
			assertThat(answer.join().json().get("jobs")).hasSize(1);
		}
		// the topics count until their waiters end: the third topic may wait now
		await().atMost(Duration.ofSeconds(10)).until(() -> waiters.getTopics() == 0);
		CompletableFuture<Response> third = CompletableFuture
			.supplyAsync(() -> call(app, "/topics/third/reserve?wait=PT20S"));
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 1);
		template.schedule("third", "t-1", 1, Duration.ZERO);
		assertThat(third.join().json().get("jobs")).hasSize(1);
	}

	@Test
	void aTopicCountsUntilItHasNoWaiters() {
		App app = this.apps.run(RedisTestServers.shared(), NoBeans.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN);
		ReserveWaiters waiters = app.bean(ReserveWaiters.class);
		List<CompletableFuture<List<ReservedJob>>> answers = new ArrayList<>();
		// long enough for all twenty to be waiting at once on a loaded machine
		for (int i = 0; i < 20; i++) {
			CompletableFuture<List<ReservedJob>> answer = new CompletableFuture<>();
			waiters.await("passing-" + i, null, 1, null, Duration.ofSeconds(3), answer::complete,
					answer::completeExceptionally);
			answers.add(answer);
		}
		assertThat(waiters.getTopics()).isEqualTo(20);
		answers.forEach((answer) -> assertThat(answer.join()).isEmpty());

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(waiters.getTopics()).isZero();
			assertThat(waiters.getWaiting()).isZero();
		});
	}

}
