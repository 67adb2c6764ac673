package io.github.delayqueue.sample;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Signs the dashboard's users in with a form (the demo user of {@code spring.security.user.*}
 * in application.properties, with the role {@code delayqueue.dashboard.role} asks for), with
 * Spring Security's CSRF protection on. Its chain covers the
 * dashboard and the sign-in pages only: the shop, the HTTP job API (which checks its own
 * bearer token) and Actuator stay as they are without Spring Security.
 */
@Configuration(proxyBeanMethods = false)
class DashboardSecurity {

	@Bean
	SecurityFilterChain dashboardSecurityFilterChain(HttpSecurity http,
			@Value("${delayqueue.dashboard.path:/delayqueue-dashboard}") String dashboard) throws Exception {
		return http.securityMatcher(dashboard, dashboard + "/**", "/login", "/logout", "/default-ui.css")
			.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.formLogin((form) -> form.defaultSuccessUrl(dashboard, true))
			.logout((logout) -> logout.logoutSuccessUrl("/login?logout"))
			.build();
	}

}
