package io.github.delayqueue.kafka;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.forward.ForwardedHeaders;
import io.github.delayqueue.forward.ForwardingApps;
import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.forward.UnforwardableJobException;
import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Forwarding to a real Kafka broker (spring-kafka-test's embedded KRaft broker) through the
 * auto-configured {@code KafkaTemplate}'s producer settings, read back with a plain Kafka
 * consumer: every record arrives, none before its due time by the Redis clock, with the job's
 * headers; a stopped broker is waited out with retries, jobs past their attempts are DEAD with
 * Kafka's error and replay sends them; an instance that dies after Kafka's acknowledgement and
 * before the finish leaves the record to be sent again, never lost.
 */
class KafkaForwardingTests {

	private static final int PARTITIONS = 3;

	private static EmbeddedKafkaKraftBroker kafka;

	private final RedisTestServer redis = RedisTestServers.shared();

	private final String namespace = "kf" + UUID.randomUUID().toString().substring(0, 8);

	private final String kafkaTopic = "orders-" + UUID.randomUUID().toString().substring(0, 8);

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@BeforeAll
	static void startKafka() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		kafka = new EmbeddedKafkaKraftBroker(1, PARTITIONS);
		kafka.kafkaPorts(port);
		kafka.brokerProperty("auto.create.topics.enable", "true");
		kafka.brokerProperty("num.partitions", Integer.toString(PARTITIONS));
		kafka.afterPropertiesSet();
	}

	@AfterAll
	static void stopKafka() {
		kafka.destroy();
	}

	@AfterEach
	void close() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
		QueueInvariant.assertHolds(this.redis, this.namespace);
	}

	private ConfigurableApplicationContext start(Class<?> app, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(app, KafkaForwarding.class).web(WebApplicationType.NONE)
			.properties(this.redis.springBootProperties())
			.properties("delayqueue.namespace=" + this.namespace, "delayqueue.timer.lease-ttl=2s",
					"spring.main.banner-mode=off", "spring.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
					"delayqueue.forward.order-events.kafka.topic=" + this.kafkaTopic,
					"delayqueue.forward.order-events.concurrency=8")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return context;
	}

	@Test
	void tenThousandJobsDueInOneToTenSecondsAllArriveNoneEarlyWithTheirHeadersAndRedisEndsEmpty() {
		ConfigurableApplicationContext context = start(ForwardingApps.App.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		long before = redisMillis();
		Map<String, Long> delays = ForwardingApps.scheduleOrders(template, 10_000);

		Map<String, List<ConsumerRecord<String, String>>> received = consume(10_000, Duration.ofSeconds(120),
				(record, readAt) -> {
					Instant dueAt = Instant.parse(header(record, DelayQueueHeaders.DUE_AT));
					String id = header(record, DelayQueueHeaders.ID);
					assertThat(dueAt.toEpochMilli()).as("due time of %s", id)
						.isLessThanOrEqualTo(readAt)
						.isGreaterThanOrEqualTo(before + delays.get(id));
				});

		assertThat(received).hasSize(10_000);
		received.forEach((id, records) -> {
			assertThat(records).as("records of %s", id).hasSize(1);
			ConsumerRecord<String, String> record = records.get(0);
			assertThat(record.key()).isEqualTo(id);
			assertThat(record.value()).isEqualTo("{\"orderId\":" + id.substring(1) + "}");
			assertThat(header(record, DelayQueueHeaders.ID)).isEqualTo(id);
			assertThat(header(record, DelayQueueHeaders.TOPIC)).isEqualTo("order-events");
			assertThat(header(record, "tenant")).isEqualTo("t" + (Integer.parseInt(id.substring(1)) % 3));
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> jobsInRedis() == 0);
		// the forwarding container counts as a listener does
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(meters.get("delayqueue.jobs.completed").tag("topic", "order-events").counter().count())
			.isEqualTo(10_000);
		assertThat(meters.get("delayqueue.listener").tag("topic", "order-events").tag("outcome", "success").timer().count())
			.isEqualTo(10_000);
	}

	@Test
	void aStoppedBrokerIsWaitedOutWithRetriesAndJobsPastTheirAttemptsAreDeadWithKafkasErrorUntilReplayed() {
		ConfigurableApplicationContext context = start(ForwardingApps.App.class, "delayqueue.forward.order-events.send-timeout=500ms",
				"delayqueue.listener.back-off.initial-interval=300ms", "delayqueue.listener.back-off.max-interval=1s",
				"spring.kafka.producer.properties.request.timeout.ms=400",
				"spring.kafka.producer.properties.delivery.timeout.ms=900",
				"spring.kafka.producer.properties.linger.ms=0",
				"spring.kafka.producer.properties.reconnect.backoff.max.ms=200");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		// the producer knows the broker before it stops
		template.schedule("order-events", "warm-up", "x", Duration.ZERO);
		assertThat(consume(1, Duration.ofSeconds(30), (record, readAt) -> {
		})).containsKey("warm-up");

		stopBroker();
		try {
			for (int i = 0; i < 20; i++) {
				template.job("order-events", "r" + i).payload("r").delay(Duration.ofMillis(100)).maxAttempts(1_000).schedule();
			}
			for (int i = 0; i < 5; i++) {
				template.job("order-events", "d" + i).payload("d").delay(Duration.ofMillis(100)).maxAttempts(2).schedule();
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> attempts(template, "r0") >= 3 && dead(template, 5));
			for (int i = 0; i < 5; i++) {
				JobInfo info = template.find("order-events", "d" + i).orElseThrow();
				assertThat(info.state()).isEqualTo(JobState.DEAD);
				// Kafka's own error (not the template's "Send failed" around it), or no answer
				// within the send timeout
				assertThat(info.lastError()).as("error of d%d", i)
					.matches("(org\\.apache\\.kafka\\.common\\.errors\\.|java\\.util\\.concurrent\\.TimeoutException: Kafka did not"
							+ " acknowledge).*")
					.contains(this.kafkaTopic);
			}
		}
		finally {
			startBroker();
		}
		Map<String, List<ConsumerRecord<String, String>>> retried = consume(21, Duration.ofSeconds(60),
				(record, readAt) -> {
				});
		for (int i = 0; i < 20; i++) {
			assertThat(retried).containsKey("r" + i);
		}
		assertThat(retried.keySet()).noneMatch((id) -> id.startsWith("d"));
		assertThat(template.getOperations().replayDeadJobs("order-events", 100).count()).isEqualTo(5);
		Map<String, List<ConsumerRecord<String, String>>> replayed = consume(26, Duration.ofSeconds(60),
				(record, readAt) -> {
				});
		for (int i = 0; i < 5; i++) {
			assertThat(replayed).containsKey("d" + i);
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> jobsInRedis() == 0);
	}

	@Test
	void anInstanceThatDiesAfterKafkasAcknowledgementAndBeforeTheFinishLeavesTheRecordToBeSentAgain() {
		ForwardingApps.DyingApp.unfinished.set(0);
		ConfigurableApplicationContext dying = start(ForwardingApps.DyingApp.class,
				"delayqueue.forward.order-events.send-timeout=1s");
		dying.getBean(DelayedJobTemplate.class).schedule("order-events", "k1", "{\"orderId\":1}", Duration.ofMillis(200));
		assertThat(consume(1, Duration.ofSeconds(30), (record, readAt) -> {
		})).containsKey("k1");
		await().atMost(Duration.ofSeconds(10)).until(() -> ForwardingApps.DyingApp.unfinished.get() > 0);
		dying.close();

		ConfigurableApplicationContext next = start(ForwardingApps.App.class, "delayqueue.forward.order-events.send-timeout=1s");
		assertThat(next.getBean(DelayedListenerEndpointRegistry.class)
			.getListenerContainer(ForwardingEndpoint.ID_PREFIX + "order-events")).isNotNull();
		Map<String, List<ConsumerRecord<String, String>>> records = consume(1, Duration.ofSeconds(30),
				(record, readAt) -> {
				}, 2);
		assertThat(records.get("k1")).as("records of k1").hasSize(2);
		await().atMost(Duration.ofSeconds(30)).until(() -> jobsInRedis() == 0);
	}

	@Test
	void delayedKafkaSendsTheKeyAndValueItSerializedAndAPayloadFieldOrItsAbsenceDecidesTheKeyOtherwise() {
		ConfigurableApplicationContext context = start(ForwardingApps.App.class,
				"delayqueue.forward.order-events.kafka.key-field=order.customer");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayedKafka delayedKafka = context.getBean(DelayedKafka.class);
		template.schedule("order-events", "a1", Map.of("order", Map.of("customer", "c-7")), Duration.ofMillis(100));
		template.job("order-events", "a2")
			.payload(Map.of("order", Map.of("id", 2)))
			.delay(Duration.ofMillis(100))
			.maxAttempts(5)
			.schedule();
		delayedKafka.record("order-events", "a3", "explicit-key", "a value")
			.delay(Duration.ofMillis(100))
			.header("tenant", "acme")
			.schedule();
		delayedKafka.record("order-events", "a4", "k4", "cancelled").delay(Duration.ofSeconds(2)).schedule();
		assertThat(template.cancel("order-events", "a4")).isTrue();
		delayedKafka.record("order-events", "a5", null, "{\"order\":{\"customer\":\"c-5\"}}")
			.delay(Duration.ofSeconds(3))
			.schedule();

		Map<String, List<ConsumerRecord<String, String>>> records = consume(3, Duration.ofSeconds(30),
				(record, readAt) -> {
				});
		assertThat(records).containsOnlyKeys("a1", "a3", "a5");
		assertThat(records.get("a1").get(0).key()).isEqualTo("c-7");
		ConsumerRecord<String, String> explicit = records.get("a3").get(0);
		assertThat(explicit.key()).isEqualTo("explicit-key");
		assertThat(explicit.value()).isEqualTo("a value");
		assertThat(header(explicit, "tenant")).isEqualTo("acme");
		assertThat(explicit.headers().lastHeader(ForwardedHeaders.KAFKA_KEY)).isNull();
		// no key given: the topic's key field
		assertThat(records.get("a5").get(0).key()).isEqualTo("c-5");
		JobInfo keyless = template.find("order-events", "a2").orElseThrow();
		assertThat(keyless.state()).isEqualTo(JobState.DEAD);
		assertThat(keyless.attempt()).isEqualTo(1);
		assertThat(keyless.lastError()).contains(UnforwardableJobException.class.getName())
			.contains("The record key is read from payload field 'order.customer', which the payload lacks");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> delayedKafka.record("order-events", "a6", "x".repeat(DelayedKafka.MAX_KEY_BYTES + 1), "v"))
			.withMessage("key must serialize to at most 768 bytes, was 769");
		assertThat(template.cancel("order-events", "a2")).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> jobsInRedis() == 0);
	}

	@Test
	void theApplicationsInterceptorsAndErrorHandlerDoNotReachTheForwarder() {
		ForwardingApps.AppWithListenerBeans.skipped.set(0);
		ConfigurableApplicationContext context = start(ForwardingApps.AppWithListenerBeans.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("order-events", "i1", "{}", Duration.ofMillis(100));
		// a bad key header is DEAD at once (the recoverer bean would have finished it)
		template.job("order-events", "i2")
			.payload("{}")
			.header(ForwardedHeaders.KAFKA_KEY, "not base64!")
			.delay(Duration.ofMillis(100))
			.maxAttempts(5)
			.schedule();
		assertThat(consume(1, Duration.ofSeconds(30), (record, readAt) -> {
		})).containsKey("i1");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> template.find("order-events", "i2").map(JobInfo::state).orElse(null) == JobState.DEAD);
		JobInfo dead = template.find("order-events", "i2").orElseThrow();
		assertThat(dead.attempt()).isEqualTo(1);
		assertThat(dead.lastError()).contains("Header delayqueue_forwardKey holds no Base64 record key");
		assertThat(ForwardingApps.AppWithListenerBeans.skipped).hasValue(0);
		assertThat(template.cancel("order-events", "i2")).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> jobsInRedis() == 0);
	}

	private int attempts(DelayedJobTemplate template, String id) {
		return template.find("order-events", id).map(JobInfo::attempt).orElse(0);
	}

	private boolean dead(DelayedJobTemplate template, int count) {
		for (int i = 0; i < count; i++) {
			Optional<JobInfo> info = template.find("order-events", "d" + i);
			if (info.isEmpty() || info.get().state() != JobState.DEAD) {
				return false;
			}
		}
		return true;
	}

	@FunctionalInterface
	interface RecordCheck {

		void check(ConsumerRecord<String, String> record, long readAtRedisMillis);

	}

	private Map<String, List<ConsumerRecord<String, String>>> consume(int ids, Duration within, RecordCheck check) {
		return consume(ids, within, check, 1);
	}

	/**
	 * Reads the topic from its start until {@code ids} job ids have {@code copies} records
	 * each, checking each record with the Redis time read right after the poll that returned
	 * it.
	 */
	private Map<String, List<ConsumerRecord<String, String>>> consume(int ids, Duration within, RecordCheck check,
			int copies) {
		Map<String, Object> settings = new HashMap<>();
		settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString());
		settings.put(ConsumerConfig.GROUP_ID_CONFIG, "check-" + UUID.randomUUID());
		settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		Map<String, List<ConsumerRecord<String, String>>> received = new ConcurrentHashMap<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings, new StringDeserializer(),
				new StringDeserializer())) {
			consumer.subscribe(List.of(this.kafkaTopic));
			long deadline = System.nanoTime() + within.toNanos();
			while (received.size() < ids
					|| received.values().stream().anyMatch((records) -> records.size() < copies)) {
				assertThat(System.nanoTime()).as("all records within %s (have %d ids)", within, received.size())
					.isLessThan(deadline);
				var polled = consumer.poll(Duration.ofMillis(200));
				long readAt = polled.isEmpty() ? 0 : redisMillis();
				for (ConsumerRecord<String, String> record : polled) {
					check.check(record, readAt);
					received.computeIfAbsent(header(record, DelayQueueHeaders.ID), (id) -> new ArrayList<>()).add(record);
				}
			}
		}
		return received;
	}

	private static String header(ConsumerRecord<String, String> record, String name) {
		Header header = record.headers().lastHeader(name);
		assertThat(header).as("header %s of %s", name, record.key()).isNotNull();
		return new String(header.value(), StandardCharsets.UTF_8);
	}

	private long redisMillis() {
		return ForwardingApps.redisMillis(this.redis);
	}

	private long jobsInRedis() {
		return ForwardingApps.jobsInRedis(this.redis, this.namespace);
	}

	private static void stopBroker() {
		kafka.getCluster().brokers().values().forEach((broker) -> {
			broker.shutdown();
			broker.awaitShutdown();
		});
	}

	private static void startBroker() {
		kafka.getCluster().brokers().values().forEach((broker) -> broker.startup());
	}

	/** The broker's template and this module's forwarders, ordered with the application's auto-configuration. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ KafkaAutoConfiguration.class, DelayQueueKafkaAutoConfiguration.class })
	static class KafkaForwarding {

	}

}
