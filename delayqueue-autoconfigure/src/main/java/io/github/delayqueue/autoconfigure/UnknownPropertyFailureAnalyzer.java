package io.github.delayqueue.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindException;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

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
		List<String[]> known = new ArrayList<>();
		ConfigurationPropertiesBindException bind = findCause(rootFailure, ConfigurationPropertiesBindException.class);
		if (bind != null) {
			collect(known, bind.getAnnotation().prefix(), bind.getBeanType(), bind.getBeanType());
		}
		StringBuilder description = new StringBuilder();
		for (ConfigurationProperty property : cause.getUnboundProperties()) {
			description.append(describe(known, property.getName()))
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

	/** Says that a name is unknown and, when one is close, which known name is closest. */
	static String describe(List<String[]> known, ConfigurationPropertyName name) {
		String given = name.toString();
		@Nullable String closest = null;
		int distance = Integer.MAX_VALUE;
		for (String[] names : known) {
			String candidate = fill(names, name);
			int d = distance(given, candidate);
			if (d < distance) {
				distance = d;
				closest = candidate;
			}
		}
		String unknown = given + " is not a known property";
		return (closest != null && distance <= Math.max(2, given.length() / 8)) ? unknown + "; did you mean " + closest + "?"
				: unknown;
	}

	/** A known name with each {@code *} replaced by the given name's element there. */
	private static String fill(String[] known, ConfigurationPropertyName name) {
		StringBuilder filled = new StringBuilder();
		for (int i = 0; i < known.length; i++) {
			String element = known[i];
			if (element.equals("*") && i < name.getNumberOfElements()) {
				element = name.getElement(i, Form.ORIGINAL);
				if (element.contains(".")) {
					filled.append('[').append(element).append(']');
					continue;
				}
			}
			filled.append((i > 0) ? "." : "").append(element);
		}
		return filled.toString();
	}

	private static void collect(List<String[]> known, String prefix, Class<?> root, Class<?> type) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
				continue;
			}
			String name = prefix + "." + DataObjectPropertyName.toDashedForm(descriptor.getName());
			Class<?> propertyType = descriptor.getPropertyType();
			if (isGroup(root, propertyType)) {
				collect(known, name, root, propertyType);
			}
			else if (Map.class.isAssignableFrom(propertyType)) {
				Class<?> value = ResolvableType.forMethodReturnType(descriptor.getReadMethod())
					.asMap()
					.getGeneric(1)
					.toClass();
				if (isGroup(root, value)) {
					collect(known, name + ".*", root, value);
				}
				else {
					known.add((name + ".*").split("\\."));
				}
			}
			else {
				known.add(name.split("\\."));
			}
		}
	}

	private static boolean isGroup(Class<?> root, Class<?> type) {
		return type.getName().startsWith(root.getName() + "$");
	}

	/** The Levenshtein distance: the fewest insertions, deletions and substitutions. */
	static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	@Override
	public int getOrder() {
		// before Spring Boot's analyzer of unbound properties
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
