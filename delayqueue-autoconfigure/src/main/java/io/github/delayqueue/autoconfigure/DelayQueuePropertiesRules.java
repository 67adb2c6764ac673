package io.github.delayqueue.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.RateLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.util.ClassUtils;
import org.springframework.validation.Errors;

/**
 * The rules of {@link DelayQueueProperties} that no component it configures checks, checked
 * when they are bound, each refusal naming the property.
 */
public final class DelayQueuePropertiesRules {

	/** A base path: segments of letters, digits, {@code .}, {@code _}, {@code ~} and {@code -}. */
	public static final Pattern BASE_PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

	/** The rule {@link #BASE_PATH} enforces, as messages name it. */
	public static final String BASE_PATH_RULE = "must start with '/', not end with '/', and hold only letters, digits,"
			+ " '.', '_', '~' and '-' between slashes";

	private static final Duration MILLISECOND = Duration.ofMillis(1);

	private static final Pattern KAFKA_TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

	private static final Pattern KEY_FIELD = Pattern.compile("[^.\\s]+(\\.[^.\\s]+)*");

	private final Errors errors;

	private DelayQueuePropertiesRules(Errors errors) {
		this.errors = errors;
	}

	static void validate(DelayQueueProperties properties, Errors errors) {
		DelayQueuePropertiesRules rules = new DelayQueuePropertiesRules(errors);
		properties.getRecurring()
			.forEach((name, recurring) -> rules.checkNested("recurring[" + name + "]", recurring, () -> recurring.toJob(name)));
		properties.getRetention().forEach((topic, retention) -> {
			rules.check("retention[" + topic + "]", () -> JobConstraints.topic("topic", topic));
			rules.checkNested("retention[" + topic + "]", retention, retention::toRetention);
		});
		properties.getForward()
			.forEach((topic, forward) -> rules.forward("forward[" + topic + "]", topic, forward,
					properties.getListener().getShutdownTimeout()));

		DelayQueueProperties.Listener listener = properties.getListener();
		listener.getRateLimit().forEach((topic, limit) -> {
			rules.check("listener.rate-limit[" + topic + "]", () -> JobConstraints.topic("topic", topic));
			rules.check("listener.rate-limit[" + topic + "]", () -> RateLimit.parse(limit));
		});
		DelayQueueProperties.Metrics metrics = properties.getMetrics();
		rules.duration("metrics.sample-interval", metrics.getSampleInterval(), Duration.ofMillis(100), null);
		rules.between("metrics.max-topics", metrics.getMaxTopics(), 0, Integer.MAX_VALUE);

		DelayQueueProperties.Health health = properties.getHealth();
		rules.duration("health.timeout", health.getTimeout(), MILLISECOND, Duration.ofMinutes(10));
		rules.duration("health.max-stall", health.getMaxStall(), MILLISECOND, null);
		for (Map.Entry<String, Duration> threshold : health.getMaxOverdue().entrySet()) {
			rules.duration("health.max-overdue[" + threshold.getKey() + "]", threshold.getValue(), Duration.ZERO, null);
		}

		DelayQueueProperties.Http http = properties.getHttp();
		if (http.isEnabled()) {
			rules.module("http.enabled", "io.github.delayqueue.http.DelayQueueHttpApi");
			rules.path("http.base-path", http.getBasePath());
			if (http.getTokens().stream().anyMatch((token) -> token == null || token.isBlank())) {
				rules.reject("http.tokens", "must not hold a blank token");
			}
			if (http.getMaxBodySize() == null || http.getMaxBodySize().toBytes() <= 0) {
				rules.reject("http.max-body-size", "must be positive");
			}
			rules.between("http.max-reserve", http.getMaxReserve(), 1, DelayQueueOperations.MAX_RESERVE);
			rules.duration("http.max-wait", http.getMaxWait(), Duration.ZERO, null);
			rules.between("http.max-waiting", http.getMaxWaiting(), 1, Integer.MAX_VALUE);
			rules.between("http.max-topics", http.getMaxTopics(), 1, Integer.MAX_VALUE);
		}

		DelayQueueProperties.Dashboard dashboard = properties.getDashboard();
		if (dashboard.isEnabled()) {
			rules.module("dashboard.enabled", "io.github.delayqueue.dashboard.DelayQueueDashboard");
			if (rules.path("dashboard.path", dashboard.getPath())
					&& http.isEnabled() && http.getBasePath() != null && (dashboard.getPath().equals(http.getBasePath())
					|| dashboard.getPath().startsWith(http.getBasePath() + "/")
					|| http.getBasePath().startsWith(dashboard.getPath() + "/"))) {
				rules.reject("dashboard.path", "must not be delayqueue.http.base-path, nor above or under it");
			}
			if (dashboard.getRole() != null && dashboard.getRole().isBlank()) {
				rules.reject("dashboard.role", "must not be blank: leave it out to let every authenticated user in");
			}
			else if (dashboard.getRole() != null && dashboard.isAllowUnauthenticated()) {
				rules.reject("dashboard.role", "needs an authenticated user: not with"
						+ " delayqueue.dashboard.allow-unauthenticated=true");
			}
			rules.duration("dashboard.refresh-interval", dashboard.getRefreshInterval(), Duration.ofMillis(500),
					Duration.ofMinutes(1));
			rules.duration("dashboard.chart-window", dashboard.getChartWindow(), Duration.ofMinutes(1),
					Duration.ofHours(1));
		}
	}

	@SuppressWarnings("NullAway") // past the first checks, the forward has its kafka or its rabbit
	private void forward(String field, String topic, DelayQueueProperties.Forward forward,
			@Nullable Duration shutdownTimeout) {
		check(field, () -> JobConstraints.topic("topic", topic));
		between(field + ".concurrency", forward.getConcurrency(), 1, 10_000);
		duration(field + ".send-timeout", forward.getSendTimeout(), Duration.ofMillis(100), Duration.ofHours(1));
		if (forward.getSendTimeout() != null && shutdownTimeout != null
				&& forward.getSendTimeout().compareTo(shutdownTimeout) >= 0) {
			reject(field + ".send-timeout", "must be shorter than delayqueue.listener.shutdown-timeout ("
					+ shutdownTimeout.toMillis() + "ms), or a send still waiting at shutdown is interrupted and"
					+ " counted as a failed attempt although the broker may take it");
		}
		DelayQueueProperties.Forward.Kafka kafka = forward.getKafka();
		DelayQueueProperties.Forward.Rabbit rabbit = forward.getRabbit();
		if (kafka != null && rabbit != null) {
			reject(field, "forwards to Kafka or to RabbitMQ, not both: remove the kafka.* or the rabbit.* properties");
			return;
		}
		if (kafka == null && rabbit == null) {
			reject(field, "set kafka.topic (forward to Kafka) or rabbit.exchange (forward to RabbitMQ)");
			return;
		}
		if (kafka != null) {
			if (kafka.getTopic() == null || kafka.getTopic().isBlank()) {
				reject(field + ".kafka.topic", "must name the Kafka topic the records are sent to");
			}
			else if (!KAFKA_TOPIC.matcher(kafka.getTopic()).matches() || kafka.getTopic().equals(".")
					|| kafka.getTopic().equals("..")) {
				reject(field + ".kafka.topic", "must be 1 to 249 letters, digits, '.', '_' or '-', not '.' or '..'");
			}
			if (kafka.getPartition() != null && kafka.getPartition() < 0) {
				reject(field + ".kafka.partition", "must be 0 or more");
			}
			if (kafka.getKeyField() != null && !KEY_FIELD.matcher(kafka.getKeyField()).matches()) {
				reject(field + ".kafka.key-field", "must be a field name of the JSON payload, dots between nested"
						+ " names (such as 'order.customerId')");
			}
		}
		else if (rabbit.getExchange() == null) {
			reject(field + ".rabbit.exchange", "must name the exchange the messages are published to (empty for the"
					+ " default exchange)");
		}
		else if (rabbit.getExchange().getBytes(StandardCharsets.UTF_8).length > 255) {
			reject(field + ".rabbit.exchange", "must be at most 255 bytes in UTF-8");
		}
		else if (rabbit.getRoutingKey() == null || rabbit.getRoutingKey().getBytes(StandardCharsets.UTF_8).length > 255) {
			reject(field + ".rabbit.routing-key", "must be at most 255 bytes in UTF-8");
		}
		else if (rabbit.getExchange().isEmpty() && rabbit.getRoutingKey().isEmpty()) {
			reject(field + ".rabbit.routing-key", "must name the queue when the exchange is the default (empty) one");
		}
	}

	/** Checks a path property against {@link #BASE_PATH}; returns whether it holds. */
	private boolean path(String field, @Nullable String value) {
		if (value == null || !BASE_PATH.matcher(value).matches()) {
			reject(field, BASE_PATH_RULE);
			return false;
		}
		return true;
	}

	@SuppressWarnings("NullAway") // the rules it runs throw with a message
	private void check(String field, Supplier<?> rule) {
		try {
			rule.get();
		}
		catch (IllegalArgumentException ex) {
			reject(field, ex.getMessage());
		}
	}

	/**
	 * Runs a rule of a nested object, rejecting the property its message starts with
	 * ({@code failedAge} as {@code field.failed-age}), else the object.
	 */
	private void checkNested(String field, Object nested, Supplier<?> rule) {
		try {
			rule.get();
		}
		catch (IllegalArgumentException ex) {
			String message = String.valueOf(ex.getMessage());
			String first = message.split("[ ']", 2)[0];
			boolean names = !first.isEmpty() && new BeanWrapperImpl(nested).isReadableProperty(first);
			reject(names ? field + "." + first.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT) : field, message);
		}
	}

	private void module(String field, String webClass) {
		if (!ClassUtils.isPresent(webClass, DelayQueuePropertiesRules.class.getClassLoader())) {
			reject(field, "needs the module delayqueue-web, which is not on the class path; add"
					+ " io.github.delayqueue:delayqueue-web");
		}
	}

	private void between(String field, int value, int min, int max) {
		if (value < min || value > max) {
			reject(field, (max == Integer.MAX_VALUE) ? "must be at least " + min
					: "must be between " + min + " and " + max);
		}
	}

	private void duration(String field, @Nullable Duration value, Duration min, @Nullable Duration max) {
		if (value == null) {
			reject(field, "must be given");
		}
		else if (value.compareTo(min) < 0 || (max != null && value.compareTo(max) > 0)) {
			String least = min.isZero() ? "must not be negative" : "must be at least " + format(min);
			reject(field, (max != null) ? least + " and at most " + format(max) : least);
		}
	}

	/** A duration as a property gives it: {@code 100ms}, {@code 60s}, {@code 7d}. */
	static String format(Duration duration) {
		long millis = duration.toMillis();
		long[] units = { 86_400_000, 3_600_000, 60_000, 1_000 };
		String[] suffixes = { "d", "h", "m", "s" };
		for (int i = 0; i < units.length; i++) {
			if (millis % units[i] == 0 && millis != 0) {
				return (millis / units[i]) + suffixes[i];
			}
		}
		return millis + "ms";
	}

	private void reject(String field, String rule) {
		this.errors.rejectValue(field, "invalid", rule);
	}

}
