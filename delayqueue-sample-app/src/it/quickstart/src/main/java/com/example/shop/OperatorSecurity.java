package com.example.shop;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

@Configuration
public class OperatorSecurity {

	// operators sign in for the dashboard and Actuator; no chain covers the application's own routes
	@Bean
	SecurityFilterChain operatorSecurityFilterChain(HttpSecurity http) throws Exception {
		return http.securityMatcher("/delayqueue-dashboard/**", "/actuator/**", "/login", "/logout", "/default-ui.css")
			.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.formLogin(Customizer.withDefaults())
			.httpBasic(Customizer.withDefaults())
			.build();
	}

}
