package io.github.delayqueue.autoconfigure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import io.github.delayqueue.config.DelayedListenerConfigurer;
import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;
import io.github.delayqueue.config.InvalidDelayedListenerException;
import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.forward.JobForwarder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The forwarders of one broker kind, one per topic {@code delayqueue.forward.<topic>} sends
 * there, registered as listener endpoints and closed with the context.
 *
 * @param <F> the forwarder type
 */
public final class Forwarders<F extends JobForwarder> implements DelayedListenerConfigurer, DisposableBean {

	/** Makes the forwarder of one topic. */
	@FunctionalInterface
	public interface Factory<F> {

		/** Makes the forwarder of a topic; throws {@link InvalidDelayedListenerException} for settings that cannot work. */
		F make(String topic, DelayQueueForwardProperties.Forward forward);

	}

	private static final Log logger = LogFactory.getLog(Forwarders.class);

	private final Map<String, F> forwarders = new LinkedHashMap<>();

	private final List<ForwardingEndpoint> endpoints = new ArrayList<>();

	/** Makes, with the factory, the forwarders of the {@code delayqueue.forward.*} topics selected. */
	public Forwarders(DelayQueueForwardProperties properties, Predicate<DelayQueueForwardProperties.Forward> selected,
			Factory<F> factory) {
		try {
			properties.forward().forEach((topic, forward) -> {
				if (selected.test(forward)) {
					F forwarder = factory.make(topic, forward);
					this.forwarders.put(topic, forwarder);
					this.endpoints.add(
							new ForwardingEndpoint(topic, forwarder, forward.concurrency(), forward.sendTimeout()));
				}
			});
		}
		catch (RuntimeException ex) {
			destroy();
			throw ex;
		}
	}

	/** Names a forwarding in messages: {@code Forwarding of topic '<topic>' to <destination>}. */
	public static String forwarding(String topic, String destination) {
		return "Forwarding of topic '" + topic + "' to " + destination;
	}

	/**
	 * The bean a forwarding uses: the one named by {@code property} ({@code name}, or {@code null}),
	 * else the only one of its type; an {@link InvalidDelayedListenerException} names the fix,
	 * {@code noneFix} when there is no bean of the type.
	 */
	public static <T> T bean(ListableBeanFactory beans, Class<T> type, @Nullable String name, String property,
			String forwarding, String noneFix) {
		Map<String, T> candidates = new TreeMap<>(beans.getBeansOfType(type));
		String kind = type.getSimpleName();
		if (name != null) {
			T bean = candidates.get(name);
			if (bean == null) {
				throw new InvalidDelayedListenerException(forwarding, "names " + kind + " bean '" + name + "' in "
						+ property + ", which does not exist",
						candidates.isEmpty() ? noneFix : "set it to one of " + candidates.keySet(), null);
			}
			return bean;
		}
		if (candidates.size() == 1) {
			return candidates.values().iterator().next();
		}
		throw new InvalidDelayedListenerException(forwarding,
				candidates.isEmpty() ? "finds no " + kind + " bean"
						: "finds " + candidates.size() + " " + kind + " beans " + candidates.keySet(),
				candidates.isEmpty() ? noneFix : "set " + property + " to the name of the one to use", null);
	}

	/** Turns a forwarder's refusal of its settings ("what: fix") into a start-up failure. */
	@SuppressWarnings("NullAway") // the forwarders refuse their settings with a message
	public static InvalidDelayedListenerException invalid(String forwarding, IllegalArgumentException ex) {
		String message = ex.getMessage();
		int colon = message.indexOf(": ");
		return (colon < 0) ? new InvalidDelayedListenerException(forwarding, "cannot start", message, ex)
				: new InvalidDelayedListenerException(forwarding, "cannot start: " + message.substring(0, colon),
						message.substring(colon + 2), ex);
	}

	@Override
	public void configureDelayedListeners(DelayedListenerEndpointRegistrar registrar) {
		this.endpoints.forEach(registrar::registerEndpoint);
	}

	/** The forwarders, by topic. */
	public Map<String, F> forwarders() {
		return Collections.unmodifiableMap(this.forwarders);
	}

	@Override
	public void destroy() {
		this.forwarders.values().forEach((forwarder) -> {
			if (forwarder instanceof DisposableBean disposable) {
				try {
					disposable.destroy();
				}
				catch (Exception ex) {
					logger.warn("Closing the forwarder to " + forwarder.destination() + " failed", ex);
				}
			}
		});
	}

}
