package io.github.delayqueue.security;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.listener.JobOutcome;
import io.github.delayqueue.listener.JobOutcomeStream;
import io.github.delayqueue.redis.RedisJobOutcomeStream;
import io.github.delayqueue.support.EveryOperation;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.api.async.RedisAclAsyncCommands;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The queue behind Redis's access control: a password, and an ACL user that may touch only
 * the namespace's keys and channel with only the commands the scripts use (the line the
 * README documents).
 */
class RedisSecurityTests {

	/**
	 * The README's ACL rules for namespace {@code secure}, after the user name.
	 */
	static final String ACL_RULES = "on >acl-s3cret resetkeys ~{secure}:* ~{secure:[0-9]}:* ~{secure:[0-9][0-9]}:*"
			+ " ~{secure:[0-9][0-9][0-9]}:* ~{secure:[0-9][0-9][0-9][0-9]}:* ~{secure:[0-9][0-9][0-9][0-9][0-9]}:*"
			+ " ~{secure/* resetchannels &secure:events &secure:outcomes -@all +hello +auth +ping +info +subscribe +unsubscribe"
			+ " +evalsha +eval +wait +client|info +time +publish +hget +hmget +hset +hsetnx +hdel +hgetall +hincrby +hscan +scan"
			+ " +del +get +incrby +pexpire +hlen +llen +lpop +lpush +lset +rpush +lrange +ltrim +zadd +zcard +zcount"
			+ " +zmscore +zrange"
			+ " +zrangebyscore +zrank +zrem +zremrangebyrank +zremrangebyscore +zrevrange +zrevrangebyscore +zrevrank +zscore";

	private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = EveryOperation.runner("secure", 4);

	static class Untrusted {

		final BlockingQueue<Object> received = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "untrusted-map")
		void map(Map<String, Object> payload) {
			this.received.add(payload);
		}

		@DelayedListener(topic = "untrusted-list")
		void list(List<Object> payload) {
			this.received.add(payload);
		}

		@DelayedListener(topic = "untrusted-object")
		void object(Object payload) {
			this.received.add(payload);
		}

		@DelayedListener(topic = "untrusted-order")
		void order(Order payload) {
			this.received.add(payload);
		}

	}

	record Order(String id) {
	}

	@Test
	void aPayloadNamingAClassIsReadAsPlainData() {
		String classProperty = "{\"@class\":\"java.lang.ProcessBuilder\",\"command\":[\"touch\",\"/tmp/pwned\"],\"id\":\"o-1\"}";
		String typeWrapper = "[\"java.net.URL\",\"http://attacker.example/\"]";
		this.runner.withPropertyValues(redisProperties(RedisTestServers.shared()))
			.withPropertyValues("delayqueue.namespace=typing" + System.nanoTime())
			.withBean(Untrusted.class)
			.run((context) -> {
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				BlockingQueue<Object> received = context.getBean(Untrusted.class).received;

				// maps, lists and strings, never the type the data names (no default typing)
				template.schedule("untrusted-map", "m", classProperty, Duration.ZERO);
				assertThat(received.poll(10, TimeUnit.SECONDS)).isInstanceOf(LinkedHashMap.class)
					.asInstanceOf(InstanceOfAssertFactories.MAP)
					.containsEntry("@class", "java.lang.ProcessBuilder");
				template.schedule("untrusted-list", "l", typeWrapper, Duration.ZERO);
				assertThat(received.poll(10, TimeUnit.SECONDS)).asInstanceOf(InstanceOfAssertFactories.LIST)
					.containsExactly("java.net.URL", "http://attacker.example/");
				// an Object parameter is not converted at all: the stored bytes
				template.schedule("untrusted-object", "o", classProperty, Duration.ZERO);
				assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo(classProperty.getBytes(StandardCharsets.UTF_8));
				// a typed parameter reads its own fields; the "@class" property is ignored
				template.schedule("untrusted-order", "r", classProperty, Duration.ZERO);
				assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo(new Order("o-1"));
			});
	}

	@Test
	void everythingWorksWithAPassword() {
		try (RedisTestServer redis = RedisTestServers.local().password("pass-w0rd").start()) {
			this.runner.withPropertyValues(redisProperties(redis))
				.withPropertyValues("spring.data.redis.password=pass-w0rd")
				.run(EveryOperation::exercise);
		}
	}

	@Test
	void everythingWorksAsAnAclUserLimitedToTheNamespace() throws Exception {
		try (RedisTestServer redis = RedisTestServers.local().password("admin-pass").start()) {
			LettuceConnectionFactory admin = TestConnections.lettuce(redis, ADMIN_TIMEOUT);
			try {
				List<String> rules = new ArrayList<>(List.of("SETUSER", "delayqueue"));
				rules.addAll(List.of(ACL_RULES.split(" ")));
				admin.getConnection().execute("ACL", bytes(rules));
				this.runner.withPropertyValues(redisProperties(redis))
					.withPropertyValues("spring.data.redis.username=delayqueue",
							"spring.data.redis.password=acl-s3cret", "delayqueue.listener.outcome-stream=true")
					.run((context) -> {
						EveryOperation.exercise(context);
						// the outcome stream publishes and subscribes on the namespace's second channel
						CompletableFuture<JobOutcome> done = context.getBean(JobOutcomeStream.class)
							.whenDone(EveryOperation.TOPIC, "acl-outcome");
						context.getBean(DelayedJobTemplate.class)
							.schedule(EveryOperation.TOPIC, "acl-outcome", Map.of("n", 9), Duration.ZERO);
						assertThat(done.get(10, TimeUnit.SECONDS).outcome()).isEqualTo("success");
						assertThat(context.getBean(RedisJobOutcomeStream.class).getDropped()).isZero();
						// nothing the queue did was refused but optional commands: the CONFIG GET of
						// the start-up report of persistence settings, the CLIENT SETINFO Lettuce
						// sends on connect ("config" and "client" on Redis 6.2)
						assertThat(refusedCommands(admin)).as("ACL LOG")
							.allMatch((object) -> object.startsWith("config") || object.startsWith("client"));
						// the restriction is real: other keys, commands and channels are refused (GET
						// is allowed, for the rate limits' counter: its key is refused)
						var connection = context.getBean(LettuceConnectionFactory.class).getConnection();
						assertThatThrownBy(() -> connection.stringCommands().get("other:key".getBytes()))
							.rootCause().hasMessageContaining("NOPERM");
						// a namespace that only starts like this one ("secure:x") is not this one's
						assertThatThrownBy(() -> connection.hashCommands().hGet("{secure:x:1}:jobs".getBytes(), "k".getBytes()))
							.rootCause().hasMessageContaining("NOPERM");
						assertThatThrownBy(() -> connection.hashCommands().hGet("{secure:1x}:jobs".getBytes(), "k".getBytes()))
							.rootCause().hasMessageContaining("NOPERM");
						// delayqueue.redis.wait-replicas sends WAIT
						var commands = (io.lettuce.core.api.async.RedisAsyncCommands<?, ?>) connection.getNativeConnection();
						assertThat(commands.waitForReplication(0, 0).get()).isZero();
						assertThat(commands.clientInfo().get()).contains("laddr=");
						assertThatThrownBy(() -> connection.serverCommands().flushAll()).rootCause().hasMessageContaining("NOPERM");
						assertThatThrownBy(() -> connection.publish("other".getBytes(), "x".getBytes()))
							.rootCause().hasMessageContaining("NOPERM");
						connection.close();
					});
				assertThat(refusedCommands(admin)).as("ACL LOG")
					.contains("other:key", "{secure:x:1}:jobs", "{secure:1x}:jobs", "flushall", "other");
			}
			finally {
				admin.destroy();
			}
		}
	}

	@Test
	void everythingWorksOverTls(@TempDir Path directory) throws Exception {
		TestCertificates certificates = TestCertificates.create(directory);
		int tlsPort = TestConnections.freePort();
		try (RedisTestServer redis = RedisTestServers.local()
			.argument("--tls-port", String.valueOf(tlsPort), "--tls-cert-file",
					certificates.serverCertificate().toString(), "--tls-key-file", certificates.serverKey().toString(),
					"--tls-ca-cert-file", certificates.caCertificate().toString(), "--tls-auth-clients", "no")
			.start()) {
			this.runner
				.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=localhost", "spring.data.redis.port=" + tlsPort,
						"spring.data.redis.timeout=5s", "spring.data.redis.ssl.enabled=true",
						"spring.data.redis.ssl.bundle=redis-test",
						"spring.ssl.bundle.pem.redis-test.truststore.certificate=file:" + certificates.caCertificate())
				.run((context) -> {
					EveryOperation.exercise(context);
					// the queue's connections came in on the TLS port
					LettuceConnectionFactory admin = TestConnections.lettuce(redis, ADMIN_TIMEOUT);
					try {
						String list = String.valueOf(admin.getConnection().execute("CLIENT", "LIST".getBytes()));
						assertThat(list.lines().filter((line) -> line.contains("laddr=127.0.0.1:" + tlsPort)))
							.as(list)
							.isNotEmpty();
					}
					finally {
						admin.destroy();
					}
				});
		}
	}

	static String[] redisProperties(RedisTestServer redis) {
		return new String[] { "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"spring.data.redis.timeout=5s" };
	}

	/**
	 * What {@code ACL LOG} recorded as refused: the command, or the key or channel.
	 */
	@SuppressWarnings("unchecked")
	static List<String> refusedCommands(LettuceConnectionFactory admin) throws Exception {
		var connection = admin.getConnection();
		try {
			return ((RedisAclAsyncCommands<byte[], byte[]>) connection.getNativeConnection()).aclLog()
				.get(5, TimeUnit.SECONDS)
				.stream()
				.map((entry) -> String.valueOf(entry.get("object")))
				.toList();
		}
		finally {
			connection.close();
		}
	}

	private static byte[][] bytes(List<String> words) {
		return words.stream().map(String::getBytes).toArray(byte[][]::new);
	}

}
