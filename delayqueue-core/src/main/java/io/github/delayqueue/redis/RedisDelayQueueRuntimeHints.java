package io.github.delayqueue.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image must hold for the Redis queue: its Lua scripts and the driver types it
 * looks for on the class path. Registered through {@code META-INF/spring/aot.factories}.
 */
class RedisDelayQueueRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/github/delayqueue/redis/*.lua");
		hints.resources().registerPattern("io/github/delayqueue/redis/lib/*.lua");
		hints.reflection().registerTypeIfPresent(classLoader, ReplicaWait.LETTUCE_COMMANDS);
		hints.reflection().registerTypeIfPresent(classLoader, ReplicaWait.JEDIS_CLIENT);
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), RedisJobOutcomeStream.Message.class);
	}

}
