package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.NotEnoughReplicasException;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard without Spring Security: served only when unauthenticated use is accepted,
 * its JSON routes against real jobs, and the rules every write must pass. The page itself is
 * tested in a browser by the sample app's {@code DashboardBrowserTests}.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueDashboardTests {

	static final String BUCKETS = "delayqueue.buckets=4";

	static final String WRITE = DelayQueueDashboard.WRITE_HEADER;

	@RegisterExtension
	final WebApps apps = new WebApps();

	static class Listeners {

		@DelayedListener(topic = "mails", id = "mailer")
		void send(String body) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	@AfterEach
	void invariantHolds() {
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 4);
	}

	private App open(String... properties) {
		String[] all = new String[properties.length + 3];
		all[0] = BUCKETS;
		all[1] = "delayqueue.dashboard.enabled=true";
		all[2] = "delayqueue.endpoint.show-payloads=true";
		System.arraycopy(properties, 0, all, 3, properties.length);
		return this.apps.run(RedisTestServers.shared(), Config.class, all);
	}

	private static void dead(App app, String topic, String... ids) {
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		DelayQueueOperations operations = template.getOperations();
		for (String id : ids) {
			template.schedule(topic, id, Map.of("order", id), Duration.ZERO);
		}
		List<ReservedJob> jobs = operations.reserve(topic, ids.length, Duration.ofMinutes(5));
		assertThat(jobs).hasSize(ids.length);
		jobs.forEach((job) -> operations.kill(job, "boom " + job.id()));
	}

	private static JobState state(App app, String topic, String id) {
		return app.bean(DelayedJobTemplate.class).find(topic, id).map((job) -> job.state()).orElse(null);
	}

	@Test
	void notServedWithoutSpringSecurityUnlessUnauthenticatedUseIsAccepted(CapturedOutput output) {
		App app = open();
		assertThat(app.get("/delayqueue-dashboard").status()).isEqualTo(404);
		assertThat(app.get("/delayqueue-dashboard/api/overview").status()).isEqualTo(404);
		assertThat(app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=t&id=x", WRITE, "1").status())
			.isIn(404, 405);
		assertThat(output).contains("The delayqueue dashboard is not served: nothing authenticates its users")
			.contains("delayqueue.dashboard.allow-unauthenticated=true");
	}

	@Test
	void servesThePageItsScriptAndStyleWithAStrictPolicyAndWarnsWhenUnauthenticated(CapturedOutput output) {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true", "delayqueue.dashboard.refresh-interval=3s");
		assertThat(output).contains("The delayqueue dashboard at /delayqueue-dashboard serves requests without an"
				+ " authenticated user");
		Response page = app.get("/delayqueue-dashboard");
		assertThat(page.status()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("text/html"));
		assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(
				(policy) -> assertThat(policy).contains("script-src 'self'").contains("frame-ancestors 'none'"));
		assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-store");
		assertThat(page.body()).contains("data-base=\"/delayqueue-dashboard\"")
			.contains("data-read-only=\"false\"")
			.contains("data-refresh-millis=\"3000\"")
			.contains("<script src=\"/delayqueue-dashboard/dashboard.js\" defer></script>")
			.doesNotContain("{{")
			.doesNotContain("http://")
			.doesNotContain("https://");
		Response script = app.get("/delayqueue-dashboard/dashboard.js");
		assertThat(script.status()).isEqualTo(200);
		assertThat(script.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("text/javascript"));
		assertThat(script.body()).contains("X-DelayQueue-Dashboard");
		assertThat(app.get("/delayqueue-dashboard/dashboard.css").status()).isEqualTo(200);
	}

	@Test
	void overviewShowsTopicsListenersInstancesAndThisInstancesCounts() {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true", "delayqueue.metrics.sample-interval=200ms");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("orders", "later", "{}", Duration.ofHours(1));
		template.schedule("mails", "now", "hello", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> state(app, "mails", "now") == null);

		JsonNode overview = app.get("/delayqueue-dashboard/api/overview").json();
		JsonNode queue = overview.get("queue");
		assertThat(queue.get("topics").get("orders").get("delayed").asLong()).isEqualTo(1);
		JsonNode listener = queue.get("topics").get("mails").get("listeners").get(0);
		assertThat(listener.get("id").asString()).isEqualTo("mailer");
		assertThat(listener.get("state").asString()).isEqualTo("running");
		assertThat(overview.get("counts").get("mails").get("completed").asDouble()).isEqualTo(1.0);

		JsonNode instance = queue.get("instances").get(0);
		assertThat(queue.get("instances")).hasSize(1);
		assertThat(instance.get("name").asString()).isEqualTo(app.bean(RedisDelayQueue.class).getInstanceId());
		assertThat(instance.get("self").asBoolean()).isTrue();
		assertThat(instance.get("live").asBoolean()).isTrue();
		assertThat(instance.get("buckets")).hasSize(4);
		assertThat(overview.get("history")).as("only when asked for").isEmpty();

		// the sampler's readings of the last minutes, for a page that opens now
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			JsonNode history = app.get("/delayqueue-dashboard/api/overview?history=true").json().get("history");
			assertThat(history.size()).isGreaterThan(1);
			JsonNode last = history.get(history.size() - 1);
			assertThat(last.get("topics").get("orders").get("depth").asLong()).isEqualTo(1);
			assertThat(last.get("topics").get("orders").get("lag").asLong()).isZero();
		});
	}

	@Test
	void findsAJobInAnyStateWithItsErrorAndPayload() {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true");
		dead(app, "orders", "o-1");
		JsonNode job = app.get("/delayqueue-dashboard/api/job?topic=orders&id=o-1").json();
		assertThat(job.get("state").asString()).isEqualTo("DEAD");
		assertThat(job.get("lastError").asString()).isEqualTo("boom o-1");
		assertThat(job.get("attempt").asInt()).isEqualTo(1);
		assertThat(job.get("payload").asString()).isEqualTo("{\"order\":\"o-1\"}");
		assertThat(job.get("diedAt").isNull()).isFalse();

		Response missing = app.get("/delayqueue-dashboard/api/job?topic=orders&id=nope");
		assertThat(missing.status()).isEqualTo(404);
		assertThat(missing.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(missing.json().get("detail").asString()).isEqualTo("No job 'nope' in topic 'orders'");
		Response noId = app.get("/delayqueue-dashboard/api/job?topic=orders");
		assertThat(noId.status()).isEqualTo(400);
		assertThat(noId.json().get("field").asString()).isEqualTo("id");
		assertThat(app.get("/delayqueue-dashboard/api/job?topic=bad%20topic&id=x").json().get("field").asString())
			.isEqualTo("topic");
	}

	@Test
	void itsJsonAndPathsDoNotDependOnTheApplicationsJacksonSettingsOrServletPath() {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true",
				"spring.jackson.property-naming-strategy=SNAKE_CASE", "spring.mvc.servlet.path=/mvc");
		assertThat(app.bean(JsonMapper.class).serializationConfig().getPropertyNamingStrategy())
			.as("the application's JSON").isEqualTo(PropertyNamingStrategies.SNAKE_CASE);
		dead(app, "orders", "o-1");
		Response page = app.get("/mvc/delayqueue-dashboard");
		assertThat(page.body()).contains("data-base=\"/mvc/delayqueue-dashboard\"")
			.contains("<script src=\"/mvc/delayqueue-dashboard/dashboard.js\" defer></script>");
		assertThat(app.get("/mvc/delayqueue-dashboard/dashboard.js").status()).isEqualTo(200);
		JsonNode queue = app.get("/mvc/delayqueue-dashboard/api/overview").json().get("queue");
		assertThat(queue.has("readAt")).isTrue();
		assertThat(queue.has("read_at")).isFalse();
		assertThat(queue.get("topics").get("orders").get("overdueLagMillis").isNumber()).isTrue();
		JsonNode job = app.get("/mvc/delayqueue-dashboard/api/job?topic=orders&id=o-1").json();
		assertThat(job.get("lastError").asString()).isEqualTo("boom o-1");
		assertThat(job.get("diedAt").asString()).endsWith("Z");
	}

	@Test
	void payloadsAreHiddenUnlessTheEndpointShowsThem() {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true", "delayqueue.endpoint.show-payloads=false");
		dead(app, "orders", "secret");
		assertThat(app.get("/delayqueue-dashboard").body()).contains("data-show-payloads=\"false\"");
		JsonNode job = app.get("/delayqueue-dashboard/api/job?topic=orders&id=secret").json();
		assertThat(job.path("payload").isMissingNode()).isTrue();
		JsonNode page = app.get("/delayqueue-dashboard/api/dead?topic=orders").json().get("deadJobs");
		assertThat(page.get("jobs").get(0).path("payload").isMissingNode()).isTrue();
		assertThat(page.toString()).doesNotContain("order");
	}

	@Test
	void pagesDeadJobsByCursor() {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true");
		dead(app, "orders", "a", "b", "c");
		JsonNode first = app.get("/delayqueue-dashboard/api/dead?topic=orders&limit=2").json().get("deadJobs");
		assertThat(first.get("total").asLong()).isEqualTo(3);
		assertThat(first.get("jobs")).hasSize(2);
		JsonNode second = app
			.get("/delayqueue-dashboard/api/dead?topic=orders&limit=2&cursor=" + first.get("next").asString())
			.json()
			.get("deadJobs");
		assertThat(second.get("jobs")).hasSize(1);
		assertThat(second.path("next").isMissingNode()).isTrue();
		assertThat(app.get("/delayqueue-dashboard/api/dead?topic=orders&limit=many").json().get("field").asString())
			.isEqualTo("limit");
		assertThat(app.get("/delayqueue-dashboard/api/dead?topic=orders&cursor=forged").status()).isEqualTo(400);
		JsonNode none = app.get("/delayqueue-dashboard/api/dead?topic=never-used").json().get("deadJobs");
		assertThat(none.get("total").asLong()).as("a topic without jobs has no dead jobs").isZero();
		assertThat(none.get("jobs")).isEmpty();
	}

	@Test
	void aWriteTooFewReplicasAcknowledgedIsAnswered503SayingWhatWasWritten() {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true", "delayqueue.redis.wait-replicas=1",
				"delayqueue.redis.wait-timeout=100ms");
		Response cancelled = app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=nowhere&id=x", WRITE, "write");
		assertThat(cancelled.status()).as("a cancel that changed nothing").isEqualTo(404);
		assertThatExceptionOfType(NotEnoughReplicasException.class)
			.isThrownBy(() -> app.bean(DelayedJobTemplate.class).schedule("replicas", "r1", "x", Duration.ofHours(1)));
		Response refused = app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=replicas&id=r1", WRITE, "write");
		assertThat(refused.status()).as(refused.body()).isEqualTo(503);
		assertThat(refused.json().get("detail").asString()).contains("reached 0 of the 1 replicas");
		assertThat(state(app, "replicas", "r1")).as("cancelled on the master").isNull();
	}

	@Test
	void writesReplayCancelPauseAndResumeAndAreAudited(CapturedOutput output) {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true");
		dead(app, "orders", "one", "two", "three");

		Response replayed = app.form("POST", "/delayqueue-dashboard/api/replay", "topic=orders&id=one", WRITE, "write");
		assertThat(replayed.status()).isEqualTo(200);
		assertThat(replayed.json().get("count").asLong()).isEqualTo(1);
		assertThat(state(app, "orders", "one")).isEqualTo(JobState.READY);
		assertThat(output).contains("via=dashboard action=replay topic=orders count=1 ids=[one]");

		Response deleted = app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders&id=two", WRITE, "write");
		assertThat(deleted.status()).isEqualTo(200);
		assertThat(state(app, "orders", "two")).isNull();

		Response all = app.form("POST", "/delayqueue-dashboard/api/replay", "topic=orders", WRITE, "write");
		assertThat(all.json().get("count").asLong()).isEqualTo(1);
		assertThat(state(app, "orders", "three")).isEqualTo(JobState.READY);

		DelayedListenerEndpointRegistry registry = app.bean(DelayedListenerEndpointRegistry.class);
		Response paused = app.form("POST", "/delayqueue-dashboard/api/listener", "topic=mails&listener=mailer&action=pause",
				WRITE, "write");
		assertThat(paused.status()).isEqualTo(200);
		assertThat(registry.getListenerContainer("mailer").getState()).isEqualTo("paused");
		app.form("POST", "/delayqueue-dashboard/api/listener", "topic=mails&listener=mailer&action=resume", WRITE,
				"write");
		assertThat(registry.getListenerContainer("mailer").getState()).isEqualTo("running");

		Response unknown = app.form("POST", "/delayqueue-dashboard/api/listener",
				"topic=mails&listener=nobody&action=pause", WRITE, "write");
		assertThat(unknown.status()).isEqualTo(404);
		String self = app.bean(RedisDelayQueue.class).getInstanceId();
		Response elsewhere = app.form("POST", "/delayqueue-dashboard/api/listener",
				"topic=mails&listener=mailer&action=pause&instance=another", WRITE, "write");
		assertThat(elsewhere.status()).isEqualTo(409);
		assertThat(elsewhere.json().get("detail").asString()).contains("This is instance " + self + ", not another");
		assertThat(registry.getListenerContainer("mailer").getState()).isEqualTo("running");
		assertThat(app.form("POST", "/delayqueue-dashboard/api/listener",
				"topic=mails&listener=mailer&action=pause&instance=" + self, WRITE, "write").status()).isEqualTo(200);
		assertThat(registry.getListenerContainer("mailer").getState()).isEqualTo("paused");
		Response badAction = app.form("POST", "/delayqueue-dashboard/api/listener",
				"topic=mails&listener=mailer&action=stop", WRITE, "write");
		assertThat(badAction.status()).isEqualTo(400);
		assertThat(badAction.json().get("detail").asString())
			.isEqualTo("action must be one of pause, resume, was 'stop'");
		assertThat(app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders", WRITE, "write").json()
			.get("field").asString()).isEqualTo("id");
	}

	@Test
	void writesWithoutTheDashboardsHeaderOrFromAnotherSiteChangeNothing() {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true");
		dead(app, "orders", "kept");

		Response plainForm = app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders&id=kept");
		assertThat(plainForm.status()).isEqualTo(403);
		assertThat(plainForm.json().get("detail").asString()).contains("X-DelayQueue-Dashboard");
		Response plainRun = app.form("POST", "/delayqueue-dashboard/api/run", "topic=orders&id=kept");
		assertThat(plainRun.status()).isEqualTo(403);
		assertThat(plainRun.json().get("detail").asString()).contains("X-DelayQueue-Dashboard");
		Response crossSite = app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders&id=kept", WRITE,
				"write", "Sec-Fetch-Site", "cross-site");
		assertThat(crossSite.status()).isEqualTo(403);
		assertThat(crossSite.json().get("detail").asString()).contains("cross-site");
		assertThat(app.form("GET", "/delayqueue-dashboard/api/cancel?topic=orders&id=kept", null, WRITE, "write")
			.status()).isIn(404, 405);
		assertThat(state(app, "orders", "kept")).isEqualTo(JobState.DEAD);

		// reads too are for the dashboard's own page, whatever CORS allows; a link to the page
		// from elsewhere still opens it
		Response crossSiteRead = app.form("GET", "/delayqueue-dashboard/api/job?topic=orders&id=kept", null,
				"Sec-Fetch-Site", "cross-site", "Origin", "https://elsewhere.example");
		assertThat(crossSiteRead.status()).isEqualTo(403);
		assertThat(crossSiteRead.body()).doesNotContain("boom");
		assertThat(app.form("GET", "/delayqueue-dashboard", null, "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode",
				"navigate").status()).isEqualTo(200);
		assertThat(app.form("GET", "/delayqueue-dashboard", null, "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode",
				"cors").status()).as("the page read by another site's script").isEqualTo(403);
		Response encoded = app.form("GET", "/delayqueue-dashboard/%61pi/job?topic=orders&id=kept", null,
				"Sec-Fetch-Site", "cross-site");
		assertThat(encoded.status()).as("a path spelt otherwise").isIn(403, 404);
		assertThat(encoded.body()).doesNotContain("boom");

		Response sameSite = app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders&id=kept", WRITE,
				"write", "Sec-Fetch-Site", "same-origin");
		assertThat(sameSite.status()).isEqualTo(200);
		assertThat(state(app, "orders", "kept")).isNull();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "delayqueue.dashboard.read-only=true", "management.endpoint.delayqueue.access=read-only",
			"management.endpoints.access.max-permitted=read-only" })
	void readOnlyModeShowsNoWriteControlsAndRefusesWrites(String readOnly) {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true", readOnly);
		dead(app, "orders", "kept");
		assertThat(app.get("/delayqueue-dashboard").body()).contains("data-read-only=\"true\"");
		for (String write : List.of("replay?topic=orders&id=kept", "cancel?topic=orders&id=kept", "run?topic=orders&id=kept",
				"listener?topic=mails&listener=mailer&action=pause", "recurring?name=r&action=trigger")) {
			String[] parts = write.split("\\?");
			Response refused = app.form("POST", "/delayqueue-dashboard/api/" + parts[0], parts[1], WRITE, "write");
			assertThat(refused.status()).as(write).isEqualTo(403);
			assertThat(refused.json().get("detail").asString()).contains("read-only");
		}
		assertThat(state(app, "orders", "kept")).isEqualTo(JobState.DEAD);
		assertThat(app.bean(DelayedListenerEndpointRegistry.class).getListenerContainer("mailer").getState())
			.isEqualTo("running");
		assertThat(app.get("/delayqueue-dashboard/api/job?topic=orders&id=kept").status()).isEqualTo(200);
	}

	@Test
	void noAccessToTheEndpointHidesTheDashboard(CapturedOutput output) {
		App app = open("delayqueue.dashboard.allow-unauthenticated=true", "management.endpoint.delayqueue.access=none");
		dead(app, "orders", "kept");
		assertThat(output).contains("The delayqueue dashboard is not served: the delayqueue endpoint's access is none");
		assertThat(app.get("/delayqueue-dashboard").status()).isEqualTo(404);
		assertThat(app.get("/delayqueue-dashboard/api/job?topic=orders&id=kept").status()).isEqualTo(404);
		assertThat(app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders&id=kept", WRITE, "write")
			.status()).isIn(404, 405);
		assertThat(state(app, "orders", "kept")).isEqualTo(JobState.DEAD);
	}

	@Test
	void theEndpointFindsAJobAndListsTheInstances() {
		App app = open();
		dead(app, "orders", "x");
		JsonNode job = app.get("/actuator/delayqueue/orders/x").json();
		assertThat(job.get("state").asString()).isEqualTo("DEAD");
		assertThat(job.get("maxAttempts").asInt()).isPositive();
		assertThat(app.get("/actuator/delayqueue/orders/none").status()).isEqualTo(404);
		assertThat(app.get("/actuator/delayqueue").json().get("instances").get(0).get("self").asBoolean()).isTrue();
	}

	@Test
	void servedOnTheManagementPortOnlyWithoutAnAuthenticatedUser(CapturedOutput output) {
		App app = open("management.server.port=0", "delayqueue.dashboard.on-management-port=true");
		assertThat(output).doesNotContain("The delayqueue dashboard is not served")
			.contains("The delayqueue dashboard is served on the management port only");
		assertThat(app.get("/delayqueue-dashboard").status()).isEqualTo(404);
		assertThat(app.get("/delayqueue-dashboard/api/overview").status()).isEqualTo(404);

		App management = app.managementServer();
		Response page = management.get("/delayqueue-dashboard");
		assertThat(page.status()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Security-Policy")).isPresent();
		assertThat(management.get("/delayqueue-dashboard/dashboard.js").status()).isEqualTo(200);
		dead(app, "orders", "m-1");
		JsonNode job = management.get("/delayqueue-dashboard/api/job?topic=orders&id=m-1").json();
		assertThat(job.get("state").asString()).isEqualTo("DEAD");
		Response bad = management.get("/delayqueue-dashboard/api/job?topic=orders");
		assertThat(bad.status()).isEqualTo(400);
		assertThat(bad.json().get("field").asString()).isEqualTo("id");
		assertThat(management.form("POST", "/delayqueue-dashboard/api/replay", "topic=orders&id=m-1").status())
			.isEqualTo(403);
		assertThat(management.form("POST", "/delayqueue-dashboard/api/replay", "topic=orders&id=m-1", WRITE, "write")
			.status()).isEqualTo(200);
		assertThat(state(app, "orders", "m-1")).isEqualTo(JobState.READY);
		assertThat(management.get("/actuator/delayqueue").status()).as("Actuator as before").isEqualTo(200);
	}

	@Test
	void onTheManagementPortNeedsAManagementPortOfItsOwn() {
		assertThatException().isThrownBy(() -> open("delayqueue.dashboard.on-management-port=true"))
			.havingRootCause()
			.withMessageContaining("delayqueue.dashboard.on-management-port=true needs the management server on a"
					+ " port of its own");
	}

	@Test
	void aPathThatBreaksItsRuleOrMeetsTheHttpApiFailsStartUp() {
		assertThatException().isThrownBy(() -> open("delayqueue.dashboard.path=no-slash"))
			.havingRootCause()
			.withMessageContaining("delayqueue.dashboard.path")
			.withMessageContaining("must start with '/'");
		assertThatException()
			.isThrownBy(() -> open("delayqueue.dashboard.path=/delayqueue/ui", "delayqueue.http.enabled=true",
					"delayqueue.http.allow-anonymous=true"))
			.havingRootCause()
			.withMessageContaining("delayqueue.dashboard.path")
			.withMessageContaining("must not be delayqueue.http.base-path, nor above or under it");
		assertThatException().isThrownBy(() -> open("delayqueue.dashboard.refresh-interval=10ms"))
			.havingRootCause()
			.withMessageContaining("delayqueue.dashboard.refresh-interval");
		assertThatException()
			.isThrownBy(() -> open("delayqueue.dashboard.role=OPS", "delayqueue.dashboard.allow-unauthenticated=true"))
			.havingRootCause()
			.withMessageContaining("delayqueue.dashboard.role")
			.withMessageContaining("not with delayqueue.dashboard.allow-unauthenticated=true");
	}

}
