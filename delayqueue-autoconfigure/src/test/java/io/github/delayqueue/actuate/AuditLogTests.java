package io.github.delayqueue.actuate;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.DelayQueueConnectionException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audit log's lines: one line whatever the ids and names hold, a bounded number of ids.
 */
class AuditLogTests {

	@Test
	void plainValuesAreWrittenAsTheyAreAndOthersAsJsonStrings() {
		String line = AuditLog.entry("endpoint", "CN=ops, O=Acme", "cancel")
			.topic("orders")
			.count(1)
			.ids(List.of("a b \"quoted\"\n forged=true"))
			.toString();
		assertThat(line).isEqualTo("by=\"CN=ops, O=Acme\" via=endpoint action=cancel topic=orders count=1"
				+ " ids=[\"a b \\\"quoted\\\"\\u000a forged=true\"]");
		assertThat(line).doesNotContain("\n");
	}

	@Test
	void everyControlCharacterIsEscapedTheC1OnesToo() {
		String line = AuditLog.entry("http-api", "token[0]", "cancel")
			.topic("t")
			.ids(List.of("a\u0085b\u2028c\u009bd\re"))
			.toString();
		assertThat(line).endsWith("ids=[\"a\\u0085b\\u2028c\\u009bd\\u000de\"]");
	}

	@Test
	void aWriteThatFailedSaysSoWithWhatItIsKnownToHaveDone() {
		String line = AuditLog.entry("endpoint", "alice", "replay")
			.topic("t")
			.count(1000)
			.failed(new DelayQueueConnectionException("gone", new RuntimeException()))
			.toString();
		assertThat(line).isEqualTo(
				"by=alice via=endpoint action=replay topic=t count=1000 failed=DelayQueueConnectionException");
	}

	@Test
	void atMostTwentyIdsAreWrittenAndTheRestCounted() {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			ids.add("j-" + i);
		}
		String line = AuditLog.entry("endpoint", null, "replay").topic("t").count(5_000).ids(ids).toString();
		assertThat(line).startsWith("by=anonymous via=endpoint action=replay topic=t count=5000 ids=[j-0, j-1,")
			.endsWith("j-19, +4980 more]");
	}

}
