package io.github.delayqueue.test;

import java.io.IOException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

@ExtendWith(RedisTestExtension.class)
class RedisTestServersTests {

	@Test
	void sharedServerAnswersPing(RedisTestServer redis) throws IOException {
		assertThat(Resp.ping(redis.host(), redis.port(), redis.password())).isEqualTo("+PONG");
		assertThat(RedisTestServers.shared()).isSameAs(redis);
	}

	@Test
	void localServerStopsAndStartsOnTheSamePort() throws IOException {
		try (RedisTestServer server = RedisTestServers.local().appendOnly().start()) {
			assertThat(server.isManaged()).isTrue();
			int port = server.port();
			server.stop();
			assertThatIOException().isThrownBy(() -> Resp.ping(server.host(), port, null));
			server.start();
			assertThat(server.port()).isEqualTo(port);
			assertThat(Resp.ping(server.host(), port, null)).isEqualTo("+PONG");
		}
	}

	@Test
	void embeddedBinaryStartsWithPassword() throws IOException {
		try (RedisTestServer server = RedisTestServers.local().embedded().password("s3cret").start()) {
			assertThat(server.source()).isEqualTo(RedisTestServer.Source.EMBEDDED);
			assertThat(Resp.ping(server.host(), server.port(), "s3cret")).isEqualTo("+PONG");
			assertThat(server.uri().toString()).startsWith("redis://:s3cret@127.0.0.1:");
		}
	}

}
