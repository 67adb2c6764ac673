package io.github.delayqueue.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the Redis queue reads at run time that a native image must hold: its Lua scripts,
 * loaded as resources of this package ({@link LuaScript}), and the driver types it looks for
 * on the class path to send {@code WAIT} ({@link ReplicaWait}) and batches of scripts ({@link RawCommands}). Registered through
 * {@code META-INF/spring/aot.factories}: an application that builds its queue without the
 * auto-configuration needs them too.
 */
class RedisDelayQueueRuntimeHints implements RuntimeHintsRegistrar {

	/** Every script. */
	static final String SCRIPTS = "io/github/delayqueue/redis/*.lua";

	/** The helpers the scripts include. */
	static final String HELPERS = "io/github/delayqueue/redis/lib/*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
		hints.resources().registerPattern(HELPERS);
		hints.reflection().registerTypeIfPresent(classLoader, ReplicaWait.LETTUCE_COMMANDS);
		hints.reflection().registerTypeIfPresent(classLoader, ReplicaWait.JEDIS_CLIENT);
		hints.reflection().registerTypeIfPresent(classLoader, RawCommands.LETTUCE_OUTPUT);
	}

}
