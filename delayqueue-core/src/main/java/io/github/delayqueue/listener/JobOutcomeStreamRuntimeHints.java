package io.github.delayqueue.listener;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the {@link RedisJobOutcomeStream} binds with Jackson at run time, for a native image:
 * the messages it publishes and reads. Registered through
 * {@code META-INF/spring/aot.factories}.
 */
class JobOutcomeStreamRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), RedisJobOutcomeStream.Wire.class);
	}

}
