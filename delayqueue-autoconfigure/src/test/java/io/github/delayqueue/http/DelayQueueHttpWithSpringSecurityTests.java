package io.github.delayqueue.http;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import io.github.delayqueue.actuate.WebApps;
import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Spring Security on the classpath, the application's security decides who may call the
 * HTTP job API, and the API's own token check is off. Runs in its own Surefire execution with
 * {@code spring-boot-starter-security} added to the classpath (see this module's pom), so that
 * the other tests run without it.
 */
class DelayQueueHttpWithSpringSecurityTests {

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	@Test
	void springSecurityProtectsTheApiInsteadOfTheTokens() {
		App app = this.apps.run(RedisTestServers.shared(), NoBeans.class, "delayqueue.http.enabled=true",
				"delayqueue.http.tokens=ignored-token", "spring.security.user.name=ops",
				"spring.security.user.password=secret");
		assertThat(app.context.containsBean("delayQueueHttpTokenInterceptor")).isFalse();
		assertThat(app.context.containsBean("springSecurityFilterChain")).isTrue();

		// Boot's default security: every request authenticated, the API's tokens mean nothing
		assertThat(app.send("GET", "/delayqueue/jobs/t/x", null, null).status()).isEqualTo(401);
		assertThat(app.send("GET", "/delayqueue/jobs/t/x", null, "Bearer ignored-token").status()).isEqualTo(401);
		String basic = "Basic " + Base64.getEncoder().encodeToString("ops:secret".getBytes(StandardCharsets.UTF_8));
		WebApps.Response answered = app.send("GET", "/delayqueue/jobs/t/x", null, basic);
		assertThat(answered.status()).isEqualTo(404);
		assertThat(answered.json().get("detail").asString()).contains("no job x in topic t");
	}

}
