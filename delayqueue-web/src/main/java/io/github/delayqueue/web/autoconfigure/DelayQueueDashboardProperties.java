package io.github.delayqueue.web.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.autoconfigure.DelayQueuePropertiesRules;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of the operators' dashboard ({@code delayqueue.dashboard.*}).
 */
@ConfigurationProperties("delayqueue.dashboard")
public class DelayQueueDashboardProperties implements Validator {

	/**
	 * Whether the dashboard is served (it needs Spring MVC and Spring Boot Actuator).
	 */
	private boolean enabled = false;

	/**
	 * The dashboard's path, under the servlet context path.
	 */
	private String path = "/delayqueue-dashboard";

	/**
	 * Whether the dashboard only shows: no write controls, and writes are refused.
	 */
	private boolean readOnly = false;

	/**
	 * Whether the dashboard may be served without an authenticated user.
	 */
	private boolean allowUnauthenticated = false;

	/**
	 * Whether the dashboard is served by the management server only (it needs
	 * 'management.server.port').
	 */
	private boolean onManagementPort = false;

	/**
	 * The role a user needs to use the dashboard, such as 'OPS'. Default: any
	 * authenticated user.
	 */
	private @Nullable String role;

	/**
	 * How often the page reads the queue's figures.
	 */
	private Duration refreshInterval = Duration.ofSeconds(2);

	/**
	 * How far back the page's charts reach.
	 */
	private Duration chartWindow = Duration.ofMinutes(5);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public boolean isReadOnly() {
		return this.readOnly;
	}

	public void setReadOnly(boolean readOnly) {
		this.readOnly = readOnly;
	}

	public boolean isAllowUnauthenticated() {
		return this.allowUnauthenticated;
	}

	public void setAllowUnauthenticated(boolean allowUnauthenticated) {
		this.allowUnauthenticated = allowUnauthenticated;
	}

	public boolean isOnManagementPort() {
		return this.onManagementPort;
	}

	public void setOnManagementPort(boolean onManagementPort) {
		this.onManagementPort = onManagementPort;
	}

	public @Nullable String getRole() {
		return this.role;
	}

	public void setRole(@Nullable String role) {
		this.role = role;
	}

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		this.refreshInterval = refreshInterval;
	}

	public Duration getChartWindow() {
		return this.chartWindow;
	}

	public void setChartWindow(Duration chartWindow) {
		this.chartWindow = chartWindow;
	}

	@Override
	public boolean supports(Class<?> type) {
		return DelayQueueDashboardProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		DelayQueueDashboardProperties dashboard = (DelayQueueDashboardProperties) target;
		if (!dashboard.isEnabled()) {
			return;
		}
		DelayQueuePropertiesRules rules = new DelayQueuePropertiesRules(errors);
		DelayQueueHttpProperties.path(rules, "path", dashboard.getPath());
		if (dashboard.getRole() != null && dashboard.getRole().isBlank()) {
			rules.reject("role", "must not be blank: leave it out to let every authenticated user in");
		}
		else if (dashboard.getRole() != null && dashboard.isAllowUnauthenticated()) {
			rules.reject("role", "needs an authenticated user: not with"
					+ " delayqueue.dashboard.allow-unauthenticated=true");
		}
		rules.duration("refresh-interval", dashboard.getRefreshInterval(), Duration.ofMillis(500), Duration.ofMinutes(1));
		rules.duration("chart-window", dashboard.getChartWindow(), Duration.ofMinutes(1), Duration.ofHours(1));
	}

}
