package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public result types write as JSON objects of their components with a plain Jackson
 * {@link JsonMapper} and with Spring Boot's, as a {@code @RestController} returning them does.
 */
class ResultTypesJsonTests {

	private static final Instant DUE = Instant.parse("2026-01-02T03:04:05Z");

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final JobInfo job = new JobInfo("orders", "o-1", JobState.DEAD, 3, 3, Duration.ofSeconds(30), DUE,
			DUE.minusSeconds(60), null, null, DUE.plusSeconds(5), "boom", "{\"a\":1}".getBytes(StandardCharsets.UTF_8),
			Map.of("tenant", "acme"), null, null, 7);

	private JsonNode write(Object value) {
		return this.mapper.readTree(this.mapper.writeValueAsString(value));
	}

	@Test
	void jobInfoWritesEveryComponent() {
		JsonNode json = write(this.job);
		assertThat(json.get("topic").asString()).isEqualTo("orders");
		assertThat(json.get("id").asString()).isEqualTo("o-1");
		assertThat(json.get("state").asString()).isEqualTo("DEAD");
		assertThat(json.get("attempt").asInt()).isEqualTo(3);
		assertThat(json.get("maxAttempts").asInt()).isEqualTo(3);
		assertThat(json.get("dueAt").isNull()).isFalse();
		assertThat(json.get("diedAt").isNull()).isFalse();
		assertThat(json.get("lastError").asString()).isEqualTo("boom");
		assertThat(json.get("headers").get("tenant").asString()).isEqualTo("acme");
		assertThat(json.get("priority").asInt()).isEqualTo(7);
		assertThat(this.mapper.readValue(json.get("payload").toString(), byte[].class))
			.isEqualTo("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
	}

	@Test
	void bootsJsonMapperWritesThemToo() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
			.run((context) -> {
				JsonMapper boot = context.getBean(JsonMapper.class);
				JsonNode json = boot.readTree(boot.writeValueAsString(new DeadJobPage(1, List.of(this.job), null)));
				assertThat(json.get("jobs").get(0).get("topic").asString()).isEqualTo("orders");
				assertThat(json.get("jobs").get(0).get("lastError").asString()).isEqualTo("boom");
			});
	}

	@Test
	void pagesWriteTheirJobs() {
		JsonNode dead = write(new DeadJobPage(1, List.of(this.job), "next"));
		assertThat(dead.get("total").asLong()).isEqualTo(1);
		assertThat(dead.get("jobs").get(0).get("id").asString()).isEqualTo("o-1");
		assertThat(dead.get("next").asString()).isEqualTo("next");
		JsonNode completed = write(new CompletedJobPage(1, List.of(this.job), null));
		assertThat(completed.get("jobs").get(0).get("topic").asString()).isEqualTo("orders");
	}

	@Test
	void reservedJobWritesEveryComponent() {
		JsonNode json = write(new ReservedJob("orders", "o-1", new byte[] { 'x' }, 1, 3, DUE, DUE, DUE,
				DUE.plusSeconds(30), Duration.ofSeconds(30), 42, Map.of("tenant", "acme")));
		assertThat(json.get("topic").asString()).isEqualTo("orders");
		assertThat(json.get("token").asLong()).isEqualTo(42);
		assertThat(json.get("reservedUntil").isNull()).isFalse();
		assertThat(json.get("headers").get("tenant").asString()).isEqualTo("acme");
	}

	@Test
	void operationResultsWriteTheirComponents() {
		JsonNode scheduled = write(new ScheduleResult(true, JobState.DELAYED, DUE));
		assertThat(scheduled.get("created").asBoolean()).isTrue();
		assertThat(scheduled.get("state").asString()).isEqualTo("DELAYED");
		assertThat(write(RescheduleResult.values()[0]).isString()).isTrue();
		assertThat(write(new ReplayResult(2, List.of("a", "b"))).get("ids").size()).isEqualTo(2);
		assertThat(write(new RepairResult(5, 1, 2, 3, 0)).get("reindexed").asLong()).isEqualTo(1);
		QueueStats.TopicStats topic = new QueueStats.TopicStats(1, 2, 3, 4, DUE);
		JsonNode stats = write(new QueueStats(List.of(new QueueStats.BucketStats(0, topic, DUE, DUE, "me")),
				Map.of("orders", topic), DUE, Map.of("orders", 9L)));
		assertThat(stats.get("topics").get("orders").get("reserved").asLong()).isEqualTo(3);
		assertThat(stats.get("buckets").get(0).get("timerOwner").asString()).isEqualTo("me");
		assertThat(stats.get("completed").get("orders").asLong()).isEqualTo(9);
	}

}
