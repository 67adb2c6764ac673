package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.PropertyMatches;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindException;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Conventions;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

/**
 * Analyzes a start-up refused because a {@code delayqueue.*} property has a name that its
 * properties object does not know, naming the closest known one.
 */
class UnknownPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException>
		implements Ordered {

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("delayqueue");

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
		if (!cause.getUnboundProperties().stream().allMatch((property) -> PREFIX.isAncestorOf(property.getName()))) {
			return null;
		}
		ConfigurationPropertiesBindException bind = findCause(rootFailure, ConfigurationPropertiesBindException.class);
		StringBuilder description = new StringBuilder();
		for (ConfigurationProperty property : cause.getUnboundProperties()) {
			description.append(describe(bind, property.getName()))
				.append(String.format("%n    Value: \"%s\"", property.getValue()));
			if (property.getOrigin() != null) {
				description.append(String.format("%n    Origin: %s", property.getOrigin()));
			}
			description.append(String.format("%n"));
		}
		return new FailureAnalysis(description.toString().trim(),
				"Correct the name of the property, or remove it. The delayqueue properties are listed with their"
						+ " documentation in your IDE's completion and in the guide's Properties page.",
				cause);
	}

	/** Says that a name is unknown and, when each unknown element is close to a known one, the name so corrected. */
	private static String describe(@Nullable ConfigurationPropertiesBindException bind,
			ConfigurationPropertyName name) {
		String unknown = name + " is not a known property";
		if (bind == null) {
			return unknown;
		}
		Class<?> root = bind.getBeanType();
		int start = ConfigurationPropertyName.of(bind.getAnnotation().prefix()).getNumberOfElements();
		List<String> elements = new ArrayList<>();
		for (int i = 0; i < name.getNumberOfElements(); i++) {
			String element = name.getElement(i, Form.DASHED);
			elements.add((element.contains(".")) ? "[" + element + "]" : element);
		}
		ResolvableType type = ResolvableType.forClass(root);
		for (int i = start; i < elements.size(); i++) {
			if (Map.class.isAssignableFrom(type.toClass())) {
				// this element is the map's key, named as written
				String key = name.getElement(i, Form.ORIGINAL);
				elements.set(i, (key.contains(".")) ? "[" + key + "]" : key);
				type = type.asMap().getGeneric(1);
				continue;
			}
			if (type.toClass() != root && !type.toClass().getName().startsWith(root.getName() + "$")) {
				return unknown;
			}
			Field field = closest(type.toClass(), Conventions.attributeNameToPropertyName(elements.get(i)));
			if (field == null) {
				return unknown;
			}
			elements.set(i, DataObjectPropertyName.toDashedForm(field.getName()));
			type = ResolvableType.forField(field);
		}
		String corrected = String.join(".", elements).replace(".[", "[");
		return corrected.equals(name.toString()) ? unknown : unknown + "; did you mean " + corrected + "?";
	}

	/** The field of the type with the given name, else the closest one, at most two edits away, else {@code null}. */
	private static @Nullable Field closest(Class<?> type, String name) {
		Field field = ReflectionUtils.findField(type, name);
		for (int distance = 1; field == null && distance <= PropertyMatches.DEFAULT_MAX_DISTANCE; distance++) {
			String[] matches = PropertyMatches.forField(name, type, distance).getPossibleMatches();
			field = (matches.length > 0) ? ReflectionUtils.findField(type, matches[0]) : null;
		}
		return field;
	}

	@Override
	public int getOrder() {
		// before Spring Boot's analyzer of unbound properties
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
