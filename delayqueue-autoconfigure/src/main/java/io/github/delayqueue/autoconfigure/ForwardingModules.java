package io.github.delayqueue.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.config.InvalidDelayedListenerException;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.util.ClassUtils;

/**
 * The check that the broker each {@code delayqueue.forward.<topic>} names has its module on the
 * class path, run where the names under {@code delayqueue} are checked (so under lazy
 * initialization too). Forwarding itself, settings and rules, is the broker modules'.
 */
final class ForwardingModules {

	/** By the property that names it: the broker in messages, its module and its forwarder. */
	private static final Map<String, String[]> BROKERS = new LinkedHashMap<>();

	static {
		BROKERS.put("kafka", new String[] { "Kafka", "delayqueue-kafka", "io.github.delayqueue.kafka.KafkaForwarder" });
		BROKERS.put("rabbit",
				new String[] { "RabbitMQ", "delayqueue-rabbit", "io.github.delayqueue.rabbit.RabbitForwarder" });
	}

	/** Forwarding itself, which each broker module brings. */
	private static final String FORWARDING = "io.github.delayqueue.forward.ForwardingEndpoint";

	private ForwardingModules() {
	}

	/**
	 * Throws an {@link InvalidDelayedListenerException} for a forward whose broker module is
	 * missing, or, without the forwarding module, that names no broker.
	 */
	static void check(Binder binder, @Nullable ClassLoader classLoader) {
		binder.bind(UnknownPropertiesBindHandlerAdvisor.FORWARD, Bindable.mapOf(String.class, Object.class))
			.ifBound((forwards) -> forwards.forEach((topic, forward) -> {
				Map<?, ?> settings = (forward instanceof Map<?, ?> map) ? map : Map.of();
				BROKERS.forEach((name, broker) -> {
					if (settings.containsKey(name) && !ClassUtils.isPresent(broker[2], classLoader)) {
						throw new InvalidDelayedListenerException("Forwarding of topic '" + topic + "' to " + broker[0],
								"needs the module " + broker[1] + ", which is not on the class path",
								"add io.github.delayqueue:" + broker[1], null);
					}
				});
				if (BROKERS.keySet().stream().noneMatch(settings::containsKey)
						&& !ClassUtils.isPresent(FORWARDING, classLoader)) {
					throw new InvalidDelayedListenerException("Forwarding of topic '" + topic + "'", "names no broker",
							"set delayqueue.forward." + topic + ".kafka.topic (with io.github.delayqueue:delayqueue-kafka)"
									+ " or delayqueue.forward." + topic
									+ ".rabbit.exchange (with io.github.delayqueue:delayqueue-rabbit)",
							null);
				}
			}));
	}

	/** The broker modules' forwarder types, for a native image. */
	static class ForwardingModulesRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			BROKERS.values().forEach((broker) -> hints.reflection().registerTypeIfPresent(classLoader, broker[2]));
			hints.reflection().registerTypeIfPresent(classLoader, FORWARDING);
		}

	}

}
