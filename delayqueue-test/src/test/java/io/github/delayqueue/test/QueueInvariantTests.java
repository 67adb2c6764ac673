package io.github.delayqueue.test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The invariant checker on namespaces written by hand: it passes a consistent one and names
 * each kind of break.
 */
class QueueInvariantTests {

	private final String namespace = "inv" + UUID.randomUUID().toString().substring(0, 8);

	private final String bucket = "{" + this.namespace + ":0}:";

	private StatefulRedisConnection<String, String> connection;

	private RedisCommands<String, String> redis;

	@BeforeEach
	void connect() {
		this.connection = RedisTestServers.shared().connect();
		this.redis = this.connection.sync();
	}

	@AfterEach
	void close() {
		this.connection.close();
	}

	/** A consistent bucket: one job in each state, a tombstone, counts to match. */
	private void consistent() {
		// due = created + delay, in base 36: created 1000 ("rs"), delays 100 ("2s") and 0
		// t:r was replayed (its attempt after a '0') and keeps the error of its earlier life
		this.redis.hset(this.bucket + "jobs", Map.of("t:d", "D,5,1o,rs,2s,\n{}", "t:r", "R0,5,1o,rs,0,\n{}", "t:s",
				"S1,5,1o,rs,0,7\n{}", "t:x", "X1,5,1o,rs,0,3\n{}", "t:t", "S2,5,1o,rs,0,6\n{}"));
		this.redis.zadd(this.bucket + "delayed", 1100d, "t:d");
		this.redis.zadd(this.bucket + "reserved", 5000d, "t:s", 5000d, "t:t");
		this.redis.zadd(this.bucket + "dead:t", 4000d, "t:x");
		this.redis.rpush(this.bucket + "ready:t", "t:gone", "t:r");
		this.redis.set(this.bucket + "seq", "7");
		// errors of a job that died on its first attempt and of one reserved again after a failure
		this.redis.hset(this.bucket + "errors", Map.of("t:x", "boom", "t:r", "earlier", "t:t", "again"));
		this.redis.hset(this.bucket + "stats", Map.of("D:t", "1", "R:t", "1", "S:t", "2", "X:t", "1", "T:t", "1"));
	}

	private List<String> violations() {
		return QueueInvariant.violations(RedisTestServers.shared(), this.namespace, 1);
	}

	@Test
	void aConsistentNamespaceHolds() {
		consistent();
		assertThat(violations()).isEmpty();
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.namespace, 1);
	}

	@Test
	void eachKindOfBreakIsNamed() {
		consistent();
		this.redis.zrem(this.bucket + "delayed", "t:d");
		this.redis.zadd(this.bucket + "reserved", 9d, "t:r");
		this.redis.lrem(this.bucket + "ready:t", 0, "t:r");
		this.redis.hset(this.bucket + "stats", "X:t", "2");
		this.redis.hset(this.bucket + "errors", "t:nobody", "boom");
		// an error of a job on its first attempt, not replayed: its finish would leave it behind
		this.redis.hset(this.bucket + "errors", "t:s", "boom");
		this.redis.hset(this.bucket + "jobs", "t:bad", "something else");
		this.redis.set(this.bucket + "guard", "1");
		// a list of priority 9 with an entry, and no sentinel naming it
		this.redis.rpush(this.bucket + "ready:t:9", "t:gone");
		assertThat(violations()).anyMatch((v) -> v.contains("job t:d is D but not in"))
			.anyMatch((v) -> v.contains("reserved holds t:r, which is R not S"))
			.anyMatch((v) -> v.contains("READY job t:r of priority 5 is not in the ready list of its priority"))
			.anyMatch((v) -> v.contains("with entries are of priorities [9], but the sentinel of its first list is null"))
			.anyMatch((v) -> v.contains("stats field X:t is 2 but the indexes hold 1"))
			.anyMatch((v) -> v.contains("an error is kept for t:nobody"))
			.anyMatch((v) -> v.contains("an error is kept for t:s (S, attempt 1), which its finish would leave behind"))
			.anyMatch((v) -> v.contains("job t:bad has an unreadable record"))
			.anyMatch((v) -> v.contains("the guard key exists"));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> QueueInvariant.assertHolds(RedisTestServers.shared(), this.namespace, 1))
			.withMessageContaining("does not hold");
	}

	@Test
	void aWrongDueScoreAndAMiscountedTombstoneAreNamed() {
		consistent();
		this.redis.zadd(this.bucket + "delayed", 1200d, "t:d");
		this.redis.rpush(this.bucket + "ready:t", "t:gone-too");
		assertThat(violations()).anyMatch((v) -> v.contains("scores t:d at 1200 but it is due at 1100"))
			.anyMatch((v) -> v.contains("stats field T:t is 1 but the indexes hold 2"));
	}

	@Test
	void deathsOfATopicMayOutliveTheirJobsButNeverNameALaterDeath() {
		consistent();
		String deaths = "{" + this.namespace + "/done/t}:deaths";
		// t:x died at 4000: an entry at that time or before holds, and so does one of a job
		// replayed or cancelled since
		this.redis.zadd(deaths, 4000d, "t:x", 10d, "t:gone");
		assertThat(violations()).isEmpty();
		this.redis.zadd(deaths, 4001d, "t:x", 20d, "u:other");
		assertThat(violations()).anyMatch((v) -> v.contains("deaths of topic t: job t:x died at 4000, its entry says 4001"))
			.anyMatch((v) -> v.contains("deaths of topic t: job u:other is of another topic"));
		this.redis.set("{" + this.namespace + "/done/t}:other", "1");
		assertThat(violations()).anyMatch((v) -> v.contains("is not a key of the finished or dead jobs of a topic"));
	}

}
