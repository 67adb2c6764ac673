package io.github.delayqueue.outbox;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox's runtime hints: the shipped schemas, which a native image must hold.
 */
class OutboxRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	private final ClassLoader classLoader = getClass().getClassLoader();

	@Test
	void theOutboxSchemasAreResources() {
		new DelayQueueOutboxAutoConfiguration.OutboxRuntimeHints().registerHints(this.hints, this.classLoader);
		for (String platform : List.of("postgresql", "mysql", "h2")) {
			String path = "io/github/delayqueue/outbox/schema-" + platform + ".sql";
			assertThat(this.classLoader.getResource(path)).isNotNull();
			assertThat(RuntimeHintsPredicates.resource().forResource(path)).accepts(this.hints);
		}
	}

}
