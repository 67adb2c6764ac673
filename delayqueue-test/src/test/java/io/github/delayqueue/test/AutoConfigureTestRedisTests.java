package io.github.delayqueue.test;

import java.util.List;
import java.util.Map;

import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;

class AutoConfigureTestRedisTests {

	private static final List<ContextConfigurationAttributes> NO_ATTRIBUTES = List.of();

	private static ContextCustomizer customizerFor(Class<?> testClass) {
		return new TestRedisContextCustomizerFactory().createContextCustomizer(testClass, NO_ATTRIBUTES);
	}

	@Test
	void aTestWithoutTheAnnotationIsNotCustomized() {
		assertThat(customizerFor(AutoConfigureTestRedisTests.class)).isNull();
	}

	@Test
	void testsWithTheSameAttributesShareAContextAndOthersDoNot() {
		assertThat(customizerFor(SharedServer.class)).isEqualTo(customizerFor(SharedServerAgain.class))
			.hasSameHashCodeAs(customizerFor(SharedServerAgain.class))
			.isNotEqualTo(customizerFor(OwnServer.class))
			.isNotEqualTo(customizerFor(ConfiguredNamespace.class));
	}

	@Test
	void propertiesNameTheServerAndItsPasswordWhenItHasOne() {
		try (RedisTestServer server = RedisTestServers.local().password("s3cret=").start()) {
			assertThat(server.springBootProperties()).containsExactly("spring.data.redis.host=" + server.host(),
					"spring.data.redis.port=" + server.port(), "spring.data.redis.password=s3cret=");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Empty {

	}

	@Nested
	@SpringJUnitConfig(Empty.class)
	@AutoConfigureTestRedis
	@TestPropertySource(properties = { "spring.data.redis.port=1", "delayqueue.namespace=ignored" })
	class SharedServer {

		@Autowired
		Environment environment;

		@Test
		void contextIsPointedAtTheSharedServerWithARandomNamespace() {
			RedisTestServer shared = RedisTestServers.shared();
			assertThat(this.environment.getProperty("spring.data.redis.host")).isEqualTo(shared.host());
			assertThat(this.environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(shared.port());
			assertThat(this.environment.getProperty("delayqueue.namespace")).matches("test-[0-9a-f]{8}-[0-9a-f]{4}");
		}

		@Nested
		class Inner {

			@Autowired
			Environment innerEnvironment;

			@Test
			void nestedTestsGetTheSameServer() {
				assertThat(this.innerEnvironment.getProperty("spring.data.redis.port", Integer.class))
					.isEqualTo(RedisTestServers.shared().port());
			}

		}

	}

	@AutoConfigureTestRedis
	static class SharedServerAgain {

	}

	@Nested
	@SpringJUnitConfig(Empty.class)
	@AutoConfigureTestRedis(arguments = { "--maxmemory", "16mb" })
	class OwnServer {

		@Autowired
		Environment environment;

		@Test
		void argumentsGiveTheContextARedisServerStartedWithThem() {
			int port = this.environment.getRequiredProperty("spring.data.redis.port", Integer.class);
			assertThat(port).isNotEqualTo(RedisTestServers.shared().port());
			assertThat(RedisTestServers.sharedLocal(List.of("--maxmemory", "16mb")).port()).isEqualTo(port);
			try (StatefulRedisConnection<String, String> redis = TestRedisClient.connect("127.0.0.1", port, null)) {
				assertThat(redis.sync().configGet("maxmemory")).isEqualTo(Map.of("maxmemory", "16777216"));
			}
		}

	}

	@Nested
	@SpringJUnitConfig(Empty.class)
	@AutoConfigureTestRedis(randomNamespace = false)
	@TestPropertySource(properties = "delayqueue.namespace=mine")
	class ConfiguredNamespace {

		@Autowired
		Environment environment;

		@Test
		void namespaceOfTheTestIsKeptWhenNotRandom() {
			assertThat(this.environment.getProperty("delayqueue.namespace")).isEqualTo("mine");
			assertThat(this.environment.getProperty("spring.data.redis.port", Integer.class))
				.isEqualTo(RedisTestServers.shared().port());
		}

	}

}
