package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.BucketCountMismatchException;
import io.github.delayqueue.core.UnsupportedRedisVersionException;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Spring Boot reports ("APPLICATION FAILED TO START": description and action) for each
 * start-up failure that the queue causes or detects.
 */
@ExtendWith(RedisTestExtension.class)
class DelayQueueFailureAnalyzersTests {

	private ApplicationContextRunner runner;

	private String[] redis;

	private String namespace;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.redis = redis.springBootProperties();
		this.namespace = "delayqueue.namespace=fa" + System.nanoTime();
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class))
			.withPropertyValues(this.redis)
			.withPropertyValues(this.namespace);
	}

	@Test
	void redisUnreachableNamesTheAddressAndTheRedisProperties() {
		int port = TestConnections.freePort();
		this.runner.withPropertyValues("spring.data.redis.port=" + port).run((context) -> {
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure(), "spring.data.redis.port=" + port);
			assertThat(analysis.getDescription()).startsWith("delayqueue could not reach Redis at localhost:" + port)
				.contains("spring.data.redis.port=" + port)
				.contains("Connection refused");
			assertThat(analysis.getAction()).contains("spring.data.redis.host and spring.data.redis.port")
				.contains("spring.data.redis.url")
				.contains("spring.data.redis.sentinel.master")
				.contains("spring.data.redis.cluster.nodes")
				.contains("delayqueue.redis.fail-fast=false");
		});
	}

	@Test
	void redisUnreachableByUrlIsNamedWithoutItsCredentials() {
		int port = TestConnections.freePort();
		String url = "spring.data.redis.url=redis://app:s3cret@localhost:" + port;
		this.runner.withPropertyValues(url).run((context) -> {
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure(), url);
			assertThat(analysis.getDescription()).contains("at redis://localhost:" + port + " (spring.data.redis.url)")
				.doesNotContain("s3cret");
		});
	}

	@Test
	void redisOlderThan62NamesTheVersionAndTheUpgrade() {
		FailureAnalysis analysis = FailureAnalyses.of(new UnsupportedRedisVersionException("10.0.0.1:7001", "6.0.16"));
		assertThat(analysis.getDescription())
			.isEqualTo("delayqueue needs Redis 6.2 or newer (its scripts use commands of 6.2, such as LPOP with a"
					+ " count), but the Redis server 10.0.0.1:7001 runs Redis 6.0.16.");
		assertThat(analysis.getAction())
			.isEqualTo("Upgrade Redis to 6.2 or newer, or set spring.data.redis.* to a Redis that runs it.");
	}

	@Test
	void anotherBucketCountThanTheNamespacesNamesBothAndTheWayToMove() {
		this.runner.withPropertyValues("delayqueue.namespace=pinned" + System.nanoTime()).run((first) -> {
			assertThat(first).hasNotFailed();
			String namespace = first.getEnvironment().getProperty("delayqueue.namespace");
			this.runner.withPropertyValues("delayqueue.namespace=" + namespace, "delayqueue.buckets=8")
				.run((context) -> {
					FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
					assertThat(analysis.getDescription()).startsWith("delayqueue.buckets is 8, but namespace '"
							+ namespace + "' was created with a bucket count of 1.");
					assertThat(analysis.getAction()).startsWith("Set delayqueue.buckets=1.")
						.contains("another delayqueue.namespace");
				});
		});
	}

	/**
	 * A count chosen while Redis could not be asked is no setting of the user's: the analysis
	 * says to start again once Redis answers.
	 */
	@Test
	void aBucketCountGuessedWithoutRedisSaysToStartAgain() {
		FailureAnalysis analysis = new DelayQueueFailureAnalyzer(new StandardEnvironment())
			.analyze(new BucketCountMismatchException("shop", 1, 16, true));
		assertThat(analysis.getDescription())
			.isEqualTo("delayqueue.buckets is not set, and when the queue was built it took 1 (Redis could not be"
					+ " reached, or namespace 'shop' had no count yet); the namespace was created with a bucket count"
					+ " of 16.");
		assertThat(analysis.getAction())
			.isEqualTo("Start the application again once Redis answers (it then takes 16), or set delayqueue.buckets=16.");
	}

	@Test
	void badListenerNamesTheBeanTheMethodAndTheFix() {
		this.runner.withUserConfiguration(DelayedListenerAutoConfigurationTests.NoParameterConfig.class).run((context) -> {
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
			assertThat(analysis.getDescription())
				.startsWith("@DelayedListener method 'close' of bean 'noParameterListener'")
				.endsWith(" takes no parameters.");
			assertThat(analysis.getAction()).startsWith("Declare the payload parameter");
		});
	}

	@Test
	void badPropertyIsReportedByBootWithItsValueAndTheRule() {
		this.runner.withPropertyValues("delayqueue.metrics.max-topics=-1", "delayqueue.health.timeout=0s")
			.run((context) -> {
				FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("Property: delayqueue.metrics.max-topics")
					.contains("Value: \"-1\"")
					.contains("Reason: must be at least 0")
					.contains("Property: delayqueue.health.timeout")
					.contains("Reason: must be at least 1ms and at most 10m");
				assertThat(analysis.getAction()).contains("Update your application's configuration");
			});
	}

	@Test
	void badSettingOfTheQueueIsReportedByBootNamingThePropertyAndTheBuildersRule() {
		this.runner.withPropertyValues("delayqueue.buckets=0").run((context) -> {
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
			assertThat(analysis.getDescription())
				.contains("Invalid value '0' for configuration property 'delayqueue.buckets'")
				.contains("buckets must be between 1 and 16384, was 0");
			assertThat(analysis.getAction()).contains("Review the value of the property");
		});
		this.runner.withPropertyValues("delayqueue.timer.batch-size=20000").run((context) -> {
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
			assertThat(analysis.getDescription())
				.contains("Invalid value '20000' for configuration property 'delayqueue.timer.batch-size'")
				.contains("batchSize must be between 1 and 10000, was 20000");
		});
	}

}
