package io.github.delayqueue.actuate;

import java.time.Duration;

import io.github.delayqueue.actuate.WebApps.App;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who reaches the endpoint over HTTP without Spring Security: nobody until it is exposed,
 * then anyone who reaches the port that serves it (the management server's own, when it has
 * one); with read-only access, its reads only.
 */
class DelayQueueEndpointAccessTests {

	@RegisterExtension
	final WebApps apps = new WebApps();

	@Configuration(proxyBeanMethods = false)
	static class NoBeans {

	}

	private App run(String... properties) {
		App app = this.apps.run(RedisTestServers.shared(), NoBeans.class, properties);
		app.bean(DelayedJobTemplate.class).schedule("t", "x", "{}", Duration.ofHours(1));
		return app;
	}

	@Test
	void servedOverHttpOnlyWhenExposed() {
		App hidden = run("management.endpoints.web.exposure.include=health");
		assertThat(hidden.get("/actuator/delayqueue").status()).isEqualTo(404);
		assertThat(hidden.delete("/actuator/delayqueue/t/x").status()).isIn(404, 405);
		assertThat(hidden.bean(DelayedJobTemplate.class).find("t", "x")).isPresent();
	}

	@Test
	void exposedAnyoneWhoReachesThePortReadsAndWrites() {
		App app = run();
		assertThat(app.get("/actuator/delayqueue/t/x").status()).isEqualTo(200);
		assertThat(app.delete("/actuator/delayqueue/t/x").status()).isEqualTo(200);
		assertThat(app.bean(DelayedJobTemplate.class).find("t", "x")).isEmpty();
	}

	@Test
	void withAManagementPortOfItsOwnServedThereOnly() {
		App app = run("management.server.port=0");
		assertThat(app.get("/actuator/delayqueue/t/x").status()).isEqualTo(404);
		assertThat(app.managementServer().get("/actuator/delayqueue/t/x").status()).isEqualTo(200);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "management.endpoint.delayqueue.access=read-only",
			"management.endpoints.access.max-permitted=read-only" })
	void readOnlyAccessServesReadsAndNoWrites(String readOnly) {
		App app = run(readOnly);
		assertThat(app.get("/actuator/delayqueue/t/x").status()).isEqualTo(200);
		assertThat(app.delete("/actuator/delayqueue/t/x").status()).isIn(404, 405);
		assertThat(app.post("/actuator/delayqueue", "{\"action\":\"repair\"}").status()).isIn(404, 405);
		assertThat(app.bean(DelayedJobTemplate.class).find("t", "x")).isPresent();
	}

}
