package io.github.delayqueue.autoconfigure;

import java.util.function.Consumer;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Setters that report a refused value as the property's.
 */
final class Properties {

	private Properties() {
	}

	/**
	 * A setter that reports a value it refuses as an invalid value of the property.
	 * @param <T> the value's type
	 * @param name the property
	 * @param setter the setter, which checks the value
	 * @return the setter, for {@link PropertyMapper}
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
