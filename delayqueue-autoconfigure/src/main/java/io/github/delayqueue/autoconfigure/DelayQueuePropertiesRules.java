package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RateLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.validation.Errors;

/**
 * The rules of the {@code delayqueue.*} properties, each refusal naming the property: those no
 * component checks, when they are bound; those a component checks, when they are mapped onto it.
 */
public final class DelayQueuePropertiesRules {

	private final Errors errors;

	/** Creates rules that reject into the errors of the properties object checked. */
	public DelayQueuePropertiesRules(Errors errors) {
		this.errors = errors;
	}

	/** A setter that reports a value it refuses as an invalid value of the property, for {@code PropertyMapper}. */
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

	static void validate(DelayQueueProperties properties, Errors errors) {
		DelayQueuePropertiesRules rules = new DelayQueuePropertiesRules(errors);
		properties.recurring()
			.forEach((name, recurring) -> rules.check("recurring[" + name + "]", recurring, () -> recurring.toJob(name)));
		properties.retention().forEach((topic, retention) -> {
			rules.check("retention[" + topic + "]", null, () -> JobConstraints.topic("topic", topic));
			rules.check("retention[" + topic + "]", retention, retention::toRetention);
		});

		DelayQueueProperties.Listener listener = properties.listener();
		listener.rateLimit().forEach((topic, limit) -> {
			rules.check("listener.rate-limit[" + topic + "]", null, () -> JobConstraints.topic("topic", topic));
			rules.check("listener.rate-limit[" + topic + "]", null, () -> RateLimit.parse(limit));
		});
		DelayQueueProperties.Metrics metrics = properties.metrics();
		rules.duration("metrics.sample-interval", metrics.sampleInterval(), Duration.ofMillis(100), null);
		rules.between("metrics.max-topics", metrics.maxTopics(), 0, Integer.MAX_VALUE);

		DelayQueueProperties.Health health = properties.health();
		rules.duration("health.timeout", health.timeout(), Duration.ofMillis(1), Duration.ofMinutes(10));
		rules.duration("health.max-stall", health.maxStall(), Duration.ofMillis(1), null);
		health.maxOverdue().forEach((topic, max) -> {
			rules.check("health.max-overdue[" + topic + "]", null, () -> JobConstraints.topic("topic", topic));
			rules.duration("health.max-overdue[" + topic + "]", max, Duration.ZERO, null);
		});
	}

	/**
	 * Runs a rule, rejecting the property of {@code nested} its message starts with
	 * ({@code failedAge} as {@code field.failed-age}), else the field.
	 */
	void check(String field, @Nullable Record nested, Supplier<?> rule) {
		try {
			rule.get();
		}
		catch (IllegalArgumentException ex) {
			String message = String.valueOf(ex.getMessage());
			String first = message.split("[ ']", 2)[0];
			boolean names = nested != null
					&& Stream.of(nested.getClass().getRecordComponents()).anyMatch((c) -> c.getName().equals(first));
			reject(names ? field + "." + DataObjectPropertyName.toDashedForm(first) : field, message);
		}
	}

	/** Rejects a number outside a range; {@code max} is {@code Integer.MAX_VALUE} for no limit. */
	public void between(String field, int value, int min, int max) {
		if (value < min || value > max) {
			reject(field, (max == Integer.MAX_VALUE) ? "must be at least " + min
					: "must be between " + min + " and " + max);
		}
	}

	/** Rejects a missing duration or one outside a range; {@code max} is {@code null} for no limit. */
	public void duration(String field, @Nullable Duration value, Duration min, @Nullable Duration max) {
		if (value == null) {
			reject(field, "must be given");
		}
		else if (value.compareTo(min) < 0 || (max != null && value.compareTo(max) > 0)) {
			String least = min.isZero() ? "must not be negative" : "must be at least " + format(min);
			reject(field, (max != null) ? least + " and at most " + format(max) : least);
		}
	}

	/** A duration as a property gives it: {@code 100ms}, {@code 60s}, {@code 7d}, {@code 1m30s}. */
	static String format(Duration duration) {
		return DurationFormatterUtils.print(duration, DurationFormat.Style.COMPOSITE);
	}

	/** Rejects a property (its name relative to the object checked), saying the rule its value breaks. */
	public void reject(String field, String rule) {
		this.errors.rejectValue(field, "invalid", rule);
	}

}
