package io.github.delayqueue.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.github.delayqueue.config.InvalidDelayedListenerException;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.util.ClassUtils;

/**
 * Refuses a name that a {@code delayqueue.*} properties object does not bind, before the
 * values are validated. The {@code delayqueue} root passes the subtrees of the optional
 * modules, which their own properties objects check (forwarding's bound at the root too, only
 * its subtree), and refuses turning on a module that is not on the class path.
 */
final class UnknownPropertiesBindHandlerAdvisor implements ConfigurationPropertiesBindHandlerAdvisor, BeanClassLoaderAware {

	/** The application's class loader, where the modules are looked for. */
	private @Nullable ClassLoader classLoader = UnknownPropertiesBindHandlerAdvisor.class.getClassLoader();

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("delayqueue");

	/** The root of each optional module's properties, with the module and one of its classes. */
	private static final Map<ConfigurationPropertyName, String[]> MODULES = Map.of(
			PREFIX.append("http"), new String[] { "delayqueue-web", "io.github.delayqueue.http.DelayQueueHttpApi" },
			PREFIX.append("dashboard"), new String[] { "delayqueue-web", "io.github.delayqueue.dashboard.DelayQueueDashboard" },
			PREFIX.append("outbox"), new String[] { "delayqueue-jdbc", "io.github.delayqueue.outbox.JdbcJobOutbox" });

	/** The subtree of forwarding, whose properties object the broker modules bring. */
	private static final ConfigurationPropertyName FORWARD = PREFIX.append("forward");

	/** By the property under a forward that names it: the broker in messages, its module and its forwarder. */
	private static final Map<String, String[]> BROKERS = new LinkedHashMap<>();

	static {
		BROKERS.put("kafka", new String[] { "Kafka", "delayqueue-kafka", "io.github.delayqueue.kafka.KafkaForwarder" });
		BROKERS.put("rabbit",
				new String[] { "RabbitMQ", "delayqueue-rabbit", "io.github.delayqueue.rabbit.RabbitForwarder" });
	}

	/** Forwarding itself, which each broker module brings. */
	private static final String FORWARDING = "io.github.delayqueue.forward.ForwardingEndpoint";

	@Override
	public BindHandler apply(BindHandler bindHandler) {
		return new NoUnboundElementsBindHandler(bindHandler, new UnboundElementsSourceFilter()) {

			@Override
			public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					@Nullable Object result) throws Exception {
				boolean root = context.getDepth() == 0 && name.equals(PREFIX);
				boolean forward = root && !DelayQueueProperties.class.equals(target.getType().resolve());
				if (root && !forward) {
					checkModulesTurnedOn(context);
				}
				if (context.getDepth() == 0 && (name.equals(PREFIX) || PREFIX.isAncestorOf(name))) {
					try {
						super.onFinish(name, target, context, result);
					}
					catch (UnboundConfigurationPropertiesException ex) {
						Set<ConfigurationProperty> unknown = new TreeSet<>(ex.getUnboundProperties());
						unknown.removeIf((property) -> forward ? !FORWARD.isAncestorOf(property.getName())
								: ofModule(name, property));
						if (!unknown.isEmpty()) {
							throw new UnboundConfigurationPropertiesException(unknown);
						}
					}
				}
				bindHandler.onFinish(name, target, context, result);
			}

		};
	}

	/** Whether a property belongs to the subtree of an optional module (forwarding too) under the bound root. */
	private static boolean ofModule(ConfigurationPropertyName bound, ConfigurationProperty property) {
		return Stream.concat(Stream.of(FORWARD), MODULES.keySet().stream())
			.anyMatch((root) -> bound.isAncestorOf(root) && root.isAncestorOf(property.getName()));
	}

	/**
	 * Refuses turning on a module that is not on the class path, from every source (the
	 * unknown-name check leaves system properties and the environment out), with the value
	 * bound as the module binds it: any spelling of true, placeholders resolved; and a forward
	 * whose broker module is missing (an {@link InvalidDelayedListenerException}), or that, without
	 * the forwarding module, names no broker.
	 */
	private void checkModulesTurnedOn(BindContext context) {
		Binder binder = context.getBinder();
		binder.bind(FORWARD, Bindable.mapOf(String.class, Object.class))
			.ifBound((forwards) -> forwards.forEach((topic, forward) -> {
				Map<?, ?> settings = (forward instanceof Map<?, ?> map) ? map : Map.of();
				BROKERS.forEach((name, broker) -> {
					if (settings.containsKey(name) && !ClassUtils.isPresent(broker[2], this.classLoader)) {
						throw new InvalidDelayedListenerException("Forwarding of topic '" + topic + "' to " + broker[0],
								"needs the module " + broker[1] + ", which is not on the class path",
								"add io.github.delayqueue:" + broker[1], null);
					}
				});
				if (BROKERS.keySet().stream().noneMatch(settings::containsKey)
						&& !ClassUtils.isPresent(FORWARDING, this.classLoader)) {
					throw new InvalidDelayedListenerException("Forwarding of topic '" + topic + "'", "names no broker",
							"set delayqueue.forward." + topic + ".kafka.topic (with io.github.delayqueue:delayqueue-kafka)"
									+ " or delayqueue.forward." + topic
									+ ".rabbit.exchange (with io.github.delayqueue:delayqueue-rabbit)",
							null);
				}
			}));
		for (Map.Entry<ConfigurationPropertyName, String[]> module : MODULES.entrySet()) {
			ConfigurationPropertyName enabled = module.getKey().append("enabled");
			if (!ClassUtils.isPresent(module.getValue()[1], this.classLoader)
					&& binder.bind(enabled, Bindable.of(Boolean.class)).orElse(false)) {
				throw new InvalidConfigurationPropertyValueException(enabled.toString(),
						binder.bind(enabled, Bindable.of(String.class)).orElse("true"), "needs the module "
								+ module.getValue()[0] + ", which is not on the class path; add io.github.delayqueue:"
								+ module.getValue()[0]);
			}
		}
	}

	/** The broker modules' forwarder types, which the check looks for, for a native image. */
	static class ForwardingModulesRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			BROKERS.values().forEach((broker) -> hints.reflection().registerTypeIfPresent(classLoader, broker[2]));
			hints.reflection().registerTypeIfPresent(classLoader, FORWARDING);
		}

	}

}
