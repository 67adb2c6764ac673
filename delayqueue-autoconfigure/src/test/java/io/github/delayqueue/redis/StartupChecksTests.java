package io.github.delayqueue.redis;

import java.util.Map;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The start-up guardrails, against real servers.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupChecksTests {

	@Test
	void evictionPolicyOtherThanNoevictionIsWarnedAboutWithTheFix(CapturedOutput output) {
		try (RedisTestServer redis = RedisTestServers.local().argument("--maxmemory-policy", "allkeys-lru").start();
				RedisQueues queues = new RedisQueues(redis)) {
			queues.start();
			assertThat(output).contains("has maxmemory-policy 'allkeys-lru'")
				.contains("jobs would be lost")
				.contains("'maxmemory-policy noeviction'");
			// the persistence setting is logged once
			assertThat(output).containsOnlyOnce("Redis persistence: ");
		}
	}

	@Test
	void noevictionWithAofGivesNoWarningAndLogsThePersistence(CapturedOutput output) {
		try (RedisTestServer redis = RedisTestServers.local().appendOnly().start();
				RedisQueues queues = new RedisQueues(redis)) {
			queues.start();
			assertThat(output).doesNotContain("maxmemory-policy '").contains("Redis persistence: AOF on (appendfsync ");
		}
	}

	@Test
	void redisOlderThan62IsRefusedWithAClearMessage() {
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> StartupChecks.checkVersion(Map.of("", "6.0.16")))
			.withMessage("delayqueue needs Redis 6.2 or newer (it uses LPOP with a count), but the server runs "
					+ "Redis 6.0.16: upgrade Redis");
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> StartupChecks.checkVersion(Map.of("10.0.0.1:7001", "5.0.7")))
			.withMessageContaining("the server 10.0.0.1:7001 runs Redis 5.0.7");
		assertThatNoException().isThrownBy(() -> StartupChecks.checkVersion(Map.of("", "6.2.0", "b", "7.4.1")));
	}

	@Test
	void aVersionThatReadsAsNoNumberPasses() {
		assertThatNoException().isThrownBy(() -> StartupChecks.checkVersion(Map.of("a", "unknown", "b", "v7", "c", "",
				"d", "7.4.0-rc1", "e", "255.255.255", "f", "7.2.4")));
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> StartupChecks.checkVersion(Map.of("", "6.0.0-rc1")))
			.withMessageContaining("runs Redis 6.0.0-rc1");
	}

}
