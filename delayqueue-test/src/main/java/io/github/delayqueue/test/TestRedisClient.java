package io.github.delayqueue.test;

import java.time.Duration;
import java.util.function.Function;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.jspecify.annotations.Nullable;

/**
 * The one Lettuce {@link RedisClient} of the test support, shared by the JVM. Its connections
 * fail at once when the server is gone (no reconnect) and wait 30 s for a reply.
 */
final class TestRedisClient {

	private static final RedisClient CLIENT = create();

	private TestRedisClient() {
	}

	private static RedisClient create() {
		RedisClient client = RedisClient.create();
		client.setOptions(ClientOptions.builder()
			.protocolVersion(ProtocolVersion.RESP2)
			.autoReconnect(false)
			.socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(2)).build())
			.build());
		return client;
	}

	/**
	 * Connects, and authenticates when a password is given.
	 * @throws io.lettuce.core.RedisConnectionException when the server cannot be reached
	 */
	static StatefulRedisConnection<String, String> connect(String host, int port, @Nullable String password) {
		RedisURI.Builder uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(Duration.ofSeconds(30));
		if (password != null) {
			uri.withPassword(password);
		}
		return CLIENT.connect(uri.build());
	}

	/**
	 * Runs commands on a connection of their own, closed afterwards.
	 */
	static <T> T call(RedisTestServer server, Function<RedisCommands<String, String>, T> commands) {
		try (StatefulRedisConnection<String, String> connection = server.connect()) {
			return commands.apply(connection.sync());
		}
	}

}
