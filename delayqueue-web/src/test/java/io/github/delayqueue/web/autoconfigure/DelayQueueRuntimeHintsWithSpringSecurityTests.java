package io.github.delayqueue.web.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the dashboard and the HTTP job API with Spring Security on the class
 * path (in the Surefire execution that adds it: its types are named, not compiled against):
 * the dashboard reads Spring Security's CSRF token through reflection.
 */
class DelayQueueRuntimeHintsWithSpringSecurityTests {

	private static final String CSRF_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

	private static final String SECURITY_FILTER_CHAIN = "org.springframework.security.web.SecurityFilterChain";

	private final RuntimeHints hints = new RuntimeHints();

	private final ClassLoader classLoader = getClass().getClassLoader();

	@Test
	void theDashboardReadsTheCsrfTokenThroughItsInterface() throws Exception {
		new DelayQueueDashboardAutoConfiguration.DashboardRuntimeHints().registerHints(this.hints, this.classLoader);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(CSRF_TOKEN, "getParameterName"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(CSRF_TOKEN, "getToken"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Class.forName(SECURITY_FILTER_CHAIN)))
			.accepts(this.hints);
	}

	@Test
	void theHttpApiLooksForSpringSecurity() throws Exception {
		new DelayQueueHttpAutoConfiguration.HttpApiRuntimeHints().registerHints(this.hints, this.classLoader);
		assertThat(RuntimeHintsPredicates.reflection().onType(Class.forName(SECURITY_FILTER_CHAIN)))
			.accepts(this.hints);
	}

}
