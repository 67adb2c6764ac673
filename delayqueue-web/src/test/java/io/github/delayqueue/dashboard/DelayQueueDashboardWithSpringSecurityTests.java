package io.github.delayqueue.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.http.SecurityChains;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard with Spring Security on the classpath: served without any opt-in, anonymous
 * requests refused (by the application's chain, and by the dashboard itself where a chain
 * lets them through), writes refused without the CSRF token the page was rendered with. Runs
 * in the Surefire execution that adds {@code spring-boot-starter-security} (see this module's
 * pom).
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueDashboardWithSpringSecurityTests {

	static final String BASIC = "Basic "
			+ Base64.getEncoder().encodeToString("ops:secret".getBytes(StandardCharsets.UTF_8));

	static final String WRITE = DelayQueueDashboard.WRITE_HEADER;

	@RegisterExtension
	final WebApps apps = new WebApps();

	/** Boot's default chain: every request authenticated, form login and HTTP Basic, CSRF on. */
	@Configuration(proxyBeanMethods = false)
	static class BootsDefaultChain {

	}

	@AfterEach
	void invariantHolds() {
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 4);
	}

	private App run(Class<?> configuration, String... properties) {
		App app = start(configuration, properties);
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("orders", "o-1", "{\"order\":1}", Duration.ZERO);
		List<ReservedJob> jobs = template.getOperations().reserve("orders", 1, Duration.ofMinutes(5));
		template.getOperations().kill(jobs.get(0), "boom");
		return app;
	}

	private App start(Class<?> configuration, String... properties) {
		String[] all = new String[properties.length + 4];
		all[0] = "delayqueue.buckets=4";
		all[1] = "delayqueue.dashboard.enabled=true";
		all[2] = "spring.security.user.name=ops";
		all[3] = "spring.security.user.password=secret";
		System.arraycopy(properties, 0, all, 4, properties.length);
		return this.apps.run(RedisTestServers.shared(), configuration, all);
	}

	private static JobState state(App app, String id) {
		return app.bean(DelayedJobTemplate.class).find("orders", id).map((job) -> job.state()).orElse(null);
	}

	@Test
	void anonymousRequestsAreRefusedAndWritesNeedTheCsrfToken(CapturedOutput output) {
		App app = run(BootsDefaultChain.class);
		assertThat(output).doesNotContain("The delayqueue dashboard is not served")
			.contains("Every authenticated user may use the delayqueue dashboard at /delayqueue-dashboard")
			.contains("set delayqueue.dashboard.role");
		assertThat(app.get("/delayqueue-dashboard").status()).isIn(401, 302);
		assertThat(app.get("/delayqueue-dashboard/api/overview").status()).isIn(401, 302);
		Response anonymousWrite = app.form("POST", "/delayqueue-dashboard/api/replay", "topic=orders&id=o-1", WRITE,
				"write");
		assertThat(anonymousWrite.status()).isIn(401, 302, 403);

		Response page = app.form("GET", "/delayqueue-dashboard", null, "Authorization", BASIC);
		assertThat(page.status()).isEqualTo(200);
		Matcher parameter = Pattern.compile("data-csrf-parameter=\"([^\"]+)\"").matcher(page.body());
		Matcher token = Pattern.compile("data-csrf-token=\"([^\"]+)\"").matcher(page.body());
		assertThat(parameter.find()).as("the page carries the CSRF parameter name").isTrue();
		assertThat(token.find()).as("the page carries the CSRF token").isTrue();
		String session = page.headers()
			.firstValue("Set-Cookie")
			.map((cookie) -> cookie.substring(0, cookie.indexOf(';')))
			.orElseThrow();

		// signed in, with the dashboard's header, without the token: Spring Security's CSRF
		// filter refuses (before HTTP Basic has authenticated the request, so that its error
		// page answers 401 rather than 403)
		Response noToken = app.form("POST", "/delayqueue-dashboard/api/replay", "topic=orders&id=o-1", "Authorization",
				BASIC, "Cookie", session, WRITE, "write");
		assertThat(noToken.status()).isIn(401, 403);
		assertThat(noToken.body()).doesNotContain(WRITE);
		Response wrongToken = app.form("POST", "/delayqueue-dashboard/api/replay",
				"topic=orders&id=o-1&" + parameter.group(1) + "=forged", "Authorization", BASIC, "Cookie", session, WRITE,
				"write");
		assertThat(wrongToken.status()).isIn(401, 403);
		assertThat(state(app, "o-1")).isEqualTo(JobState.DEAD);

		// the token, but not the dashboard's header: the dashboard refuses
		String withToken = "topic=orders&id=o-1&" + parameter.group(1) + "="
				+ URLEncoder.encode(token.group(1), StandardCharsets.UTF_8);
		Response noHeader = app.form("POST", "/delayqueue-dashboard/api/replay", withToken, "Authorization", BASIC,
				"Cookie", session);
		assertThat(noHeader.status()).isEqualTo(403);
		assertThat(noHeader.body()).contains(WRITE);
		assertThat(state(app, "o-1")).isEqualTo(JobState.DEAD);

		Response replayed = app.form("POST", "/delayqueue-dashboard/api/replay", withToken, "Authorization", BASIC,
				"Cookie", session, WRITE, "write");
		assertThat(replayed.status()).isEqualTo(200);
		assertThat(state(app, "o-1")).isEqualTo(JobState.READY);
		assertThat(output).contains("audit - by=ops via=dashboard action=replay topic=orders count=1 ids=[o-1]");
	}

	@Test
	void withARoleOnlyItsUsersGetIn(CapturedOutput output) {
		App viewer = run(BootsDefaultChain.class, "delayqueue.dashboard.role=OPS", "spring.security.user.roles=VIEWER");
		assertThat(output).doesNotContain("Every authenticated user may use");
		Response refused = viewer.form("GET", "/delayqueue-dashboard", null, "Authorization", BASIC);
		assertThat(refused.status()).isEqualTo(403);
		assertThat(refused.body()).contains("The dashboard needs the role OPS").doesNotContain("<html");
		assertThat(viewer.form("GET", "/delayqueue-dashboard/api/job?topic=orders&id=o-1", null, "Authorization",
				BASIC).status()).isEqualTo(403);

		App operator = start(BootsDefaultChain.class, "delayqueue.dashboard.role=OPS", "spring.security.user.roles=OPS");
		assertThat(operator.form("GET", "/delayqueue-dashboard/api/job?topic=orders&id=o-1", null, "Authorization",
				BASIC).json().get("state").asString()).isEqualTo("DEAD");
	}

	@Test
	void theDashboardRefusesAnonymousRequestsThatTheApplicationsChainLetsThrough() {
		App app = run(SecurityChains.PermittingEveryRequest.class);
		Response page = app.get("/delayqueue-dashboard");
		assertThat(page.status()).isEqualTo(401);
		assertThat(page.body()).contains("The dashboard needs an authenticated user").doesNotContain("<html");
		assertThat(app.get("/delayqueue-dashboard/api/job?topic=orders&id=o-1").status()).isEqualTo(401);
		Response write = app.form("POST", "/delayqueue-dashboard/api/cancel", "topic=orders&id=o-1", WRITE, "write");
		assertThat(write.status()).isEqualTo(401);
		assertThat(state(app, "o-1")).isEqualTo(JobState.DEAD);
	}

}
