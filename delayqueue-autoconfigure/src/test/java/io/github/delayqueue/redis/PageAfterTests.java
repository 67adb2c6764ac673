package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.zset.Tuple;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A page of a zset after a cursor (dead, finished and repair pages) finds the cursor by a
 * bisection within its score, whether or not the cursor's member is still there: the reads do
 * not grow with the entries that share the score.
 */
class PageAfterTests {

	private static final String PAGE = LuaScript.withIncludes("-- @include lib/page_after\n"
			+ "return page_after(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4] == '1')");

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void aCursorWhoseMemberLeftAmong50000EntriesOfItsScoreIsFoundWithAFewReads() {
		RedisConnectionFactory factory = this.queues.connectionFactory();
		byte[] key = bytes("{page-after-test}:entries");
		try (RedisConnection connection = factory.getConnection()) {
			connection.keyCommands().del(key);
			for (int from = 0; from < 50_000; from += 5_000) {
				Set<Tuple> tuples = new HashSet<>();
				for (int i = from; i < from + 5_000; i++) {
					tuples.add(Tuple.of(bytes(String.format("m%05d", i)), 7.0));
				}
				connection.zSetCommands().zAdd(key, tuples);
			}
			connection.zSetCommands().zAdd(key, 9, bytes("later"));
			connection.zSetCommands().zAdd(key, 3, bytes("earlier"));

			long before = reads(factory);
			// "m25000x" is no member: it sorts between m25000 and m25001
			assertThat(page(connection, key, "m25000x", false)).containsExactly("m25001", "m25002", "m25003");
			assertThat(page(connection, key, "m25000x", true)).containsExactly("m25000", "m24999", "m24998");
			// a member that is there, and the end of the score
			assertThat(page(connection, key, "m49999", false)).containsExactly("later");
			assertThat(page(connection, key, "m00000", true)).containsExactly("earlier");
			assertThat(reads(factory) - before).as("reads of four pages among 50,000 entries of one score")
				.isLessThanOrEqualTo(4 * 20);
			connection.keyCommands().del(key);
		}
	}

	private static List<String> page(RedisConnection connection, byte[] key, String after, boolean reversed) {
		List<?> reply = connection.scriptingCommands()
			.eval(PAGE.getBytes(StandardCharsets.UTF_8), ReturnType.MULTI, 1, key, bytes("3"), bytes("7"),
					bytes(after), bytes(reversed ? "1" : "0"));
		List<String> members = new ArrayList<>();
		for (int i = 0; i < reply.size(); i += 2) {
			members.add(new String((byte[]) reply.get(i), StandardCharsets.UTF_8));
		}
		return members;
	}

	/** The zset reads a page may make. */
	private static long reads(RedisConnectionFactory factory) {
		return List.of("zrange", "zrevrange", "zrangebyscore", "zrevrangebyscore", "zcount", "zrank", "zrevrank")
			.stream()
			.mapToLong((command) -> RedisStats.commandStat(factory, command, "calls"))
			.sum();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
