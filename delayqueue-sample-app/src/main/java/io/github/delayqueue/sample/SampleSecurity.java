package io.github.delayqueue.sample;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Signs the operators in: the demo user of {@code spring.security.user.*} in
 * application.properties, with the role OPS. The dashboard and the sign-in pages: a form, with
 * Spring Security's CSRF protection on (the dashboard asks for the role itself,
 * {@code delayqueue.dashboard.role}). Actuator: HTTP Basic, the role OPS for every endpoint but
 * health. The shop and the HTTP job API (which checks its own bearer token) are not covered.
 */
@Configuration(proxyBeanMethods = false)
class SampleSecurity {

	@Bean
	SecurityFilterChain dashboardSecurityFilterChain(HttpSecurity http,
			@Value("${delayqueue.dashboard.path:/delayqueue-dashboard}") String dashboard) throws Exception {
		return http.securityMatcher(dashboard, dashboard + "/**", "/login", "/logout", "/default-ui.css")
			.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.formLogin((form) -> form.defaultSuccessUrl(dashboard, true))
			.logout((logout) -> logout.logoutSuccessUrl("/login?logout"))
			.build();
	}

	/**
	 * Every Actuator endpoint but health needs the role OPS: the delayqueue endpoint shows
	 * payloads here and its writes replay, cancel, pause and repair. Credentials come with
	 * each request (no session: the dashboard's sign-in does not reach here), so CSRF
	 * protection is off: the endpoint's writes take a JSON body or {@code DELETE}, which a
	 * page of another site cannot send without a CORS preflight, even where the browser
	 * would add HTTP Basic credentials it remembers.
	 */
	@Bean
	SecurityFilterChain actuatorSecurityFilterChain(HttpSecurity http) throws Exception {
		return http.securityMatcher(EndpointRequest.toAnyEndpoint())
			.authorizeHttpRequests((requests) -> requests.requestMatchers(EndpointRequest.to("health"))
				.permitAll()
				.anyRequest()
				.hasRole("OPS"))
			.httpBasic(Customizer.withDefaults())
			.sessionManagement((session) -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.csrf((csrf) -> csrf.disable())
			.build();
	}

}
