package io.github.delayqueue.web.autoconfigure;

import java.util.Arrays;
import java.util.List;

import io.github.delayqueue.actuate.EndpointDescriptors;
import io.github.delayqueue.dashboard.DashboardHistory;
import io.github.delayqueue.dashboard.DelayQueueDashboard;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the dashboard and the HTTP job API: the files and answers they read
 * and write at run time, which a native image must hold.
 */
class WebRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	private final ClassLoader classLoader = getClass().getClassLoader();

	@Test
	void theDashboardsFilesAndAnswersAreRegistered() {
		new DelayQueueDashboardAutoConfiguration.DashboardRuntimeHints().registerHints(this.hints, this.classLoader);
		for (String file : List.of("index.html", "dashboard.js", "dashboard.css")) {
			String path = "io/github/delayqueue/dashboard/" + file;
			assertThat(this.classLoader.getResource(path)).as(path).isNotNull();
			assertThat(RuntimeHintsPredicates.resource().forResource(path)).as(path).accepts(this.hints);
		}
		assertBound(DelayQueueDashboard.Overview.class, "history");
		assertBound(DelayQueueDashboard.JobCounts.class, "retried");
		assertBound(DashboardHistory.Sample.class, "topics");
		assertBound(DashboardHistory.Point.class, "lag");
		assertBound(EndpointDescriptors.ActionDescriptor.class, "count");
		assertThat(RuntimeHintsPredicates.reflection().onType(MeterRegistry.class)).accepts(this.hints);
	}

	@Test
	void theHttpApisDescriptionIsAResource() {
		new DelayQueueHttpAutoConfiguration.HttpApiRuntimeHints().registerHints(this.hints, this.classLoader);
		String path = "io/github/delayqueue/http/openapi.yaml";
		assertThat(this.classLoader.getResource(path)).isNotNull();
		assertThat(RuntimeHintsPredicates.resource().forResource(path)).accepts(this.hints);
	}

	private void assertBound(Class<? extends Record> type, String component) {
		assertThat(Arrays.stream(type.getRecordComponents()).map((each) -> each.getName())).contains(component);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(type)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(type.getSimpleName())
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(type, component))
			.as(type.getSimpleName() + "." + component + "()")
			.accepts(this.hints);
	}

}
