package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.PayloadConversionException;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Every rule of {@link io.github.delayqueue.core.JobConstraints} on the public entry points:
 * an {@link IllegalArgumentException} naming the field and the rule, and Redis unchanged.
 */
@ExtendWith(RedisTestExtension.class)
class DelayedJobTemplateValidationTests {

	private RedisQueues queues;

	private RedisDelayQueue queue;

	private DelayedJobTemplate template;

	private Map<String, String> before;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.queues = new RedisQueues(redis);
		// not started: no timer writes heartbeats while Redis is compared
		this.queue = this.queues.create((builder) -> builder.maxPayloadSize(DataSize.ofKilobytes(1)));
		this.template = new DelayedJobTemplate(this.queue, new JacksonJobPayloadConverter(JsonMapper.builder().build()));
		this.template.schedule("existing", "1", "{\"a\":1}", Duration.ZERO);
		this.template.schedule("existing", "2", "{\"a\":2}", Duration.ofMinutes(5));
		this.before = this.queues.bucketSnapshot();
		assertThat(this.before).isNotEmpty();
	}

	@AfterEach
	void tearDown() {
		assertThat(this.queues.bucketSnapshot()).as("Redis after rejected calls").isEqualTo(this.before);
		this.queues.close();
	}

	private void rejects(ThrowingCallable call, String... messageParts) {
		assertThatIllegalArgumentException().isThrownBy(call).withMessageContainingAll(messageParts);
	}

	@Test
	void topicMustBeShortAndOfTheTopicAlphabet() {
		rejects(() -> this.template.schedule(null, "1", "x", Duration.ZERO), "topic", "must not be empty");
		rejects(() -> this.template.schedule("", "1", "x", Duration.ZERO), "topic", "must not be empty");
		rejects(() -> this.template.schedule("t".repeat(101), "1", "x", Duration.ZERO), "topic",
				"at most 100 characters");
		for (String bad : List.of("a:b", "a b", "{x}", "-start", "caf\u00e9", "a*", "x\n")) {
			rejects(() -> this.template.schedule(bad, "1", "x", Duration.ZERO), "topic", "may only contain");
		}
		rejects(() -> this.template.cancel("a:b", "1"), "topic");
		rejects(() -> this.template.find("", "1"), "topic");
		rejects(() -> this.queue.replayDeadJobs("a b", 5), "topic");
		rejects(() -> this.queue.reserve("{x}", 5, null), "topic");
	}

	@Test
	void idMustNotBeBlankLongOrContainControlCharacters() {
		rejects(() -> this.template.schedule("t", null, "x", Duration.ZERO), "id", "must not be blank");
		rejects(() -> this.template.schedule("t", "  ", "x", Duration.ZERO), "id", "must not be blank");
		rejects(() -> this.template.schedule("t", "i".repeat(201), "x", Duration.ZERO), "id",
				"at most 200 characters");
		rejects(() -> this.template.schedule("t", "a\nb", "x", Duration.ZERO), "id", "control characters");
		rejects(() -> this.template.cancel("t", ""), "id");
		rejects(() -> this.template.find("t", "\u0000"), "id");
		rejects(() -> this.template.reschedule("t", " ", Duration.ZERO), "id");
	}

	@Test
	void payloadMustBePresentAndSmallEnough() {
		rejects(() -> this.template.schedule("t", "1", null, Duration.ZERO), "payload", "must not be null");
		rejects(() -> this.template.schedule("t", "1", "x".repeat(1025), Duration.ZERO), "payload",
				"at most 1024 bytes", "delayqueue.max-payload-size");
		rejects(() -> this.template.scheduleAll(List.of(this.template.job("t", "ok").payload("x").delay(Duration.ZERO),
				this.template.job("t", "big").payload(new byte[2048]).delay(Duration.ZERO))), "payload", "at most");
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> this.template.schedule("t", "1", new Unwritable(), Duration.ZERO))
			.withMessageContaining(Unwritable.class.getName());
	}

	@Test
	void payloadWithoutPropertiesIsRefusedNamingItsClass() {
		JacksonJobPayloadConverter lenient = new JacksonJobPayloadConverter(
				JsonMapper.builder().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS).build());
		for (DelayedJobTemplate template : List.of(this.template, new DelayedJobTemplate(this.queue, lenient))) {
			assertThatExceptionOfType(PayloadConversionException.class)
				.isThrownBy(() -> template.schedule("t", "1", new Empty(), Duration.ZERO))
				.withMessageContainingAll(Empty.class.getName(), "no properties");
		}
	}

	@Test
	void delayAndDueAtMustBeInRange() {
		rejects(() -> this.template.schedule("t", "1", "x", null), "delay", "must not be null");
		rejects(() -> this.template.schedule("t", "1", "x", Duration.ofDays(36_501)), "delay",
				"between -P36500D and P36500D, was P36501D");
		rejects(() -> this.template.schedule("t", "1", "x", Duration.ofSeconds(Long.MAX_VALUE)), "delay");
		rejects(() -> this.template.schedule("t", "1", "x", Duration.ofSeconds(Long.MIN_VALUE)), "delay");
		rejects(() -> this.template.scheduleAt("t", "1", "x", null), "dueAt", "must not be null");
		rejects(() -> this.template.scheduleAt("t", "1", "x", Instant.parse("1969-12-31T23:59:59Z")), "dueAt",
				"between");
		rejects(() -> this.template.scheduleAt("t", "1", "x", Instant.MAX), "dueAt", "between");
		rejects(() -> this.template.job("t", "1").payload("x").schedule(), "delay or dueAt must be given");
		rejects(() -> this.template.reschedule("existing", "2", Duration.ofDays(40_000)), "delay");
		rejects(() -> this.template.rescheduleAt("existing", "2", Instant.MIN), "dueAt");
	}

	@Test
	void ttrMustBePositiveWholeMillisecondsUpToSevenDays() {
		rejects(() -> this.template.job("t", "1").ttr(Duration.ZERO), "ttr", "between PT0.001S and P7D");
		rejects(() -> this.template.job("t", "1").ttr(Duration.ofSeconds(-5)), "ttr", "between PT0.001S and P7D");
		rejects(() -> this.template.job("t", "1").ttr(Duration.ofNanos(999)), "ttr", "between PT0.001S and P7D");
		rejects(() -> this.template.job("t", "1").ttr(Duration.ofDays(8)), "ttr", "between PT0.001S and P7D, was P8D");
		rejects(() -> this.template.job("t", "1").ttr(null), "ttr", "must not be null");
		rejects(() -> this.queue.reserve("existing", 1, Duration.ZERO), "ttr");
	}

	@Test
	void maxAttemptsMustBeAtLeastOne() {
		rejects(() -> this.template.job("t", "1").maxAttempts(0), "maxAttempts", "between 1 and");
		rejects(() -> this.template.job("t", "1").maxAttempts(-3), "maxAttempts");
		rejects(() -> this.template.job("t", "1").maxAttempts(1_000_001), "maxAttempts");
	}

	@Test
	void consumerArgumentsAreChecked() {
		rejects(() -> this.queue.reserve("existing", 0, null), "max", "between 1 and 10000");
		rejects(() -> this.queue.reserve("existing", 10_001, null), "max");
		rejects(() -> this.queue.replayDeadJobs("existing", 0), "max");
		ReservedJob job = new ReservedJob("existing", "1", new byte[0], 1, 1, Instant.now(), Instant.now(),
				Instant.now(), Instant.now(), Duration.ofSeconds(1), 1, Map.of());
		rejects(() -> this.queue.fail(job, Duration.ofSeconds(-1), "e"), "backOff", "between PT0S and P36500D");
		rejects(() -> this.queue.fail(job, Duration.ofDays(36_501), "e"), "backOff", "between PT0S and P36500D");
		rejects(() -> this.queue.fail(job, null, "e"), "backOff");
		rejects(() -> this.queue.touch(job, Duration.ZERO), "ttr");
		// a reservation made with the record's constructor: its topic and id are checked where they are used
		ReservedJob stray = new ReservedJob("bad topic", "1", new byte[0], 1, 1, Instant.now(), Instant.now(),
				Instant.now(), Instant.now(), Duration.ofSeconds(1), 1, Map.of());
		rejects(() -> this.queue.touch(stray, Duration.ofSeconds(1)), "topic");
		rejects(() -> this.queue.fail(stray, Duration.ofSeconds(1), "e"), "topic");
		rejects(() -> this.queue.kill(stray, "e"), "topic");
		rejects(() -> this.queue.finish(stray), "topic");
		ReservedJob noTopic = new ReservedJob(null, "1", new byte[0], 1, 1, Instant.now(), Instant.now(),
				Instant.now(), Instant.now(), Duration.ofSeconds(1), 1, Map.of());
		rejects(() -> this.queue.touch(noTopic, Duration.ofSeconds(1)), "topic", "must not be empty");
		rejects(() -> this.queue.kill(noTopic, "e"), "topic", "must not be empty");
	}

	static class Empty {

	}

	static class Unwritable {

		public String getValue() {
			throw new IllegalStateException("cannot be written");
		}

	}

}
