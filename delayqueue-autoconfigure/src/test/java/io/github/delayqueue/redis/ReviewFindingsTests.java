package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reproductions of review findings on h16-engine. Each test is expected to FAIL on the
 * reviewed code: it asserts the behaviour the project promises.
 */
class ReviewFindingsTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static List<ScheduleRequest> requests(String topic, int count) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			requests.add(request(topic, "job-" + i, "{}", Duration.ZERO));
		}
		return requests;
	}

	/**
	 * repair.lua finds the topics of a bucket only from the fields of the stats hash and from
	 * the job records. A ready list that holds only tombstones, whose topic has no field left
	 * (data of the previous version, which did not count tombstones; or a lost/edited stats
	 * field), is never read: repair reports a clean bucket and the invariant
	 * LLEN(ready) = R + T stays broken. Same for a dead:<topic> zset whose entries have no
	 * record and no count.
	 */
	@Test
	void repairFindsReadyListsAndDeadListsOfTopicsWithoutCountsOrRecords() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.scheduleAll(requests("cancelled", 2));
		assertThat(queue.cancel("cancelled", "job-0")).isTrue();
		assertThat(queue.cancel("cancelled", "job-1")).isTrue();
		// as the previous version left it: the tombstones were not counted
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			String prefix = "{" + queue.getNamespace() + ":0}:";
			connection.hashCommands().hDel(bytes(prefix + "stats"), bytes("T:cancelled"));
			// and a dead-list entry whose record and count were lost
			connection.zSetCommands().zAdd(bytes(prefix + "dead:lost"), 1, bytes("lost:job"));
		}
		RepairResult found = queue.repair(true);
		System.out.println("repair: " + found);
		List<String> violations = QueueInvariant.violations(RedisTestServers.shared(), queue.getNamespace(), 1);
		assertThat(violations).as("the invariant after repair(true)").isEmpty();
	}

	/**
	 * The guard re-check compacts every topic of the bucket whose tombstones qualify, each up
	 * to COMPACT_WINDOW (10,000) entries, in ONE promote call: the work of one script grows
	 * with the number of such topics, not with its arguments (50 topics x 10,000 tombstones
	 * blocked a local Redis for ~160 ms in one EVAL; 500 topics would block it for seconds).
	 */
	@Test
	void oneGuardPromoteCompactsAtMostOneWindowOfEntries() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		int topics = 3;
		int perTopic = 4_000;
		for (int t = 0; t < topics; t++) {
			queue.scheduleAll(requests("t" + t, perTopic));
			for (int i = 0; i < perTopic; i++) {
				queue.cancel("t" + t, "job-" + i);
			}
		}
		long before = totalLength(queue, topics);
		assertThat(before).isEqualTo((long) topics * perTopic);
		KeySpace keys = new KeySpace(queue.getNamespace(), 1);
		ScriptRunner runner = new ScriptRunner(queue.getConnectionFactory());
		runner.run(LuaScript.job("promote"), new byte[][] { keys.jobs(0), keys.guard(0), bytes(keys.channel()),
				bytes("0"), bytes("500"), bytes("1") });
		long after = totalLength(queue, topics);
		assertThat(before - after).as("ready-list entries one guard promote call read and dropped")
			.isLessThanOrEqualTo(10_000);
	}

	private long totalLength(RedisDelayQueue queue, int topics) {
		long total = 0;
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			for (int t = 0; t < topics; t++) {
				total += connection.listCommands().lLen(bytes("{" + queue.getNamespace() + ":0}:ready:t" + t));
			}
		}
		return total;
	}


}
