package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.web.autoconfigure.DelayQueueHttpAutoConfiguration;
import io.github.delayqueue.web.autoconfigure.DelayQueueWebPropertiesAutoConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure analysis of an HTTP job API that nothing protects.
 */
@ExtendWith(RedisTestExtension.class)
class UnprotectedHttpApiFailureAnalyzerTests {

	private String[] redis;

	private String namespace;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.redis = redis.springBootProperties();
		this.namespace = "delayqueue.namespace=fa" + System.nanoTime();
	}

	@Test
	void httpApiWithoutProtectionListsTheThreeWaysOut() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayQueueHttpAutoConfiguration.class,
					DelayQueueWebPropertiesAutoConfiguration.class))
			.withPropertyValues(this.redis)
			.withPropertyValues(this.namespace)
			.withPropertyValues("delayqueue.http.enabled=true")
			.run((context) -> {
				FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith(
						"delayqueue.http.enabled=true serves the HTTP job API at /delayqueue/**, but nothing protects it");
				assertThat(analysis.getAction()).contains("delayqueue.http.tokens: bearer tokens")
					.contains("delayqueue.http.secured-by-application=true: the application's own security")
					.contains("delayqueue.http.allow-anonymous=true: anyone who reaches the port");
			});
	}

}
