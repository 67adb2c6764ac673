package io.github.delayqueue.starter;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with only the starter: the queue and its auto-configuration, none of the
 * optional integration modules.
 */
class StarterClassPathTests {

	private final ClassLoader classLoader = getClass().getClassLoader();

	@ParameterizedTest
	@ValueSource(strings = { "io.github.delayqueue.core.DelayedJobTemplate",
			"io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration" })
	void theQueueIsThere(String type) {
		assertThat(ClassUtils.isPresent(type, this.classLoader)).as(type).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "io.github.delayqueue.http.DelayQueueHttpApi",
			"io.github.delayqueue.dashboard.DelayQueueDashboard",
			"io.github.delayqueue.web.autoconfigure.DelayQueueHttpAutoConfiguration",
			"io.github.delayqueue.kafka.KafkaForwarder", "io.github.delayqueue.rabbit.RabbitForwarder",
			"io.github.delayqueue.forward.JobForwarder",
			"io.github.delayqueue.autoconfigure.DelayQueueForwardingAutoConfiguration",
			"io.github.delayqueue.outbox.JdbcJobOutbox" })
	void noIntegrationModuleIsThere(String type) {
		assertThat(ClassUtils.isPresent(type, this.classLoader)).as(type).isFalse();
	}

}
