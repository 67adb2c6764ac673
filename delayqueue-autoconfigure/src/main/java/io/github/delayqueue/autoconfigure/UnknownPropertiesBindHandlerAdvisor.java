package io.github.delayqueue.autoconfigure;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
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
 * modules, which their own properties objects check, and refuses turning on a module that is
 * not on the class path.
 */
final class UnknownPropertiesBindHandlerAdvisor implements ConfigurationPropertiesBindHandlerAdvisor {

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("delayqueue");

	/** The root of each optional module's properties, with the module and one of its classes. */
	private static final Map<String, String[]> MODULES = Map.of(
			"delayqueue.http", new String[] { "delayqueue-web", "io.github.delayqueue.http.DelayQueueHttpApi" },
			"delayqueue.dashboard", new String[] { "delayqueue-web", "io.github.delayqueue.dashboard.DelayQueueDashboard" },
			"delayqueue.outbox", new String[] { "delayqueue-jdbc", "io.github.delayqueue.outbox.JdbcJobOutbox" });

	@Override
	public BindHandler apply(BindHandler bindHandler) {
		return new NoUnboundElementsBindHandler(bindHandler, new UnboundElementsSourceFilter()) {

			@Override
			public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					@Nullable Object result) throws Exception {
				if (context.getDepth() == 0 && (name.equals(PREFIX) || PREFIX.isAncestorOf(name))) {
					try {
						super.onFinish(name, target, context, result);
					}
					catch (UnboundConfigurationPropertiesException ex) {
						Set<ConfigurationProperty> unknown = new TreeSet<>(ex.getUnboundProperties());
						unknown.removeIf((property) -> ofPresentModule(context, name, property));
						if (!unknown.isEmpty()) {
							throw new UnboundConfigurationPropertiesException(unknown);
						}
					}
				}
				bindHandler.onFinish(name, target, context, result);
			}

		};
	}

	/** Whether a property belongs to an optional module; refuses turning on a module missing. */
	private static boolean ofPresentModule(BindContext context, ConfigurationPropertyName bound,
			ConfigurationProperty property) {
		for (Map.Entry<String, String[]> module : MODULES.entrySet()) {
			ConfigurationPropertyName root = ConfigurationPropertyName.of(module.getKey());
			if (bound.isAncestorOf(root) && root.isAncestorOf(property.getName())) {
				// enabled bound as the module would bind it: any spelling of true, placeholders resolved
				if (property.getName().equals(root.append("enabled"))
						&& !ClassUtils.isPresent(module.getValue()[1], UnknownPropertiesBindHandlerAdvisor.class.getClassLoader())
						&& context.getBinder().bind(property.getName(), Bindable.of(Boolean.class)).orElse(false)) {
					throw new InvalidConfigurationPropertyValueException(property.getName().toString(),
							property.getValue(), "needs the module " + module.getValue()[0] + ", which is not on the"
									+ " class path; add io.github.delayqueue:" + module.getValue()[0]);
				}
				return true;
			}
		}
		return false;
	}

}
