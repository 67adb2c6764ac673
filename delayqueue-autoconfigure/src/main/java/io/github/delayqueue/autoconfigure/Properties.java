package io.github.delayqueue.autoconfigure;

import java.util.function.Consumer;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Setters of the configured components as the properties reach them: the component checks
 * the value, and a refusal names the property.
 */
final class Properties {

	private Properties() {
	}

	/**
	 * A setter that reports a value it refuses as the property's, naming it.
	 * @param <T> the value's type
	 * @param name the property
	 * @param setter the setter, which checks the value
	 * @return the setter, for {@link PropertyMapper}
	 * @throws InvalidConfigurationPropertyValueException when the setter refuses the value
	 */
	static <T> Consumer<T> property(String name, Consumer<T> setter) {
		return (value) -> {
			try {
				setter.accept(value);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(name, value, ex.getMessage());
			}
		};
	}

}
