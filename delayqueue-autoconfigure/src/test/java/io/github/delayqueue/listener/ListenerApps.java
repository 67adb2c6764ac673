package io.github.delayqueue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Boot applications (contexts) with listeners on the shared test Redis, all in one
 * namespace per test; closed after each test.
 */
final class ListenerApps implements AfterEachCallback {

	final String namespace = "l" + UUID.randomUUID().toString().substring(0, 8);

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	/**
	 * The auto-configurations a Boot application with the starter gets.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
	static class Boot {

	}

	ConfigurableApplicationContext run(Class<?> configuration, String... properties) {
		RedisTestServer redis = RedisTestServers.shared();
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Boot.class, configuration)
			.web(WebApplicationType.NONE)
			.properties(redis.springBootProperties())
			.properties("delayqueue.namespace=" + this.namespace, "delayqueue.timer.lease-ttl=2s",
					"delayqueue.listener.back-off.jitter=0ms", "spring.main.banner-mode=off")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return context;
	}

	@Override
	public void afterEach(ExtensionContext extensionContext) {
		for (ConfigurableApplicationContext context : this.contexts) {
			context.close();
		}
		this.contexts.clear();
	}

}
