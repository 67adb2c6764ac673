package io.github.delayqueue.test;

import java.util.List;
import java.util.UUID;

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

	private RespConnection redis;

	@BeforeEach
	void connect() {
		this.redis = RespConnection.to(RedisTestServers.shared());
	}

	@AfterEach
	void close() {
		this.redis.close();
	}

	/** A consistent bucket: one job in each state, a tombstone, counts to match. */
	private void consistent() {
		// due = created + delay, in base 36: created 1000 ("rs"), delays 100 ("2s") and 0
		// t:r was replayed (its attempt after a '0') and keeps the error of its earlier life
		this.redis.call("HSET", this.bucket + "jobs", "t:d", "D,5,1o,rs,2s,\n{}", "t:r", "R0,5,1o,rs,0,\n{}", "t:s",
				"S1,5,1o,rs,0,7\n{}", "t:x", "X1,5,1o,rs,0,3\n{}", "t:t", "S2,5,1o,rs,0,6\n{}");
		this.redis.call("ZADD", this.bucket + "delayed", "1100", "t:d");
		this.redis.call("ZADD", this.bucket + "reserved", "5000", "t:s", "5000", "t:t");
		this.redis.call("ZADD", this.bucket + "dead:t", "4000", "t:x");
		this.redis.call("RPUSH", this.bucket + "ready:t", "t:gone", "t:r");
		this.redis.call("SET", this.bucket + "seq", "7");
		// errors of a job that died on its first attempt and of one reserved again after a failure
		this.redis.call("HSET", this.bucket + "errors", "t:x", "boom", "t:r", "earlier", "t:t", "again");
		this.redis.call("HSET", this.bucket + "stats", "D:t", "1", "R:t", "1", "S:t", "2", "X:t", "1", "T:t", "1");
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
		this.redis.call("ZREM", this.bucket + "delayed", "t:d");
		this.redis.call("ZADD", this.bucket + "reserved", "9", "t:r");
		this.redis.call("LREM", this.bucket + "ready:t", "0", "t:r");
		this.redis.call("HSET", this.bucket + "stats", "X:t", "2");
		this.redis.call("HSET", this.bucket + "errors", "t:nobody", "boom");
		// an error of a job on its first attempt, not replayed: its finish would leave it behind
		this.redis.call("HSET", this.bucket + "errors", "t:s", "boom");
		this.redis.call("HSET", this.bucket + "jobs", "t:bad", "something else");
		this.redis.call("SET", this.bucket + "guard", "1");
		// a list of priority 9 with an entry, and no sentinel naming it
		this.redis.call("RPUSH", this.bucket + "ready:t:9", "t:gone");
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
		this.redis.call("ZADD", this.bucket + "delayed", "1200", "t:d");
		this.redis.call("RPUSH", this.bucket + "ready:t", "t:gone-too");
		assertThat(violations()).anyMatch((v) -> v.contains("scores t:d at 1200 but it is due at 1100"))
			.anyMatch((v) -> v.contains("stats field T:t is 1 but the indexes hold 2"));
	}

	@Test
	void deathsOfATopicMayOutliveTheirJobsButNeverNameALaterDeath() {
		consistent();
		String deaths = "{" + this.namespace + "/done/t}:deaths";
		// t:x died at 4000: an entry at that time or before holds, and so does one of a job
		// replayed or cancelled since
		this.redis.call("ZADD", deaths, "4000", "t:x", "10", "t:gone");
		assertThat(violations()).isEmpty();
		this.redis.call("ZADD", deaths, "4001", "t:x", "20", "u:other");
		assertThat(violations()).anyMatch((v) -> v.contains("deaths of topic t: job t:x died at 4000, its entry says 4001"))
			.anyMatch((v) -> v.contains("deaths of topic t: job u:other is of another topic"));
		this.redis.call("SET", "{" + this.namespace + "/done/t}:other", "1");
		assertThat(violations()).anyMatch((v) -> v.contains("is not a key of the finished or dead jobs of a topic"));
	}

}
