package io.github.delayqueue.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.actuate.WebApps.Response;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.test.RedisTestServers;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * With Spring Security on the classpath, configured tokens are still checked (whatever the
 * application's security chains cover), and without tokens the API starts only when the
 * application says that its own security protects it. Runs in its own Surefire execution with
 * {@code spring-boot-starter-security} added to the classpath (see this module's pom), so
 * that the other tests run without it.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueHttpWithSpringSecurityTests {

	static final String TOKEN = "api-token";

	static final String BASIC = "Basic " + Base64.getEncoder().encodeToString("ops:secret".getBytes(StandardCharsets.UTF_8));

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	/**
	 * An application that secures its own {@code /api/**} and nothing else, as
	 * {@code http.securityMatcher("/api/**")} does.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(ChainForItsOwnPathsOnly.Chain.class)
	static class ChainForItsOwnPathsOnly {

		static class Chain extends SecurityChains {

			@Override
			boolean covers(HttpServletRequest request) {
				return request.getRequestURI().startsWith("/api/");
			}

			@Override
			List<Filter> filters() {
				return List.of((request, response, chain) -> {
					((HttpServletResponse) response).setStatus(403);
					response.getWriter().write("refused by the application's chain");
				});
			}

		}

	}

	/**
	 * An application whose chain authenticates every request as {@code ops}, and gives the
	 * authentication to the servlet API ({@code getUserPrincipal()}), as Spring Security's
	 * chains do.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(ChainAuthenticatingAsOps.Chain.class)
	static class ChainAuthenticatingAsOps {

		static class Chain extends SecurityChains {

			@Override
			boolean covers(HttpServletRequest request) {
				return true;
			}

			@Override
			List<Filter> filters() {
				Filter authenticate = (request, response, chain) -> {
					Class<?> holder = type("org.springframework.security.core.context.SecurityContextHolder");
					try {
						Object authentication = type(
								"org.springframework.security.authentication.TestingAuthenticationToken")
							.getConstructor(Object.class, Object.class, String[].class)
							.newInstance("ops", "n/a", new String[0]);
						Object context = holder.getMethod("createEmptyContext").invoke(null);
						context.getClass()
							.getMethod("setAuthentication", type("org.springframework.security.core.Authentication"))
							.invoke(context, authentication);
						holder
							.getMethod("setContext", type("org.springframework.security.core.context.SecurityContext"))
							.invoke(null, context);
						chain.doFilter(request, response);
						holder.getMethod("clearContext").invoke(null);
					}
					catch (ReflectiveOperationException ex) {
						throw new IllegalStateException(ex);
					}
				};
				try {
					Object servletApi = type(
							"org.springframework.security.web.servletapi.SecurityContextHolderAwareRequestFilter")
						.getConstructor()
						.newInstance();
					servletApi.getClass().getMethod("afterPropertiesSet").invoke(servletApi);
					return List.of(authenticate, (Filter) servletApi);
				}
				catch (ReflectiveOperationException ex) {
					throw new IllegalStateException(ex);
				}
			}

			private static Class<?> type(String name) {
				try {
					return ClassUtils.forName(name, Chain.class.getClassLoader());
				}
				catch (ClassNotFoundException ex) {
					throw new IllegalStateException(ex);
				}
			}

		}

	}

	@Test
	void theAuditLogNamesThePrincipalThatSpringSecurityAuthenticated(CapturedOutput output) {
		App app = run(ChainAuthenticatingAsOps.class, "delayqueue.http.enabled=true",
				"delayqueue.http.secured-by-application=true");
		assertThat(app.send("DELETE", "/delayqueue/jobs/t/x", null, null).status()).isEqualTo(200);
		app.bean(DelayedJobTemplate.class).schedule("t", "y", "{}", Duration.ofHours(1));
		assertThat(app.delete("/actuator/delayqueue/t/y").status()).isEqualTo(200);
		assertThat(output).contains("audit - by=ops via=http-api action=cancel topic=t count=1 ids=[x]")
			.contains("audit - by=ops via=endpoint action=cancel topic=t count=1 ids=[y]");
	}

	private App run(Class<?> configuration, String... properties) {
		App app = this.apps.run(RedisTestServers.shared(), configuration, properties);
		app.bean(DelayedJobTemplate.class).schedule("t", "x", "{\"secret\":42}", Duration.ofHours(1));
		return app;
	}

	@Test
	void tokensAreEnforcedWhenTheApplicationsChainDoesNotCoverTheApi() {
		App app = run(ChainForItsOwnPathsOnly.class, "delayqueue.http.enabled=true", "delayqueue.http.tokens=" + TOKEN);
		assertThat(app.get("/api/anything").status()).as("the application's chain is active").isEqualTo(403);

		Response refused = app.get("/delayqueue/jobs/t/x");
		assertThat(refused.status()).isEqualTo(401);
		assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
				(challenge) -> assertThat(challenge).startsWith("Bearer"));
		assertThat(refused.body()).doesNotContain("secret");
		assertThat(app.send("DELETE", "/delayqueue/jobs/t/x", null, "Bearer guess").status()).isEqualTo(401);
		assertThat(app.send("POST", "/delayqueue/jobs/t/x/run", null, null).status()).isEqualTo(401);
		assertThat(app.bean(DelayedJobTemplate.class).find("t", "x")).hasValueSatisfying(
				(job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));

		Response served = app.send("GET", "/delayqueue/jobs/t/x", null, "Bearer " + TOKEN);
		assertThat(served.status()).isEqualTo(200);
		assertThat(served.json().get("body").get("secret").asInt()).isEqualTo(42);
	}

	@Test
	void tokensAreEnforcedWhenTheApplicationsChainPermitsEveryRequest() {
		App app = run(SecurityChains.PermittingEveryRequest.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=" + TOKEN, "spring.mvc.servlet.path=/mvc");
		assertThat(app.get("/mvc/delayqueue/jobs/t/x").status()).isEqualTo(401);
		assertThat(app.send("POST", "/mvc/delayqueue/topics/t/reserve", null, null).status()).isEqualTo(401);
		assertThat(app.send("GET", "/mvc/delayqueue/jobs/t/x", null, "Bearer " + TOKEN).status()).isEqualTo(200);
	}

	@Test
	void withoutTokensStartUpFailsUnlessTheApplicationSaysItsSecurityProtectsTheApi() {
		for (Class<?> configuration : new Class<?>[] { NoBeans.class, SecurityChains.PermittingEveryRequest.class }) {
			assertThatException().as(configuration.getSimpleName())
				.isThrownBy(() -> this.apps.run(RedisTestServers.shared(), configuration, "delayqueue.http.enabled=true"))
				.havingRootCause()
				.withMessageContaining("Spring Security")
				.withMessageContaining("delayqueue.http.tokens")
				.withMessageContaining("delayqueue.http.secured-by-application=true")
				.withMessageContaining("delayqueue.http.allow-anonymous=true");
		}
	}

	@Test
	void securedByTheApplicationTheApplicationsChainDecides() {
		// Boot's default security: every request authenticated, HTTP Basic
		App app = run(NoBeans.class, "delayqueue.http.enabled=true", "delayqueue.http.secured-by-application=true",
				"spring.security.user.name=ops", "spring.security.user.password=secret");
		assertThat(app.context.containsBean("delayQueueHttpTokenInterceptor")).isFalse();
		Response refused = app.get("/delayqueue/jobs/t/x");
		assertThat(refused.status()).isEqualTo(401);
		assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
				(challenge) -> assertThat(challenge).startsWith("Basic"));
		assertThat(app.send("GET", "/delayqueue/jobs/t/x", null, "Bearer " + TOKEN).status()).isEqualTo(401);
		assertThat(app.send("POST", "/delayqueue/jobs/t/x/run", null, "Bearer " + TOKEN).status()).isEqualTo(401);
		assertThat(app.bean(DelayedJobTemplate.class).find("t", "x")).hasValueSatisfying(
				(job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
		Response served = app.send("GET", "/delayqueue/jobs/t/x", null, BASIC);
		assertThat(served.status()).isEqualTo(200);
		assertThat(served.json().get("body").get("secret").asInt()).isEqualTo(42);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(classes = { SecurityChains.PermittingEveryRequest.class, ChainForItsOwnPathsOnly.class })
	void securedByTheApplicationRequestsWithoutAnAuthenticatedUserAreRefused(Class<?> configuration,
			CapturedOutput output) {
		App app = run(configuration, "delayqueue.http.enabled=true", "delayqueue.http.secured-by-application=true");
		DelayedJobTemplate template = app.bean(DelayedJobTemplate.class);
		template.schedule("t", "due", "{}", Duration.ZERO);

		Response read = app.get("/delayqueue/jobs/t/x");
		assertThat(read.status()).as(configuration.getSimpleName()).isEqualTo(401);
		assertThat(read.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(read.body()).doesNotContain("secret");
		assertThat(read.json().get("detail").asString()).contains("authenticated user")
			.contains("delayqueue.http.secured-by-application");
		assertThat(app.post("/delayqueue/jobs", "{\"topic\":\"t\",\"id\":\"new\",\"delay\":\"PT1H\",\"body\":{}}")
			.status()).isEqualTo(401);
		assertThat(app.post("/delayqueue/topics/t/reserve?max=100&ttr=P7D", null).status()).isEqualTo(401);
		assertThat(app.delete("/delayqueue/jobs/t/x").status()).isEqualTo(401);
		assertThat(app.post("/delayqueue/jobs/t/x/run", null).status()).isEqualTo(401);
		assertThat(template.find("t", "new")).isEmpty();
		assertThat(template.find("t", "x")).hasValueSatisfying(
				(job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
		assertThat(template.find("t", "due")).hasValueSatisfying(
				(job) -> assertThat(job.state()).isNotEqualTo(JobState.RESERVED));
		assertThat(output).contains("The delayqueue HTTP job API at /delayqueue serves authenticated users only");
	}

	@Test
	void tokensAndAChainThatCoversTheApiBothApply() {
		App app = run(NoBeans.class, "delayqueue.http.enabled=true", "delayqueue.http.tokens=" + TOKEN,
				"spring.security.user.name=ops", "spring.security.user.password=secret");
		// one Authorization header cannot satisfy both: such a chain must let the base path through
		assertThat(app.send("GET", "/delayqueue/jobs/t/x", null, "Bearer " + TOKEN).status()).isEqualTo(401);
		Response basicOnly = app.send("GET", "/delayqueue/jobs/t/x", null, BASIC);
		assertThat(basicOnly.status()).isEqualTo(401);
		assertThat(basicOnly.json().get("detail").asString()).contains("delayqueue.http.tokens");
	}

}
