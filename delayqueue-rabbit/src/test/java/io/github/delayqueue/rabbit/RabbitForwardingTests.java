package io.github.delayqueue.rabbit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.forward.ForwardedHeaders;
import io.github.delayqueue.forward.ForwardingApps;
import io.github.delayqueue.forward.ForwardingEndpoint;
import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Forwarding to a real AMQP broker ({@link RabbitTestBroker}: rabbitmq-server when installed,
 * else Qpid Broker-J) through an exchange and a routing key with publisher confirms, read
 * back with the plain RabbitMQ client: every message arrives, none before its due time by the
 * Redis clock, with the job's headers; a broker that is down is waited out with retries, jobs
 * past their attempts are DEAD with the broker's error and replay sends them; a message no
 * queue takes is a failed send, not a sent one; an instance that dies after the confirm and
 * before the finish leaves the message to be sent again, never lost.
 */
class RabbitForwardingTests {

	private final RabbitTestBroker broker = RabbitTestBroker.shared();

	private final RedisTestServer redis = RedisTestServers.shared();

	private final String namespace = "rf" + UUID.randomUUID().toString().substring(0, 8);

	private final String exchange = "orders-" + UUID.randomUUID().toString().substring(0, 8);

	private final String queue = this.exchange + "-closed";

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		this.contexts.forEach(ConfigurableApplicationContext::close);
		QueueInvariant.assertHolds(this.redis, this.namespace);
		try (Connection connection = connect(); Channel channel = connection.createChannel()) {
			channel.queueDelete(this.queue);
			channel.exchangeDelete(this.exchange);
		}
	}

	private ConfigurableApplicationContext start(Class<?> app, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(app, RabbitForwarding.class).web(WebApplicationType.NONE)
			.properties(this.redis.springBootProperties())
			.properties(this.broker.springBootProperties())
			.properties("delayqueue.namespace=" + this.namespace, "delayqueue.timer.lease-ttl=2s",
					"spring.main.banner-mode=off", "spring.rabbitmq.publisher-confirm-type=correlated",
					"spring.rabbitmq.publisher-returns=true",
					"delayqueue.forward.order-events.rabbit.exchange=" + this.exchange,
					"delayqueue.forward.order-events.rabbit.routing-key=order.closed",
					"delayqueue.forward.order-events.concurrency=8")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return context;
	}

	private Connection connect() throws Exception {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setHost("127.0.0.1");
		factory.setPort(this.broker.port);
		factory.setUsername("guest");
		factory.setPassword("guest");
		return factory.newConnection();
	}

	private void declare() throws Exception {
		try (Connection connection = connect(); Channel channel = connection.createChannel()) {
			channel.exchangeDeclare(this.exchange, "direct", true);
			channel.queueDeclare(this.queue, true, false, false, null);
			channel.queueBind(this.queue, this.exchange, "order.closed");
		}
	}

	@Test
	void tenThousandJobsDueInOneToTenSecondsAllArriveNoneEarlyWithTheirHeadersAndRedisEndsEmpty() throws Exception {
		declare();
		ConfigurableApplicationContext context = start(ForwardingApps.App.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		long before = ForwardingApps.redisMillis(this.redis);
		Map<String, Long> delays = ForwardingApps.scheduleOrders(template, 10_000);

		Map<String, List<Delivery>> received = consume(10_000, 1, Duration.ofSeconds(120), (delivery, readAt) -> {
			String id = header(delivery, DelayQueueHeaders.ID);
			long dueAt = Instant.parse(header(delivery, DelayQueueHeaders.DUE_AT)).toEpochMilli();
			assertThat(dueAt).as("due time of %s", id)
				.isLessThanOrEqualTo(readAt)
				.isGreaterThanOrEqualTo(before + delays.get(id));
		});

		assertThat(received).hasSize(10_000);
		received.forEach((id, deliveries) -> {
			assertThat(deliveries).as("messages of %s", id).hasSize(1);
			Delivery delivery = deliveries.get(0);
			assertThat(delivery.getProperties().getMessageId()).isEqualTo(id);
			assertThat(delivery.getProperties().getDeliveryMode()).isEqualTo(2);
			assertThat(new String(delivery.getBody(), StandardCharsets.UTF_8))
				.isEqualTo("{\"orderId\":" + id.substring(1) + "}");
			assertThat(header(delivery, DelayQueueHeaders.TOPIC)).isEqualTo("order-events");
			assertThat(header(delivery, "tenant")).isEqualTo("t" + (Integer.parseInt(id.substring(1)) % 3));
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> ForwardingApps.jobsInRedis(this.redis, this.namespace) == 0);
	}

	@Test
	void aBrokerThatIsDownIsWaitedOutWithRetriesAndJobsPastTheirAttemptsAreDeadWithTheBrokersErrorUntilReplayed()
			throws Exception {
		declare();
		ConfigurableApplicationContext context = start(ForwardingApps.App.class,
				"delayqueue.forward.order-events.send-timeout=1s", "delayqueue.listener.back-off.initial-interval=300ms",
				"delayqueue.listener.back-off.max-interval=1s", "spring.rabbitmq.connection-timeout=1s");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.schedule("order-events", "warm-up", "x", Duration.ZERO);
		assertThat(consume(1, 1, Duration.ofSeconds(30), (delivery, readAt) -> {
		})).containsKey("warm-up");

		this.broker.stop();
		try {
			for (int i = 0; i < 20; i++) {
				template.job("order-events", "r" + i).payload("r").delay(Duration.ofMillis(100)).maxAttempts(1_000).schedule();
			}
			for (int i = 0; i < 5; i++) {
				template.job("order-events", "d" + i).payload("d").delay(Duration.ofMillis(100)).maxAttempts(2).schedule();
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> attempts(template, "r0") >= 3 && dead(template));
			for (int i = 0; i < 5; i++) {
				JobInfo info = template.find("order-events", "d" + i).orElseThrow();
				assertThat(info.state()).isEqualTo(JobState.DEAD);
				assertThat(info.lastError()).as("error of d%d", i).containsIgnoringCase("connect");
			}
		}
		finally {
			this.broker.start();
		}
		// an in-memory broker comes back without the exchange: until it is declared again the
		// broker refuses the messages, and they are retried
		declare();
		Map<String, List<Delivery>> retried = consume(20, 1, Duration.ofSeconds(60), (delivery, readAt) -> {
		});
		for (int i = 0; i < 20; i++) {
			assertThat(retried).containsKey("r" + i);
		}
		assertThat(retried.keySet()).noneMatch((id) -> id.startsWith("d"));
		assertThat(template.getOperations().replayDeadJobs("order-events", 100).count()).isEqualTo(5);
		Map<String, List<Delivery>> replayed = consume(5, 1, Duration.ofSeconds(60), (delivery, readAt) -> {
		});
		assertThat(replayed).containsOnlyKeys("d0", "d1", "d2", "d3", "d4");
		await().atMost(Duration.ofSeconds(30)).until(() -> ForwardingApps.jobsInRedis(this.redis, this.namespace) == 0);
	}

	@Test
	void aBlockedConnectionIsWaitedOutWithRetriesAndJobsPastTheirAttemptsAreDeadUntilReplayed() throws Exception {
		declare();
		try (BlockingProxy proxy = new BlockingProxy(this.broker.port)) {
			ConfigurableApplicationContext context = start(ForwardingApps.App.class,
					"spring.rabbitmq.port=" + proxy.port(), "delayqueue.forward.order-events.send-timeout=1s",
					// opening a channel is a round trip too: bounded like the send (the docs say so)
					"spring.rabbitmq.channel-rpc-timeout=1s",
					"delayqueue.listener.back-off.initial-interval=300ms", "delayqueue.listener.back-off.max-interval=1s");
			DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
			template.schedule("order-events", "warm-up", "x", Duration.ZERO);
			assertThat(consume(1, 1, Duration.ofSeconds(30), (delivery, readAt) -> {
			})).containsKey("warm-up");

			proxy.block();
			try {
				for (int i = 0; i < 10; i++) {
					template.job("order-events", "r" + i).payload("r").delay(Duration.ofMillis(100)).maxAttempts(1_000).schedule();
				}
				for (int i = 0; i < 5; i++) {
					template.job("order-events", "d" + i).payload("d").delay(Duration.ofMillis(100)).maxAttempts(2).schedule();
				}
				await().atMost(Duration.ofSeconds(30)).until(() -> attempts(template, "r0") >= 3 && dead(template));
				for (int i = 0; i < 5; i++) {
					// no confirm within the send timeout, or no channel within the RPC timeout
					assertThat(template.find("order-events", "d" + i).orElseThrow().lastError()).as("error of d%d", i)
						.matches("(java\\.util\\.concurrent\\.TimeoutException: RabbitMQ did not confirm the message to"
								+ " exchange '" + this.exchange + "' within 1000 ms|org\\.springframework\\.amqp\\."
								+ "AmqpIOException: com\\.rabbitmq\\.client\\.ChannelContinuationTimeoutException).*");
				}
			}
			finally {
				proxy.unblock();
			}
			// every r arrives (a d whose publish was held may too)
			Map<String, List<Delivery>> unblocked = consume((received) -> IntStream.range(0, 10)
				.allMatch((i) -> received.containsKey("r" + i)), Duration.ofSeconds(60), (delivery, readAt) -> {
				});
			assertThat(unblocked.keySet()).allMatch((id) -> id.matches("[rd][0-9]"));
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				for (int i = 0; i < 10; i++) {
					if (template.find("order-events", "r" + i).isPresent()) {
						return false;
					}
				}
				return true;
			});
			assertThat(template.getOperations().replayDeadJobs("order-events", 100).count()).isEqualTo(5);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> ForwardingApps.jobsInRedis(this.redis, this.namespace) == 0);
		}
	}

	@Test
	void aMessageNoQueueTakesIsAFailedSendAndEndsDeadWithTheBrokersReply() throws Exception {
		declare();
		ConfigurableApplicationContext context = start(ForwardingApps.App.class,
				"delayqueue.forward.order-events.rabbit.routing-key=nobody.listens");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		template.job("order-events", "u1").payload("u").delay(Duration.ofMillis(50)).maxAttempts(1).schedule();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> template.find("order-events", "u1").map(JobInfo::state).orElse(null) == JobState.DEAD);
		// RabbitMQ returns the message (and acknowledges it); Qpid Broker-J refuses it
		assertThat(template.find("order-events", "u1").orElseThrow().lastError()).isIn(
				"org.springframework.amqp.AmqpException: RabbitMQ returned the message: 312 NO_ROUTE (exchange '"
						+ this.exchange + "', routing key 'nobody.listens')",
				"org.springframework.amqp.AmqpException: The broker refused the message to exchange '" + this.exchange
						+ "' with routing key 'nobody.listens' (negative confirm)");
		assertThat(template.cancel("order-events", "u1")).isTrue();
	}

	@Test
	void anInstanceThatDiesAfterTheConfirmAndBeforeTheFinishLeavesTheMessageToBeSentAgain() throws Exception {
		declare();
		ForwardingApps.DyingApp.unfinished.set(0);
		ConfigurableApplicationContext dying = start(ForwardingApps.DyingApp.class,
				"delayqueue.forward.order-events.send-timeout=1s");
		dying.getBean(DelayedJobTemplate.class).schedule("order-events", "k1", "{\"orderId\":1}", Duration.ofMillis(200));
		assertThat(consume(1, 1, Duration.ofSeconds(30), (delivery, readAt) -> {
		})).containsKey("k1");
		await().atMost(Duration.ofSeconds(10)).until(() -> ForwardingApps.DyingApp.unfinished.get() > 0);
		dying.close();

		ConfigurableApplicationContext next = start(ForwardingApps.App.class,
				"delayqueue.forward.order-events.send-timeout=1s");
		assertThat(next.getBean(DelayedListenerEndpointRegistry.class)
			.getListenerContainer(ForwardingEndpoint.ID_PREFIX + "order-events")).isNotNull();
		Map<String, List<Delivery>> again = consume(1, 1, Duration.ofSeconds(30), (delivery, readAt) -> {
		});
		assertThat(again.get("k1")).as("messages of k1 after the restart").hasSize(1);
		await().atMost(Duration.ofSeconds(30)).until(() -> ForwardingApps.jobsInRedis(this.redis, this.namespace) == 0);
	}

	@Test
	void delayedRabbitPublishesTheBodyAsTheTemplatesConverterWroteItAndACancelledOneNever() throws Exception {
		declare();
		ConfigurableApplicationContext context = start(ForwardingApps.App.class);
		DelayedRabbit delayedRabbit = context.getBean(DelayedRabbit.class);
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		// Spring AMQP's default converter: a String is text/plain
		delayedRabbit.message("order-events", "m1", "hello").delay(Duration.ofMillis(100)).header("tenant", "acme").schedule();
		delayedRabbit.message("order-events", "m2", "cancelled").delay(Duration.ofSeconds(2)).schedule();
		assertThat(template.cancel("order-events", "m2")).isTrue();
		delayedRabbit.message("order-events", "m3", "later").delay(Duration.ofSeconds(3)).schedule();

		Map<String, List<Delivery>> received = consume(2, 1, Duration.ofSeconds(30), (delivery, readAt) -> {
		});
		assertThat(received).containsOnlyKeys("m1", "m3");
		Delivery delivery = received.get("m1").get(0);
		assertThat(new String(delivery.getBody(), StandardCharsets.UTF_8)).isEqualTo("hello");
		assertThat(delivery.getProperties().getContentType()).isEqualTo("text/plain");
		assertThat(header(delivery, "tenant")).isEqualTo("acme");
		assertThat(delivery.getProperties().getHeaders()).doesNotContainKey(ForwardedHeaders.RABBIT_CONTENT_TYPE);
		await().atMost(Duration.ofSeconds(30)).until(() -> ForwardingApps.jobsInRedis(this.redis, this.namespace) == 0);
	}

	private int attempts(DelayedJobTemplate template, String id) {
		return template.find("order-events", id).map(JobInfo::attempt).orElse(0);
	}

	private boolean dead(DelayedJobTemplate template) {
		for (int i = 0; i < 5; i++) {
			if (template.find("order-events", "d" + i).map(JobInfo::state).orElse(null) != JobState.DEAD) {
				return false;
			}
		}
		return true;
	}

	@FunctionalInterface
	interface DeliveryCheck {

		void check(Delivery delivery, long readAtRedisMillis);

	}

	/**
	 * Takes messages off the queue (acknowledging them) until {@code ids} job ids have
	 * {@code copies} messages each, checking each with the Redis time read right after the
	 * batch it came in.
	 */
	private Map<String, List<Delivery>> consume(int ids, int copies, Duration within, DeliveryCheck check)
			throws Exception {
		return consume((received) -> received.size() >= ids
				&& received.values().stream().allMatch((list) -> list.size() >= copies), within, check);
	}

	/**
	 * Takes messages off the queue (acknowledging them) until {@code done} holds for what
	 * arrived, checking each with the Redis time read right after the batch it came in.
	 */
	private Map<String, List<Delivery>> consume(Predicate<Map<String, List<Delivery>>> done, Duration within,
			DeliveryCheck check) throws Exception {
		Map<String, List<Delivery>> received = new HashMap<>();
		BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
		try (Connection connection = connect(); Channel channel = connection.createChannel()) {
			channel.basicQos(500);
			channel.basicConsume(this.queue, true, (tag, delivery) -> deliveries.add(delivery), (tag) -> {
			});
			long deadline = System.nanoTime() + within.toNanos();
			while (!done.test(received)) {
				assertThat(System.nanoTime()).as("all messages within %s (have %d ids)", within, received.size())
					.isLessThan(deadline);
				Delivery first = deliveries.poll(200, TimeUnit.MILLISECONDS);
				if (first == null) {
					continue;
				}
				List<Delivery> batch = new ArrayList<>();
				batch.add(first);
				deliveries.drainTo(batch);
				long readAt = ForwardingApps.redisMillis(this.redis);
				for (Delivery delivery : batch) {
					check.check(delivery, readAt);
					received.computeIfAbsent(header(delivery, DelayQueueHeaders.ID), (id) -> new ArrayList<>())
						.add(delivery);
				}
			}
		}
		return received;
	}

	private static String header(Delivery delivery, String name) {
		Map<String, Object> headers = delivery.getProperties().getHeaders();
		Object value = (headers != null) ? headers.get(name) : null;
		assertThat(value).as("header %s", name).isNotNull();
		return value.toString();
	}

	/** The broker's template and this module's forwarders, ordered with the application's auto-configuration. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ RabbitAutoConfiguration.class, DelayQueueRabbitAutoConfiguration.class })
	static class RabbitForwarding {

	}

}
