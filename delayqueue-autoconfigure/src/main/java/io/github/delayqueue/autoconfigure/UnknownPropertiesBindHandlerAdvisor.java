package io.github.delayqueue.autoconfigure;

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
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;

/**
 * Refuses a {@code delayqueue.*} name that {@link DelayQueueProperties} does not bind, before
 * the values are validated; {@code delayqueue.outbox.*} is bound elsewhere and passes.
 */
final class UnknownPropertiesBindHandlerAdvisor implements ConfigurationPropertiesBindHandlerAdvisor {

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("delayqueue");

	private static final ConfigurationPropertyName OUTBOX = ConfigurationPropertyName.of("delayqueue.outbox");

	@Override
	public BindHandler apply(BindHandler bindHandler) {
		return new NoUnboundElementsBindHandler(bindHandler, new UnboundElementsSourceFilter()) {

			@Override
			public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					@Nullable Object result) throws Exception {
				if (context.getDepth() == 0 && name.equals(PREFIX)) {
					try {
						super.onFinish(name, target, context, result);
					}
					catch (UnboundConfigurationPropertiesException ex) {
						Set<ConfigurationProperty> unknown = new TreeSet<>(ex.getUnboundProperties());
						unknown.removeIf((property) -> OUTBOX.isAncestorOf(property.getName()));
						if (!unknown.isEmpty()) {
							throw new UnboundConfigurationPropertiesException(unknown);
						}
					}
				}
				bindHandler.onFinish(name, target, context, result);
			}

		};
	}

}
