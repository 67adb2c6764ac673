package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A topic's own options as an application sees them: finished jobs a topic keeps, finished by a
 * listener, found COMPLETED through the template and the HTTP API, listed newest first by
 * {@code /actuator/delayqueue/<topic>}; its rate limit shown there.
 */
class TopicOptionsEndpointTests {

	private static final String TOKEN = "retention-token";

	@RegisterExtension
	final WebApps apps = new WebApps();

	private App app;

	private DelayedJobTemplate template;

	static class Listeners {

		@DelayedListener(topic = "kept", id = "keeper")
		void handle(String body) {
		}

		@DelayedListener(topic = "forgotten", id = "forgetter")
		void forget(String body) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	@BeforeEach
	void startApp() {
		this.app = this.apps.run(RedisTestServers.shared(), Config.class, "delayqueue.buckets=4",
				"delayqueue.endpoint.show-payloads=true", "delayqueue.retention.kept.completed=100",
				"delayqueue.retention.kept.payloads=true", "delayqueue.retention.archive.completed-age=1h",
				"delayqueue.listener.rate-limit.kept=100/1s", "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN);
		this.template = this.app.bean(DelayedJobTemplate.class);
	}

	@Test
	void jobsFinishedByAListenerAreFoundCompletedAndListedNewestFirst() {
		for (String id : List.of("k1", "k2", "k3")) {
			this.template.schedule("kept", id, "body " + id, Duration.ZERO);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.template.find("kept", id).map(JobInfo::state).orElse(null) == JobState.COMPLETED);
		}
		this.template.schedule("forgotten", "f1", "gone", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.template.find("forgotten", "f1").isEmpty());

		JsonNode overview = this.app.get("/actuator/delayqueue").json().get("topics");
		assertThat(overview.get("kept").get("completed").asLong()).isEqualTo(3);
		assertThat(overview.get("archive").get("completed").asLong()).isZero();
		assertThat(overview.get("forgotten").has("completed")).isFalse();
		assertThat(overview.get("kept").get("rateLimit").asString()).isEqualTo("100/PT1S");
		assertThat(overview.get("forgotten").has("rateLimit")).isFalse();
		JsonNode topic = this.app.get("/actuator/delayqueue/kept").json();
		JsonNode completed = topic.get("completedJobs");
		assertThat(completed.get("total").asLong()).isEqualTo(3);
		List<String> ids = new ArrayList<>();
		completed.get("jobs").forEach((job) -> ids.add(job.get("id").asString()));
		assertThat(ids).containsExactly("k3", "k2", "k1");
		JsonNode latest = completed.get("jobs").get(0);
		assertThat(latest.get("attempts").asInt()).isEqualTo(1);
		assertThat(latest.get("runTimeMillis").asLong()).isNotNegative();
		assertThat(latest.get("payload").asString()).isEqualTo("body k3");
		assertThat(Instant.parse(latest.get("finishedAt").asString()))
			.isAfterOrEqualTo(Instant.parse(completed.get("jobs").get(1).get("finishedAt").asString()));

		JsonNode first = this.app.get("/actuator/delayqueue/kept?limit=2").json().get("completedJobs");
		assertThat(first.get("jobs")).hasSize(2);
		String next = first.get("next").asString();
		JsonNode second = this.app.get("/actuator/delayqueue/kept?limit=2&completedCursor=" + next)
			.json()
			.get("completedJobs");
		assertThat(second.get("jobs")).hasSize(1);
		assertThat(second.get("jobs").get(0).get("id").asString()).isEqualTo("k1");
		assertThat(second.has("next")).as("next after the last page").isFalse();
		Response bad = this.app.get("/actuator/delayqueue/kept?completedCursor=nope");
		assertThat(bad.status()).isEqualTo(400);
		assertThat(bad.body()).contains("completedCursor");

		// a topic that keeps nothing shows no page
		assertThat(this.app.get("/actuator/delayqueue/forgotten").json().has("completedJobs")).isFalse();

		JsonNode found = this.app.send("GET", "/delayqueue/jobs/kept/k2", null, "Bearer " + TOKEN).json();
		assertThat(found.get("state").asString()).isEqualTo("COMPLETED");
		assertThat(found.get("attempt").asInt()).isEqualTo(1);
		assertThat(Instant.parse(found.get("finishedAt").asString())).isBeforeOrEqualTo(Instant.now().plusSeconds(5));
		assertThat(Duration.parse(found.get("runTime").asString())).isGreaterThanOrEqualTo(Duration.ZERO);
		assertThat(found.get("body").asString()).isEqualTo("body k2");
		assertThat(this.app.send("GET", "/delayqueue/jobs/forgotten/f1", null, "Bearer " + TOKEN).status())
			.isEqualTo(404);
	}

	@Test
	void aTopicWithOnlyKeptJobsIsShownNotNotFound() {
		DelayQueueOperations operations = this.template.getOperations();
		this.template.schedule("archive", "only", "x", Duration.ZERO);
		List<ReservedJob> jobs = await().atMost(Duration.ofSeconds(10))
			.until(() -> operations.reserve("archive", 1, null), (list) -> !list.isEmpty());
		assertThat(operations.finish(jobs.get(0))).isTrue();
		Response response = this.app.get("/actuator/delayqueue/archive");
		assertThat(response.status()).isEqualTo(200);
		assertThat(response.json().get("ready").asLong()).isZero();
		assertThat(response.json().get("completedJobs").get("total").asLong()).isEqualTo(1);
		assertThat(this.app.get("/actuator/delayqueue/never-used").status()).isEqualTo(404);
	}

}
