package io.github.delayqueue.faults;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueHealthContributorAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.support.DeliveryCounter;
import io.github.delayqueue.support.SteadyProducer;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.lettuce.core.KillArgs;
import io.lettuce.core.api.async.RedisServerAsyncCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis faults in the middle of a run, with producers scheduling and listeners consuming: the
 * queue's connections killed, Redis paused, asleep, and crashed ({@code SIGKILL}) with
 * {@code appendfsync always}. Every acknowledged job is delivered,
 * the loops resume on their own, and health shows the stall while it lasts.
 */
class RedisFaultTests {

	private RedisTestServer redis;

	private LettuceConnectionFactory admin;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
				DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
				HealthContributorAutoConfiguration.class, DelayQueueHealthContributorAutoConfiguration.class))
		.withBean(DeliveryCounter.class)
		.withPropertyValues("delayqueue.namespace=faults", "delivery-counter.topic=faults", "delayqueue.buckets=4", "delayqueue.timer.lease-ttl=2s",
				"delayqueue.health.max-stall=2s", "spring.data.redis.timeout=1s",
				// a reserve whose reply is lost to a timeout leaves its jobs RESERVED until their TTR
				"delayqueue.default-ttr=3s");

	@BeforeEach
	void startRedis() {
		this.redis = RedisTestServers.local().start();
		if (serverMajorVersion() >= 7) {
			// DEBUG is off by default since Redis 7
			this.redis.close();
			this.redis = RedisTestServers.local().argument("--enable-debug-command", "local").start();
		}
		this.admin = TestConnections.lettuce(this.redis, Duration.ofSeconds(10));
	}

	@AfterEach
	void stopRedis() {
		this.admin.destroy();
		this.redis.close();
	}

	@Test
	void killedConnectionsReconnectAndResume() {
		run("3 × CLIENT KILL TYPE normal + pubsub", (context, faults) -> {
			for (int i = 0; i < 3; i++) {
				faults.pause(Duration.ofMillis(700));
				killClients(KillArgs.Builder.typeNormal());
				killClients(KillArgs.Builder.typePubsub());
			}
		});
	}

	@Test
	void aPausedRedisIsShownInHealthAndWorkResumes() {
		run("CLIENT PAUSE 5000 ALL", (context, faults) -> {
			faults.pause(Duration.ofSeconds(1));
			DelayQueueHealthIndicator health = context.getBean(DelayQueueHealthIndicator.class);
			assertThat(health.health(false).getStatus()).isEqualTo(Status.UP);
			admin((connection) -> connection.execute("CLIENT", bytes("PAUSE", "5000", "ALL")));
			await().atMost(Duration.ofSeconds(4)).until(() -> health.health(false).getStatus().equals(Status.DOWN));
			await().atMost(Duration.ofSeconds(15)).until(() -> health.health(false).getStatus().equals(Status.UP));
		});
	}

	@Test
	void aSleepingRedisIsShownInHealthAndWorkResumes() {
		run("DEBUG SLEEP 3", (context, faults) -> {
			faults.pause(Duration.ofSeconds(1));
			DelayQueueHealthIndicator health = context.getBean(DelayQueueHealthIndicator.class);
			Thread sleeper = new Thread(() -> admin((connection) -> connection.execute("DEBUG", bytes("SLEEP", "3"))));
			sleeper.start();
			await().atMost(Duration.ofSeconds(3)).until(() -> health.health(false).getStatus().equals(Status.DOWN));
			await().atMost(Duration.ofSeconds(15)).until(() -> health.health(false).getStatus().equals(Status.UP));
			sleeper.join();
		});
	}

	@Test
	void aCrashedRedisWithEveryWriteFsyncedLosesNoAcknowledgedJob() {
		this.admin.destroy();
		this.redis.close();
		this.redis = RedisTestServers.local().appendOnly().start();
		this.admin = TestConnections.lettuce(this.redis, Duration.ofSeconds(10));
		run("SIGKILL + restart, appendfsync always", (context, faults) -> {
			faults.pause(Duration.ofSeconds(1));
			// SIGKILL: no shutdown, nothing written at exit; the append-only file has every write
			this.redis.kill();
			faults.pause(Duration.ofSeconds(1));
			this.redis.start();
		});
	}

	/**
	 * Producers schedule jobs due within 2 s for about 6 s while the fault is injected; then
	 * every job whose schedule returned must be delivered.
	 */
	private void run(String fault, Fault injection) {
		this.runner.withPropertyValues(this.redis.springBootProperties())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				SteadyProducer producer = new SteadyProducer(template, "faults", Duration.ofSeconds(2));
				injection.inject(context, new Faults());
				SteadyProducer.pause(Duration.ofSeconds(2));
				producer.close();
				Set<String> acknowledged = producer.acknowledged();

				DeliveryCounter listener = context.getBean(DeliveryCounter.class);
				await().atMost(Duration.ofSeconds(30))
					.untilAsserted(() -> assertThat(listener.received.keySet()).containsAll(acknowledged));
				long duplicates = SteadyProducer.duplicates(listener.received);
				RedisDelayQueue queue = context.getBean(RedisDelayQueue.class);
				System.out.println("faults, " + fault + ": " + acknowledged.size() + " jobs acknowledged, " + producer.refused()
						+ " schedules refused, " + duplicates + " delivered more than once");
				assertThat(acknowledged).as("schedules acknowledged during the run").hasSizeGreaterThan(100);
				assertThat(queue.isSubscribed()).isTrue();
				// after the faults, new work still flows
				template.schedule("faults", "after", "after", Duration.ofMillis(100));
				await().atMost(Duration.ofSeconds(5)).until(() -> listener.received.containsKey("after"));
			});
		// the application stopped: whatever the fault interrupted, every job is in its index
		QueueInvariant.assertHolds(this.redis, "faults", 4);
	}

	@FunctionalInterface
	interface Fault {

		void inject(AssertableApplicationContext context, Faults faults) throws Exception;

	}

	static final class Faults {

		void pause(Duration duration) {
			SteadyProducer.pause(duration);
		}

	}

	private void admin(java.util.function.Consumer<RedisConnection> action) {
		try (RedisConnection connection = this.admin.getConnection()) {
			action.accept(connection);
		}
	}

	@SuppressWarnings("unchecked")
	private void killClients(KillArgs which) {
		admin((connection) -> {
			try {
				long killed = ((RedisServerAsyncCommands<byte[], byte[]>) connection.getNativeConnection())
					.clientKill(which)
					.get(10, TimeUnit.SECONDS);
				assertThat(killed).isPositive();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	private int serverMajorVersion() {
		LettuceConnectionFactory probe = TestConnections.lettuce(this.redis, Duration.ofSeconds(5));
		try (RedisConnection connection = probe.getConnection()) {
			String version = connection.serverCommands().info("server").getProperty("redis_version");
			return Integer.parseInt(version.substring(0, version.indexOf('.')));
		}
		finally {
			probe.destroy();
		}
	}

	private static byte[][] bytes(String... words) {
		byte[][] result = new byte[words.length][];
		for (int i = 0; i < words.length; i++) {
			result[i] = words[i].getBytes();
		}
		return result;
	}


}
