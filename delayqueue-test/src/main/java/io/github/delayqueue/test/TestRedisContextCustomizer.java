package io.github.delayqueue.test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Points a test's application context at a test Redis server, and at a namespace of its own
 * when asked. Equal for equal {@link AutoConfigureTestRedis} attributes, so that the context
 * cache shares contexts as it would without the annotation; the random namespace is drawn
 * when a context is created.
 *
 * @param arguments the {@code redis-server} arguments, empty for the shared server
 * @param randomNamespace whether to set a random {@code delayqueue.namespace}
 */
record TestRedisContextCustomizer(List<String> arguments, boolean randomNamespace) implements ContextCustomizer {

	static final String PROPERTY_SOURCE_NAME = "delayqueueTestRedis";

	static final String NAMESPACE_PROPERTY = "delayqueue.namespace";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		RedisTestServer server = this.arguments.isEmpty() ? RedisTestServers.shared()
				: RedisTestServers.sharedLocal(this.arguments);
		Map<String, Object> properties = new LinkedHashMap<>();
		for (String property : server.springBootProperties()) {
			int equals = property.indexOf('=');
			properties.put(property.substring(0, equals), property.substring(equals + 1));
		}
		if (this.randomNamespace) {
			properties.put(NAMESPACE_PROPERTY, "test-" + UUID.randomUUID().toString().substring(0, 13));
		}
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME, properties));
	}

}
