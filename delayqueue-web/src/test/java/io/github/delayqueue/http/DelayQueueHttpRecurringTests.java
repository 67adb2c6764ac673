package io.github.delayqueue.http;

import java.util.Map;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recurring-job routes of the HTTP job API: put (create, unchanged, update), read, list,
 * pause, resume, trigger, delete, and their refusals.
 */
class DelayQueueHttpRecurringTests {

	static final String TOKEN = "s3cret-token";

	@RegisterExtension
	final WebApps apps = new WebApps();

	private App app;

	@Configuration(proxyBeanMethods = false)
	static class Config {

	}

	@BeforeEach
	void startApp() {
		this.app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=4",
				"delayqueue.http.enabled=true", "delayqueue.http.tokens=" + TOKEN);
	}

	private Response call(String method, String path, String body) {
		return this.app.send(method, "/delayqueue" + path, body, "Bearer " + TOKEN);
	}

	@Test
	void recurringJobsAreCreatedReadChangedAndOperatedOverHttp() {
		String nightly = "{\"topic\":\"reports\",\"cron\":\"0 0 2 * * *\",\"zone\":\"Europe/Berlin\","
				+ "\"body\":{\"report\":\"unpaid\"},\"headers\":{\"tenant\":\"acme\"},\"misfire\":\"SKIP\","
				+ "\"overlap\":\"SKIP\",\"maxAttempts\":2}";
		Response created = call("PUT", "/recurring/nightly", nightly);
		assertThat(created.status()).isEqualTo(201);
		assertThat(created.headers().firstValue("Location")).hasValue("/delayqueue/recurring/nightly");
		assertThat(created.json().get("result").asString()).isEqualTo("CREATED");
		assertThat(created.json().get("cron").asString()).isEqualTo("0 0 2 * * *");
		assertThat(created.json().get("zone").asString()).isEqualTo("Europe/Berlin");
		assertThat(created.json().get("body").get("report").asString()).isEqualTo("unpaid");
		assertThat(created.json().get("headers").get("tenant").asString()).isEqualTo("acme");
		assertThat(created.json().get("misfire").asString()).isEqualTo("SKIP");
		assertThat(created.json().get("nextFireTime").asString()).isNotEmpty();

		Response same = call("PUT", "/recurring/nightly", nightly);
		assertThat(same.status()).isEqualTo(200);
		assertThat(same.json().get("result").asString()).isEqualTo("UNCHANGED");
		assertThat(same.json().get("version").asInt()).isEqualTo(1);
		Response changed = call("PUT", "/recurring/nightly", "{\"topic\":\"reports\",\"every\":\"PT1H\"}");
		assertThat(changed.json().get("result").asString()).isEqualTo("UPDATED");
		assertThat(changed.json().get("every").asString()).isEqualTo("PT1H");
		assertThat(changed.json().has("cron")).isFalse();

		assertThat(call("GET", "/recurring/nightly", null).json().get("version").asInt()).isEqualTo(2);
		assertThat(call("GET", "/recurring", null).json().get("recurring")).hasSize(1);

		assertThat(call("POST", "/recurring/nightly/pause", null).status()).isEqualTo(200);
		assertThat(call("GET", "/recurring/nightly", null).json().get("paused").asBoolean()).isTrue();
		Response triggered = call("POST", "/recurring/nightly/trigger", null);
		assertThat(triggered.status()).isEqualTo(200);
		String occurrence = triggered.json().get("occurrence").asString();
		assertThat(this.app.bean(DelayedJobTemplate.class).find("reports", occurrence).orElseThrow().state())
			.isEqualTo(JobState.READY);
		assertThat(call("POST", "/recurring/nightly/resume", null).status()).isEqualTo(200);
		assertThat(this.app.bean(RecurringJobs.class).find("nightly").orElseThrow().paused()).isFalse();

		assertThat(call("DELETE", "/recurring/nightly", null).status()).isEqualTo(200);
		assertThat(call("GET", "/recurring/nightly", null).status()).isEqualTo(404);
		assertThat(call("DELETE", "/recurring/nightly", null).status()).isEqualTo(404);
		assertThat(call("POST", "/recurring/nightly/trigger", null).status()).isEqualTo(404);
	}

	@Test
	void badRecurringRequestsNameTheFieldAndWriteNothing() {
		Map<String, String> refused = Map.ofEntries(
			Map.entry("{\"cron\":\"@daily\"}", "topic"),
			Map.entry("{\"topic\":\"reports\"}", "cron"),
			Map.entry("{\"topic\":\"reports\",\"cron\":\"@daily\",\"every\":\"PT1H\"}", "every"),
			Map.entry("{\"topic\":\"reports\",\"cron\":\"0 61 * * * *\"}", "cron"),
			Map.entry("{\"topic\":\"reports\",\"cron\":\"@daily\",\"zone\":\"Mars/Base\"}", "zone"),
			Map.entry("{\"topic\":\"reports\",\"every\":\"PT0.5S\"}", "every"),
			Map.entry("{\"topic\":\"reports\",\"every\":\"PT1H\",\"misfire\":\"NEVER\"}", "misfire"),
			Map.entry("{\"topic\":\"reports\",\"every\":\"PT1H\",\"maxCatchUp\":0}", "maxCatchUp"),
			Map.entry("{\"topic\":\"reports\",\"every\":\"PT1H\",\"zone\":\"UTC\"}", "zone"),
			Map.entry("{\"topic\":\"reports\",\"every\":\"PT1H\",\"colour\":\"red\"}", "colour"),
			Map.entry("{\"topic\":\"reports\",\"every\":\"PT1H\",\"fixedDelay\":\"PT1M\"}", "fixedDelay"),
			Map.entry("{\"topic\":\"reports\",\"fixedDelay\":\"PT0S\"}", "fixedDelay"));
		refused.forEach((body, field) -> {
			Response response = call("PUT", "/recurring/x", body);
			assertThat(response.status()).as(body).isEqualTo(400);
			assertThat(response.json().get("field").asString()).as(body).isEqualTo(field);
		});
		Response badName = call("PUT", "/recurring/bad%20name", "{\"topic\":\"reports\",\"every\":\"PT1H\"}");
		assertThat(badName.status()).isEqualTo(400);
		assertThat(badName.json().get("field").asString()).isEqualTo("name");
		assertThat(call("POST", "/recurring/x/explode", null).status()).isEqualTo(404);
		// every route needs a token
		assertThat(this.app.send("PUT", "/delayqueue/recurring/x", "{\"topic\":\"t\",\"every\":\"PT1H\"}", null)
			.status()).isEqualTo(401);
		assertThat(this.app.send("GET", "/delayqueue/recurring", null, null).status()).isEqualTo(401);
		assertThat(this.app.send("POST", "/delayqueue/recurring/x/trigger", null, "Bearer wrong").status())
			.isEqualTo(401);
		assertThat(this.app.bean(RecurringJobs.class).list()).isEmpty();
	}

}
