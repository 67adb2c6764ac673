package io.github.delayqueue.test;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Creates a {@link TestRedisContextCustomizer} for test classes annotated with
 * {@link AutoConfigureTestRedis}. Registered in {@code META-INF/spring.factories}.
 */
class TestRedisContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,

			List<ContextConfigurationAttributes> configAttributes) {
		AutoConfigureTestRedis annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass,
				AutoConfigureTestRedis.class);
		return (annotation != null)
				? new TestRedisContextCustomizer(List.of(annotation.arguments()), annotation.randomNamespace()) : null;
	}

}
