package io.github.delayqueue.test;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@ExtendWith(RedisTestExtension.class)
class RedisTestServersTests {

	@Test
	void sharedServerAnswersPing(RedisTestServer redis) {
		assertThat(ping(redis)).isEqualTo("PONG");
		assertThat(RedisTestServers.shared()).isSameAs(redis);
	}

	@Test
	void localServerStopsAndStartsOnTheSamePort() {
		try (RedisTestServer server = RedisTestServers.local().appendOnly().start()) {
			assertThat(server.isManaged()).isTrue();
			int port = server.port();
			server.stop();
			assertThatExceptionOfType(RedisConnectionException.class).isThrownBy(server::connect);
			server.start();
			assertThat(server.port()).isEqualTo(port);
			assertThat(ping(server)).isEqualTo("PONG");
		}
	}

	@Test
	void embeddedBinaryStartsWithPassword() {
		try (RedisTestServer server = RedisTestServers.local().embedded().password("s3cret").start()) {
			assertThat(server.source()).isEqualTo(RedisTestServer.Source.EMBEDDED);
			assertThat(ping(server)).isEqualTo("PONG");
			assertThat(server.uri().toString()).startsWith("redis://:s3cret@127.0.0.1:");
		}
	}

	private static String ping(RedisTestServer server) {
		try (StatefulRedisConnection<String, String> connection = server.connect()) {
			return connection.sync().ping();
		}
	}

}
