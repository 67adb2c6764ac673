package io.github.delayqueue.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One client cannot hold every long-poll slot: a client (a token, or a principal) waits with
 * at most half of {@code delayqueue.http.max-waiting} requests, so another one still gets in.
 */
class DelayQueueHttpFairShareTests {

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	@Test
	void aClientWaitsWithAtMostHalfOfTheSlots() {
		App app = this.apps.run(RedisTestServers.shared(), NoBeans.class, "delayqueue.buckets=4",
				"delayqueue.http.enabled=true", "delayqueue.http.tokens=token-a,token-b",
				"delayqueue.http.max-waiting=4");
		ReserveWaiters waiters = app.bean(ReserveWaiters.class);
		HttpClient http = HttpClient.newHttpClient();
		URI reserve = URI.create("http://localhost:" + app.context.getEnvironment().getProperty("local.server.port")
				+ "/delayqueue/topics/fair/reserve?wait=PT3S");
		List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
		for (int i = 1; i <= 2; i++) {
			waiting.add(http.sendAsync(HttpRequest.newBuilder(reserve).POST(HttpRequest.BodyPublishers.noBody())
				.header("Authorization", "Bearer token-a").build(), HttpResponse.BodyHandlers.ofString()));
			int count = i;
			await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == count);
		}

		Response third = app.send("POST", "/delayqueue/topics/fair/reserve?wait=PT3S", null, "Bearer token-a");
		assertThat(third.status()).as(third.body()).isEqualTo(429);
		assertThat(third.headers().firstValue("Retry-After")).isPresent();
		assertThat(third.json().get("detail").asString()).contains("delayqueue.http.max-waiting");

		waiting.add(http.sendAsync(HttpRequest.newBuilder(reserve).POST(HttpRequest.BodyPublishers.noBody())
			.header("Authorization", "Bearer token-b").build(), HttpResponse.BodyHandlers.ofString()));
		await().atMost(Duration.ofSeconds(5)).until(() -> waiters.getWaiting() == 3);
		for (CompletableFuture<HttpResponse<String>> answer : waiting) {
			assertThat(answer.join().statusCode()).isEqualTo(200);
		}
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace);
	}

}
