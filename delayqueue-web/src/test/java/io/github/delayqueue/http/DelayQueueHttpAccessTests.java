package io.github.delayqueue.http;

import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.http.RawHttp.Answer;
import io.github.delayqueue.test.RedisTestServers;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever path reaches the HTTP job API (a servlet path, a context path, path parameters,
 * percent-encoded characters, dot segments, a forward), a request without one of the tokens
 * is answered 401 and changes nothing; with one it is served. With
 * {@code secured-by-application}, the users the application's own security signed in are
 * served, and nobody else.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueHttpAccessTests {

	static final String TOKEN = "access-token";

	static final String BEARER = "Bearer " + TOKEN;

	static final String MARKER = "m-4711-payload";

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Controller
	static class Forwarding {

		@GetMapping("/open/{id}")
		String open(@PathVariable("id") String id) {
			return "forward:/delayqueue/jobs/guarded/" + id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ForwardingConfig {

		@Bean
		Forwarding forwarding() {
			return new Forwarding();
		}

	}

	private App run(String... properties) {
		List<String> all = new ArrayList<>(List.of("delayqueue.buckets=4", "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN));
		all.addAll(List.of(properties));
		App app = this.apps.run(RedisTestServers.shared(), ForwardingConfig.class, all.toArray(String[]::new));
		app.bean(DelayedJobTemplate.class).schedule("guarded", "g-1", "{\"marker\":\"" + MARKER + "\"}",
				Duration.ofHours(1));
		return app;
	}

	private static int port(App app) {
		return Integer.parseInt(app.context.getEnvironment().getProperty("local.server.port"));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			at the root               | ''   | ''
			under a servlet path      | /mvc | spring.mvc.servlet.path=/mvc
			under a context path      | /ctx | server.servlet.context-path=/ctx
			with lazy initialization  | ''   | spring.main.lazy-initialization=true
			""")
	void everyRouteNeedsATokenWhereverTheApiIsMapped(String deployment, String prefix, String property) {
		App app = (property.isEmpty()) ? run() : run(property);
		int port = port(app);
		String api = prefix + "/delayqueue";
		Map<String, String> routes = new LinkedHashMap<>();
		routes.put("GET " + api + "/jobs/guarded/g-1", null);
		routes.put("HEAD " + api + "/jobs/guarded/g-1", null);
		routes.put("GET " + api + "/openapi.yaml", null);
		routes.put("GET " + api + "/topics/guarded/jobs?state=DELAYED", null);
		routes.put("DELETE " + api + "/jobs/guarded/g-1", null);
		routes.put("POST " + api + "/jobs/guarded/g-1/run", null);
		routes.put("POST " + api + "/jobs", "{\"topic\":\"guarded\",\"id\":\"sneaked-in\",\"delay\":0,\"body\":1}");
		routes.put("POST " + api + "/topics/guarded/reserve?max=5&wait=PT1S", null);
		routes.put("POST " + api + "/jobs/guarded/g-1/finish", "{\"token\":1}");
		routes.put("POST " + api + "/jobs/guarded/g-1/fail", "{\"token\":1,\"dead\":true}");
		routes.put("POST " + api + "/jobs/guarded/g-1/touch", "{\"token\":1}");
		routes.forEach((route, body) -> {
			String[] methodAndTarget = route.split(" ");
			Answer refused = RawHttp.send(port, methodAndTarget[0], methodAndTarget[1], null, body);
			assertThat(refused.status()).as(deployment + ": " + route).isEqualTo(401);
			assertThat(refused.head()).as(deployment + ": " + route).containsIgnoringCase("WWW-Authenticate: Bearer");
			Answer wrongToken = RawHttp.send(port, methodAndTarget[0], methodAndTarget[1], "Bearer guess", body);
			assertThat(wrongToken.status()).as(deployment + ": " + route + " with a wrong token").isEqualTo(401);
		});
		DelayQueueOperations operations = app.bean(DelayedJobTemplate.class).getOperations();
		assertThat(operations.find("guarded", "g-1")).hasValueSatisfying((job) -> {
			assertThat(job.state()).isEqualTo(JobState.DELAYED);
			assertThat(job.attempt()).isZero();
		});
		assertThat(operations.find("guarded", "sneaked-in")).isEmpty();

		// and with a token the same routes are served
		Answer read = RawHttp.send(port, "GET", api + "/jobs/guarded/g-1", BEARER, null);
		assertThat(read.status()).isEqualTo(200);
		assertThat(read.body()).contains(MARKER);
		assertThat(RawHttp.send(port, "POST", api + "/jobs", BEARER,
				"{\"topic\":\"guarded\",\"id\":\"let-in\",\"delay\":\"PT1H\",\"body\":1}")
			.status()).isEqualTo(201);
		assertThat(RawHttp.send(port, "DELETE", api + "/jobs/guarded/let-in", BEARER, null).status()).isEqualTo(200);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			at the root          | ''   | ''
			under a servlet path | /mvc | spring.mvc.servlet.path=/mvc
			under a context path | /ctx | server.servlet.context-path=/ctx
			""")
	void pathTricksThatReachTheApiNeedAToken(String deployment, String prefix, String property) {
		App app = (property.isEmpty()) ? run() : run(property);
		int port = port(app);
		List<String> prefixes = new ArrayList<>(List.of(prefix));
		if (!prefix.isEmpty()) {
			prefixes.add(prefix + ";x=1");
			prefixes.add("/%" + Integer.toHexString(prefix.charAt(1)) + prefix.substring(2));
			prefixes.add("/" + prefix.substring(1).toUpperCase());
		}
		List<String> targets = new ArrayList<>();
		for (String p : prefixes) {
			for (String rest : List.of("/delayqueue/jobs/guarded/g-1", "/delayqueue/jobs/guarded/g-1;x=1",
					"/delayqueue;x=1/jobs/guarded/g-1", "/delayqueue/jobs;x=1/guarded;x=1/g-1",
					"/delayqueue;jsessionid=abc/jobs/guarded/g-1", "/%64elayqueue/jobs/guarded/g-1",
					"/delayqueue/%6Aobs/guarded/%67-1", "/%64%65%6C%61%79%71%75%65%75%65/jobs/guarded/g-1",
					"/delayqueue//jobs/guarded/g-1", "//delayqueue/jobs/guarded/g-1", "/delayqueue/./jobs/guarded/g-1",
					"/delayqueue/jobs/../jobs/guarded/g-1", "/x/../delayqueue/jobs/guarded/g-1",
					"/delayqueue/%2E/jobs/guarded/g-1", "/x/%2E%2E/delayqueue/jobs/guarded/g-1",
					"/delayqueue/jobs/guarded/g-1/", "/delayqueue/jobs/guarded/g-1.json", "/DELAYQUEUE/jobs/guarded/g-1",
					"/DelayQueue/jobs/guarded/g-1", "/delayqueue/jobs/guarded/g-1?x=1", "/delayqueue/jobs/guarded/g-1#x",
					"/delayqueue/jobs/guarded/g-1%20", "/delayqueue%20/jobs/guarded/g-1",
					"/delayqueue/jobs/guarded/g-1%00", "/delayqueue\\jobs\\guarded\\g-1")) {
				targets.add(p + rest);
			}
		}
		targets.add("http://localhost:" + port + prefix + "/delayqueue/jobs/guarded/g-1");
		List<String> served = new ArrayList<>();
		for (String target : targets) {
			Answer withToken = RawHttp.send(port, "GET", target, BEARER, null);
			Answer without = RawHttp.send(port, "GET", target, null, null);
			if (withToken.status() == 200 && withToken.body().contains(MARKER)) {
				served.add(target);
				assertThat(without.status()).as(deployment + ": GET " + target).isEqualTo(401);
			}
			else {
				assertThat(without.status()).as(deployment + ": GET " + target).isGreaterThanOrEqualTo(400);
			}
			assertThat(without.body()).as(deployment + ": GET " + target).doesNotContain(MARKER);
			Answer delete = RawHttp.send(port, "DELETE", target, null, null);
			assertThat(delete.status()).as(deployment + ": DELETE " + target).isGreaterThanOrEqualTo(400);
		}
		System.out.println(deployment + ": the API was reached by " + served);
		// the tries are worth something: path parameters and encoded characters do reach the API
		assertThat(served).contains(prefix + "/delayqueue/jobs/guarded/g-1",
				prefix + "/delayqueue;x=1/jobs/guarded/g-1", prefix + "/%64elayqueue/jobs/guarded/g-1");
		assertThat(app.bean(DelayedJobTemplate.class).getOperations().find("guarded", "g-1")).isPresent();
	}

	@Test
	void aForwardToTheApiNeedsAToken() {
		App app = run();
		int port = port(app);
		assertThat(RawHttp.send(port, "GET", "/open/g-1", null, null).status()).isEqualTo(401);
		Answer served = RawHttp.send(port, "GET", "/open/g-1", BEARER, null);
		assertThat(served.status()).isEqualTo(200);
		assertThat(served.body()).contains(MARKER);
	}

	@Test
	void optionsRunsNoOperationOfTheApi() {
		App app = run();
		int port = port(app);
		for (String target : List.of("/delayqueue/jobs/guarded/g-1", "/delayqueue/jobs",
				"/delayqueue/topics/guarded/reserve")) {
			Answer options = RawHttp.send(port, "OPTIONS", target, null, null);
			assertThat(options.body()).as(target).doesNotContain(MARKER);
		}
		assertThat(app.bean(DelayedJobTemplate.class).getOperations().find("guarded", "g-1"))
			.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
	}

	/**
	 * The application's own security without Spring Security: a filter that signs in the
	 * user a header names, as a container's sign-in sets the request's principal.
	 */
	@Configuration(proxyBeanMethods = false)
	static class OwnSecurity {

		@Bean
		Filter signInByHeader() {
			return (request, response, chain) -> {
				String user = ((HttpServletRequest) request).getHeader("X-User");
				chain.doFilter((user == null) ? request : new HttpServletRequestWrapper((HttpServletRequest) request) {

					@Override
					public Principal getUserPrincipal() {
						return () -> user;
					}

				}, response);
			};
		}

	}

	@Test
	void securedByTheApplicationWithoutSpringSecurityServesTheUsersItsOwnSecuritySignedIn(CapturedOutput output) {
		App app = this.apps.run(RedisTestServers.shared(), OwnSecurity.class, "delayqueue.buckets=4",
				"delayqueue.http.enabled=true", "delayqueue.http.secured-by-application=true");
		app.bean(DelayedJobTemplate.class).schedule("guarded", "g-1", "{\"marker\":\"" + MARKER + "\"}",
				Duration.ofHours(1));
		int port = port(app);
		Answer anonymous = RawHttp.send(port, "GET", "/delayqueue/jobs/guarded/g-1", null, null);
		assertThat(anonymous.status()).isEqualTo(401);
		assertThat(anonymous.body()).doesNotContain(MARKER);
		assertThat(RawHttp.send(port, "DELETE", "/delayqueue/jobs/guarded/g-1", null, null).status()).isEqualTo(401);
		assertThat(RawHttp.send(port, "POST", "/delayqueue/jobs/guarded/g-1/run", null, null).status()).isEqualTo(401);
		assertThat(app.bean(DelayedJobTemplate.class).find("guarded", "g-1"))
			.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));

		assertThat(app.form("GET", "/delayqueue/jobs/guarded/g-1", null, "X-User", "alice").body()).contains(MARKER);
		assertThat(app.form("POST", "/delayqueue/jobs/guarded/g-1/run", null, "X-User", "alice").status())
			.isEqualTo(200);
		assertThat(app.form("DELETE", "/delayqueue/jobs/guarded/g-1", null, "X-User", "alice").status())
			.isEqualTo(200);
		assertThat(output).contains("audit - by=alice via=http-api action=run topic=guarded count=1 ids=[g-1]")
			.contains("audit - by=alice via=http-api action=cancel topic=guarded count=1 ids=[g-1]");
	}

	@Test
	void servedOnTheApplicationsPortOnlyAndActuatorsAccessDoesNotLimitIt() {
		App app = run("management.server.port=0", "management.endpoint.delayqueue.access=read-only");
		assertThat(app.managementServer().send("GET", "/delayqueue/jobs/guarded/g-1", null, BEARER).status())
			.isEqualTo(404);
		assertThat(app.send("GET", "/delayqueue/jobs/guarded/g-1", null, BEARER).status()).isEqualTo(200);
		assertThat(app.send("DELETE", "/delayqueue/jobs/guarded/g-1", null, BEARER).status()).isEqualTo(200);
		assertThat(app.bean(DelayedJobTemplate.class).find("guarded", "g-1")).isEmpty();
	}

}
