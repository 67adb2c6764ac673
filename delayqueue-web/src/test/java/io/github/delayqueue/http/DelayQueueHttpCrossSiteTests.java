package io.github.delayqueue.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.recurring.RecurringSchedule;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a cross-site HTML form can send without a CORS pre-flight (a {@code text/plain},
 * {@code application/x-www-form-urlencoded} or {@code multipart/form-data} POST) changes
 * nothing through the HTTP job API: the body routes read {@code application/json} only, the
 * writes without a body refuse those content types, both with a 415. Served without tokens,
 * as an application whose cookies authenticate the API would be.
 */
class DelayQueueHttpCrossSiteTests {

	@RegisterExtension
	static final WebApps apps = WebApps.perClass();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static App app;

	private static DelayedJobTemplate template;

	private static DelayQueueOperations operations;

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	@BeforeAll
	static void startApp() {
		app = apps.run(RedisTestServers.shared(), NoBeans.class, "delayqueue.buckets=4", "delayqueue.http.enabled=true",
				"delayqueue.http.allow-anonymous=true");
		template = app.bean(DelayedJobTemplate.class);
		operations = template.getOperations();
	}

	@ParameterizedTest
	@ValueSource(strings = { "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b",
			"text/plain; charset=UTF-8" })
	void aFormPostCreatesNoJob(String contentType) {
		HttpResponse<String> refused = send("POST", "/delayqueue/jobs", contentType,
				"{\"topic\":\"xs\",\"id\":\"forged\",\"delay\":0,\"body\":1}");
		assertRefused(refused);
		assertThat(operations.find("xs", "forged")).isEmpty();
		QueueInvariant.assertHolds(RedisTestServers.shared(), apps.namespace);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			finish | ''
			fail   | ,"dead":true
			touch  | ,"ttr":"P1D"
			""")
	void aFormPostSettlesNoReservation(String action, String fields) {
		String id = "held-" + action;
		template.schedule("xs-held", id, "1", Duration.ZERO);
		ReservedJob held = operations.reserve("xs-held", 1, Duration.ofMinutes(5)).get(0);
		assertThat(held.id()).isEqualTo(id);
		HttpResponse<String> refused = send("POST", "/delayqueue/jobs/xs-held/" + id + "/" + action, "text/plain",
				"{\"token\":" + held.token() + fields + "}");
		assertRefused(refused);
		assertThat(operations.find("xs-held", id).orElseThrow().state()).isEqualTo(JobState.RESERVED);
		assertThat(operations.finish(held)).isTrue();
		QueueInvariant.assertHolds(RedisTestServers.shared(), apps.namespace);
	}

	@ParameterizedTest
	@ValueSource(strings = { "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b" })
	void anEmptyFormPostReservesNothing(String contentType) {
		template.schedule("xs-ready", "r-" + contentType.length(), "1", Duration.ZERO);
		HttpResponse<String> refused = send("POST", "/delayqueue/topics/xs-ready/reserve?max=100&ttr=P7D", contentType,
				"");
		assertRefused(refused);
		assertThat(operations.find("xs-ready", "r-" + contentType.length()).orElseThrow().state())
			.isEqualTo(JobState.READY);
		QueueInvariant.assertHolds(RedisTestServers.shared(), apps.namespace);
	}

	@Test
	void aFormCancelsOrRunsNothingAndOperatesNoRecurringJob() {
		template.schedule("xs-kept", "k", "1", Duration.ofHours(1));
		assertRefused(send("DELETE", "/delayqueue/jobs/xs-kept/k", "application/x-www-form-urlencoded", ""));
		assertRefused(send("POST", "/delayqueue/jobs/xs-kept/k/run", "multipart/form-data; boundary=x", ""));
		assertThat(operations.find("xs-kept", "k"))
			.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));

		RecurringJobs recurring = app.bean(RecurringJobs.class);
		recurring.put(RecurringJob.builder("xs-nightly").topic("xs-reports")
			.schedule(RecurringSchedule.every(Duration.ofHours(1)))
			.build());
		assertRefused(send("POST", "/delayqueue/recurring/xs-nightly/pause", "text/plain", ""));
		assertRefused(send("DELETE", "/delayqueue/recurring/xs-nightly", "text/plain", ""));
		assertThat(recurring.find("xs-nightly").orElseThrow().paused()).isFalse();
		assertRefused(send("PUT", "/delayqueue/recurring/xs-nightly", "text/plain",
				"{\"topic\":\"xs-reports\",\"every\":\"PT1M\"}"));
		assertThat(recurring.find("xs-nightly").orElseThrow().job().getSchedule().getPeriod())
			.isEqualTo(Duration.ofHours(1));
		QueueInvariant.assertHolds(RedisTestServers.shared(), apps.namespace);
	}

	@Test
	void jsonStillWorksWithOrWithoutACharset() {
		assertThat(send("POST", "/delayqueue/jobs", "application/json; charset=UTF-8",
				"{\"topic\":\"xs-json\",\"id\":\"j\",\"delay\":\"PT1H\",\"body\":1}").statusCode()).isEqualTo(201);
		assertThat(send("POST", "/delayqueue/topics/xs-json/reserve", "application/json", "").statusCode())
			.isEqualTo(200);
		assertThat(send("DELETE", "/delayqueue/jobs/xs-json/j", null, null).statusCode()).isEqualTo(200);
	}

	private static void assertRefused(HttpResponse<String> response) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(415);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(JsonMapper.builder().build().readTree(response.body()).get("detail").asString())
			.contains("Content-Type");
	}

	private static HttpResponse<String> send(String method, String path, String contentType, String body) {
		String port = app.context.getEnvironment().getProperty("local.server.port");
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body)
					: HttpRequest.BodyPublishers.noBody());
		if (contentType != null) {
			request.header("Content-Type", contentType);
		}
		try {
			return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
