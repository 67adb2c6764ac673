package io.github.delayqueue.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.RedisJobOutcomeStream;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The cross-instance outcome stream: one application consumes a topic and publishes its
 * outcomes, a second one in the same namespace, with no listener, hears them.
 */
class JobOutcomeStreamTests {

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	@Configuration(proxyBeanMethods = false)
	static class NoListeners {

	}

	@Configuration(proxyBeanMethods = false)
	static class Worker {

		@DelayedListener(id = "payments", topic = "payments")
		void on(String payload) {
			if (payload.startsWith("fail")) {
				throw new IllegalStateException("declined: " + payload);
			}
		}

	}

	@Test
	void aSecondApplicationThatDoesNotConsumeTheTopicHearsEveryOutcomeOfTheFirst() throws Exception {
		ConfigurableApplicationContext worker = this.apps.run(Worker.class, "delayqueue.buckets=1",
				"delayqueue.listener.outcome-stream=true", "delayqueue.listener.back-off.initial-interval=100ms");
		ConfigurableApplicationContext watcher = this.apps.run(NoListeners.class, "delayqueue.buckets=1",
				"delayqueue.timer.enabled=false");
		assertThat(watcher.getBean(DelayedListenerEndpointRegistry.class).getListenerContainers()).isEmpty();
		JobOutcomeStream outcomes = watcher.getBean(JobOutcomeStream.class);
		List<JobOutcome> heard = new CopyOnWriteArrayList<>();
		List<String> everyTopic = new CopyOnWriteArrayList<>();
		JobOutcomeStream.Subscription subscription = outcomes.subscribe("payments", heard::add);
		outcomes.subscribe(null, (outcome) -> everyTopic.add(outcome.topic() + ":" + outcome.id()));
		// a consumer that throws does not stop the others, nor later outcomes
		outcomes.subscribe("payments", (outcome) -> {
			throw new AssertionError("broken consumer");
		});
		CompletableFuture<JobOutcome> paid = outcomes.whenDone("payments", "paid");
		CompletableFuture<JobOutcome> declined = outcomes.whenDone("payments", "declined");

		DelayedJobTemplate template = watcher.getBean(DelayedJobTemplate.class);
		template.schedule("payments", "paid", "ok", Duration.ZERO);
		template.job("payments", "declined").payload("fail-1").delay(Duration.ZERO).maxAttempts(2).schedule();

		JobOutcome success = paid.get(10, TimeUnit.SECONDS);
		assertThat(success.outcome()).isEqualTo("success");
		assertThat(success.isFinal()).isTrue();
		assertThat(success.attempt()).isEqualTo(1);
		assertThat(success.listenerId()).isEqualTo("payments");
		assertThat(success.instanceId()).isEqualTo(worker.getBean(RedisDelayQueue.class).getInstanceId());
		assertThat(success.error()).isNull();
		assertThat(success.at()).isBetween(Instant.now().minusSeconds(30), Instant.now().plusSeconds(1));

		JobOutcome dead = declined.get(10, TimeUnit.SECONDS);
		assertThat(dead.outcome()).isEqualTo("dead");
		assertThat(dead.attempt()).isEqualTo(2);
		assertThat(dead.maxAttempts()).isEqualTo(2);
		assertThat(dead.error()).isEqualTo("java.lang.IllegalStateException: declined: fail-1");
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(heard).extracting((outcome) -> outcome.id() + " " + outcome.outcome())
				.containsExactlyInAnyOrder("paid success", "declined retry", "declined dead"));
		assertThat(heard.stream().filter((outcome) -> outcome.id().equals("declined")).map(JobOutcome::outcome))
			.containsExactly("retry", "dead");
		assertThat(heard.get(heard.size() - 1).isFinal()).isTrue();

		// after close the subscription hears nothing more; the others go on
		subscription.close();
		CompletableFuture<JobOutcome> late = outcomes.whenDone("payments", "late");
		template.schedule("payments", "late", "ok", Duration.ZERO);
		assertThat(late.get(10, TimeUnit.SECONDS).outcome()).isEqualTo("success");
		await().atMost(Duration.ofSeconds(5)).until(() -> everyTopic.contains("payments:late"));
		assertThat(heard).extracting(JobOutcome::id).doesNotContain("late");
		assertThat(worker.getBean(RedisJobOutcomeStream.class).getDropped()).isZero();
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	@Test
	void aMessageOnTheChannelThatIsNoOutcomeIsIgnoredAndTheNextIsHeard() throws Exception {
		ConfigurableApplicationContext watcher = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		RedisJobOutcomeStream outcomes = watcher.getBean(RedisJobOutcomeStream.class);
		List<JobOutcome> heard = new CopyOnWriteArrayList<>();
		outcomes.subscribe(null, heard::add);
		JobOutcome sent = new JobOutcome("t", "1", "recovered", 3, 3, "l", "i", "java.lang.Error: x",
				Instant.ofEpochMilli(1_700_000_000_123L));
		byte[] channel = outcomes.getChannel().getBytes(StandardCharsets.UTF_8);
		try (RedisConnection connection = watcher.getBean(RedisConnectionFactory.class).getConnection()) {
			connection.publish(channel, "not json".getBytes(StandardCharsets.UTF_8));
			connection.publish(channel, "{\"topic\":\"t\"}".getBytes(StandardCharsets.UTF_8));
			connection.publish(channel, ("{\"topic\":\"t\",\"id\":\"1\",\"outcome\":\"recovered\",\"attempt\":3,"
					+ "\"maxAttempts\":3,\"listener\":\"l\",\"instance\":\"i\",\"error\":\"java.lang.Error: x\","
					+ "\"at\":1700000000123}").getBytes(StandardCharsets.UTF_8));
		}
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(heard).isNotEmpty());
		assertThat(heard).containsExactly(sent);
		assertThat(outcomes.getChannel()).isEqualTo(this.apps.namespace + ":outcomes");
	}

	@Test
	void withJedisAnApplicationHearsTheOutcomesOfAnother() throws Exception {
		this.apps.run(Worker.class, "delayqueue.buckets=1", "delayqueue.listener.outcome-stream=true",
				"spring.data.redis.client-type=jedis");
		ConfigurableApplicationContext watcher = this.apps.run(NoListeners.class, "delayqueue.buckets=1",
				"delayqueue.timer.enabled=false", "spring.data.redis.client-type=jedis");
		JobOutcomeStream outcomes = watcher.getBean(JobOutcomeStream.class);
		List<String> heard = new CopyOnWriteArrayList<>();
		outcomes.subscribe(null, (outcome) -> heard.add(outcome.id() + " " + outcome.outcome()));
		CompletableFuture<JobOutcome> paid = outcomes.whenDone("payments", "jedis-paid");
		// several at once: the publisher sends what has gathered in one call
		for (int i = 0; i < 20; i++) {
			watcher.getBean(DelayedJobTemplate.class).schedule("payments", "jedis-" + i, "ok", Duration.ZERO);
		}
		watcher.getBean(DelayedJobTemplate.class).schedule("payments", "jedis-paid", "ok", Duration.ZERO);
		assertThat(paid.get(10, TimeUnit.SECONDS).outcome()).isEqualTo("success");
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(heard).hasSize(21));
	}

	@Test
	void withJedisAPublishedBatchIsNotCountedAsDropped() throws Exception {
		ConfigurableApplicationContext worker = this.apps.run(Worker.class, "delayqueue.buckets=1",
				"delayqueue.listener.outcome-stream=true", "spring.data.redis.client-type=jedis");
		ConfigurableApplicationContext watcher = this.apps.run(NoListeners.class, "delayqueue.buckets=1",
				"delayqueue.timer.enabled=false", "spring.data.redis.client-type=jedis");
		CompletableFuture<JobOutcome> paid = watcher.getBean(JobOutcomeStream.class).whenDone("payments", "counted");
		watcher.getBean(DelayedJobTemplate.class).schedule("payments", "counted", "ok", Duration.ZERO);
		assertThat(paid.get(10, TimeUnit.SECONDS).outcome()).isEqualTo("success");
		// the batch reached the channel: publish.lua's answer is read without failing the batch (the
		// worker reads it just after the watcher heard the outcome)
		RedisJobOutcomeStream published = worker.getBean(RedisJobOutcomeStream.class);
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> published.getDropped() == 0);
	}

	@Test
	void aWaitStillOpenWhenTheContextClosesFailsAndTheStreamRefusesNewOnes() {
		ConfigurableApplicationContext watcher = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		JobOutcomeStream outcomes = watcher.getBean(JobOutcomeStream.class);
		CompletableFuture<JobOutcome> never = outcomes.whenDone("payments", "never");
		watcher.close();
		assertThat(never).isCompletedExceptionally();
		assertThat(outcomes.whenDone("payments", "later")).isCompletedExceptionally();
		org.assertj.core.api.Assertions.assertThatIllegalStateException()
			.isThrownBy(() -> outcomes.subscribe(null, (outcome) -> {
			}))
			.withMessageContaining("stopped");
	}

	@Test
	void afterItsConnectionsAreKilledTheStreamSubscribesAgainAndOutcomesFlowAgain() throws Exception {
		ConfigurableApplicationContext worker = this.apps.run(Worker.class, "delayqueue.buckets=1",
				"delayqueue.listener.outcome-stream=true");
		ConfigurableApplicationContext watcher = this.apps.run(NoListeners.class, "delayqueue.buckets=1",
				"delayqueue.timer.enabled=false");
		DelayedJobTemplate template = watcher.getBean(DelayedJobTemplate.class);
		List<String> heard = new CopyOnWriteArrayList<>();
		watcher.getBean(JobOutcomeStream.class).subscribe("payments", (outcome) -> heard.add(outcome.id()));
		template.schedule("payments", "before", "ok", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("before"));

		// every subscriber and every other client of the test's Redis loses its connection
		try (RedisConnection admin = worker.getBean(RedisConnectionFactory.class).getConnection()) {
			@SuppressWarnings("unchecked")
			var commands = (io.lettuce.core.api.async.RedisServerAsyncCommands<byte[], byte[]>) admin
				.getNativeConnection();
			assertThat(commands.clientKill(io.lettuce.core.KillArgs.Builder.typePubsub()).get(10, TimeUnit.SECONDS))
				.isPositive();
			// the caller's own connection is skipped
			assertThat(commands.clientKill(io.lettuce.core.KillArgs.Builder.typeNormal()).get(10, TimeUnit.SECONDS))
				.isPositive();
		}
		// what is published before the subscription is back is missed (at most once): keep
		// scheduling until an outcome arrives again
		java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
			template.schedule("payments", "after-" + n.incrementAndGet(), "ok", Duration.ZERO);
			return heard.stream().anyMatch((id) -> id.startsWith("after-"));
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> template.getOperations().stats().totals().total() == 0);
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	@Test
	void subscriptionsCheckTheirArguments() {
		ConfigurableApplicationContext watcher = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		JobOutcomeStream outcomes = watcher.getBean(JobOutcomeStream.class);
		assertThatIllegalArgumentException().isThrownBy(() -> outcomes.subscribe("bad topic", (outcome) -> {
		})).withMessageContaining("topic");
		assertThatIllegalArgumentException().isThrownBy(() -> outcomes.whenDone("payments", ""))
			.withMessageContaining("id");
		assertThatIllegalArgumentException().isThrownBy(() -> outcomes.subscribe(null, null))
			.withMessageContaining("consumer");
	}

}
