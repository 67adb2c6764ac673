package io.github.delayqueue.web.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import io.github.delayqueue.autoconfigure.DelayQueuePropertiesRules;
import io.github.delayqueue.core.DelayQueueOperations;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of the JSON-over-HTTP job API ({@code delayqueue.http.*}).
 */
@ConfigurationProperties("delayqueue.http")
public class DelayQueueHttpProperties implements Validator {

	/** A path: segments of letters, digits, {@code .}, {@code _}, {@code ~} and {@code -}. */
	static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

	/** The rule {@link #PATH} enforces. */
	static final String PATH_RULE = "must start with '/', not end with '/', and hold only letters, digits,"
			+ " '.', '_', '~' and '-' between slashes";

	/**
	 * Whether to serve the HTTP job API (needs a Spring MVC web application).
	 */
	private boolean enabled = false;

	/**
	 * Path under which the API is served, such as "/delayqueue".
	 */
	private String basePath = "/delayqueue";

	/**
	 * Bearer tokens the API accepts; when set, every request needs one of them.
	 */
	private List<String> tokens = new ArrayList<>();

	/**
	 * Whether the application's own security authenticates the API's users: the API then
	 * serves authenticated users only and may start without tokens.
	 */
	private boolean securedByApplication = false;

	/**
	 * Whether to serve the API without any protection, only for a trusted network; not
	 * with tokens or secured-by-application.
	 */
	private boolean allowAnonymous = false;

	/**
	 * Largest request body accepted; larger requests are refused with 413.
	 */
	private DataSize maxBodySize = DataSize.ofMegabytes(2);

	/**
	 * Most jobs one reserve request may ask for.
	 */
	private int maxReserve = 100;

	/**
	 * Longest time one reserve request may wait for jobs.
	 */
	private Duration maxWait = Duration.ofSeconds(30);

	/**
	 * Most reserve requests that may wait at once on this instance; more are refused
	 * with 503.
	 */
	private int maxWaiting = 1000;

	/**
	 * Most topics that may have waiting reserve requests at once on this instance; a wait
	 * on one more is refused with 429.
	 */
	private int maxTopics = 100;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getBasePath() {
		return this.basePath;
	}

	public void setBasePath(String basePath) {
		this.basePath = basePath;
	}

	public List<String> getTokens() {
		return this.tokens;
	}

	public void setTokens(List<String> tokens) {
		this.tokens = tokens;
	}

	public boolean isSecuredByApplication() {
		return this.securedByApplication;
	}

	public void setSecuredByApplication(boolean securedByApplication) {
		this.securedByApplication = securedByApplication;
	}

	public boolean isAllowAnonymous() {
		return this.allowAnonymous;
	}

	public void setAllowAnonymous(boolean allowAnonymous) {
		this.allowAnonymous = allowAnonymous;
	}

	public DataSize getMaxBodySize() {
		return this.maxBodySize;
	}

	public void setMaxBodySize(DataSize maxBodySize) {
		this.maxBodySize = maxBodySize;
	}

	public int getMaxReserve() {
		return this.maxReserve;
	}

	public void setMaxReserve(int maxReserve) {
		this.maxReserve = maxReserve;
	}

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	public int getMaxWaiting() {
		return this.maxWaiting;
	}

	public void setMaxWaiting(int maxWaiting) {
		this.maxWaiting = maxWaiting;
	}

	public int getMaxTopics() {
		return this.maxTopics;
	}

	public void setMaxTopics(int maxTopics) {
		this.maxTopics = maxTopics;
	}

	@Override
	public boolean supports(Class<?> type) {
		return DelayQueueHttpProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		DelayQueueHttpProperties http = (DelayQueueHttpProperties) target;
		if (!http.isEnabled()) {
			return;
		}
		DelayQueuePropertiesRules rules = new DelayQueuePropertiesRules(errors);
		path(rules, "base-path", http.getBasePath());
		if (http.getTokens().stream().anyMatch((token) -> token == null || token.isBlank())) {
			rules.reject("tokens", "must not hold a blank token");
		}
		if (http.getMaxBodySize() == null || http.getMaxBodySize().toBytes() <= 0) {
			rules.reject("max-body-size", "must be positive");
		}
		rules.between("max-reserve", http.getMaxReserve(), 1, DelayQueueOperations.MAX_RESERVE);
		rules.duration("max-wait", http.getMaxWait(), Duration.ZERO, null);
		rules.between("max-waiting", http.getMaxWaiting(), 1, Integer.MAX_VALUE);
		rules.between("max-topics", http.getMaxTopics(), 1, Integer.MAX_VALUE);
	}

	/** Checks a path property against {@link #PATH}; returns whether it holds. */
	static boolean path(DelayQueuePropertiesRules rules, String field, @Nullable String value) {
		if (value == null || !PATH.matcher(value).matches()) {
			rules.reject(field, PATH_RULE);
			return false;
		}
		return true;
	}

}
