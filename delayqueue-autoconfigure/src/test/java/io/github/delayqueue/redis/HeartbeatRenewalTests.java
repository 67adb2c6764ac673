package io.github.delayqueue.redis;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The beat between coordinations ({@link QueueScripts#renew}) against a real Redis: it
 * extends a heartbeat that is there, and asks for a coordination when its own heartbeat is
 * gone or another one ran out, so that a crashed instance's buckets are still taken over
 * within the heartbeat TTL plus one beat.
 */
class HeartbeatRenewalTests {

	private static final Duration TTL = Duration.ofSeconds(5);

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private QueueScripts a;

	private KeySpace keys;

	@BeforeEach
	void scripts() {
		this.keys = new KeySpace(this.queues.namespace, 4);
		this.a = scripts("a");
	}

	@AfterEach
	void noInvariantToCheck() {
		this.queues.skipInvariant("no jobs: only heartbeats");
	}

	@Test
	void aRenewalExtendsAHeartbeatThatIsThereWhileNoneRanOut() {
		this.a.coordinate(TTL, false);
		TimerBackend.Coordination other = scripts("b").coordinate(TTL, false);
		long now = other.redisMillis() + 1000;
		// b's heartbeat is now the earliest: none runs out before it
		assertThat(this.a.renew(TTL, now, true)).isEqualTo(heartbeat("b").longValue())
			.isGreaterThanOrEqualTo(other.redisMillis() + TTL.toMillis());
		assertThat(heartbeat("a")).isEqualTo(now + TTL.toMillis());
	}

	@Test
	void aRenewalNotAskedForTheEarliestExpirySendsTheRenewalAlone() {
		TimerBackend.Coordination joined = this.a.coordinate(TTL, false);
		// 0: renewed, and nothing read
		assertThat(this.a.renew(TTL, joined.redisMillis() + 100, false)).isZero();
		assertThat(heartbeat("a")).isEqualTo(joined.redisMillis() + 100 + TTL.toMillis());
	}

	@Test
	void aRenewalOfAHeartbeatThatWasRemovedAsksForACoordinationAndAddsNothing() {
		TimerBackend.Coordination joined = this.a.coordinate(TTL, false);
		this.a.coordinate(TTL, true);
		assertThat(this.a.renew(TTL, joined.redisMillis() + 100, true)).isEqualTo(-1);
		assertThat(this.a.renew(TTL, joined.redisMillis() + 100, false)).isEqualTo(-1);
		assertThat(heartbeat("a")).isNull();
	}

	@Test
	void aRenewalThatSeesAnotherHeartbeatRunOutAsksForACoordination() {
		TimerBackend.Coordination joined = this.a.coordinate(TTL, false);
		scripts("b").coordinate(TTL, false);
		// b crashed: its heartbeat ran out a millisecond before a's estimate of now
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.zSetCommands().zAdd(this.keys.instances(), joined.redisMillis() - 1, KeySpace.bytes("b"));
		}
		assertThat(this.a.renew(TTL, joined.redisMillis(), true)).isEqualTo(-1);
		// the coordination it asks for removes b and gives every bucket to a
		TimerBackend.Coordination coordination = this.a.coordinate(TTL, false);
		assertThat(coordination.liveInstances()).isEqualTo(1);
		assertThat(coordination.buckets()).containsExactly(0, 1, 2, 3);
	}

	private QueueScripts scripts(String instance) {
		return new QueueScripts(new ScriptRunner(this.queues.connectionFactory()), this.keys, instance);
	}

	private Double heartbeat(String instance) {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			return connection.zSetCommands().zScore(this.keys.instances(), KeySpace.bytes(instance));
		}
	}

}
