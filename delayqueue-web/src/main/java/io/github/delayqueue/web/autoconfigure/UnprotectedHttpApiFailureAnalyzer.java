package io.github.delayqueue.web.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Analyzes a start-up refused because the HTTP job API would be served without protection.
 */
class UnprotectedHttpApiFailureAnalyzer extends AbstractFailureAnalyzer<UnprotectedHttpApiException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnprotectedHttpApiException cause) {
		String paths = cause.getPaths();
		String description = "delayqueue.http.enabled=true serves the HTTP job API at " + paths
				+ ", but nothing protects it: delayqueue.http.tokens is not set, and neither"
				+ " delayqueue.http.secured-by-application nor delayqueue.http.allow-anonymous says how else it is"
				+ " protected."
				+ (cause.isSpringSecurity() ? " Spring Security on the classpath is not taken as protection: its"
						+ " chains may not cover those paths, or may permit them." : "");
		String action = String.format("Set one of:%n%n"
				+ "\tdelayqueue.http.tokens: bearer tokens that the API checks itself, with or without Spring Security%n"
				+ "\tdelayqueue.http.secured-by-application=true: the application's own security, such as a"
				+ " SecurityFilterChain, authenticates %s%n"
				+ "\tdelayqueue.http.allow-anonymous=true: anyone who reaches the port may use the API"
				+ " (a trusted network only)", paths);
		return new FailureAnalysis(description, action, cause);
	}

}
