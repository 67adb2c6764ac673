package io.github.delayqueue.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueForwardingAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.kafka.DelayQueueKafkaAutoConfiguration;
import io.github.delayqueue.listener.DelayQueueHeaders;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Forwarding into Kafka: {@code bench.scale} × 50,000 jobs (the 200-byte order payload), due
 * at one instant, forwarded by two instances of concurrency 4 each ({@code bench.forward.concurrency}) to a Kafka topic of 3
 * partitions on spring-kafka-test's embedded KRaft broker (in this JVM, beside the harness's
 * redis-server), read back by a plain consumer. Prints per run: forwarded records per second
 * from the due time to the last record, lag (consumer receipt minus due time, by this JVM's
 * clock, which is Redis's machine here), lost and duplicated records. Each run starts two new
 * contexts; the first run is the fresh JVM's (after a warm-up of 2,000 jobs), the others warm.
 *
 * <pre class="code">
 * ./mvnw -Pbench -pl delayqueue-benchmarks -am -DskipTests verify \
 *     -Dbench.main=io.github.delayqueue.benchmarks.ForwardingBenchmark -Dbench.runs=3
 * </pre>
 */
public final class ForwardingBenchmark {

	private static final String TOPIC = "order-events";

	private static final Duration LEAD = Duration.ofSeconds(8);

	/** Sends at once per instance ({@code bench.forward.concurrency}). */
	private static final int CONCURRENCY = Integer.getInteger("bench.forward.concurrency", 4);

	private ForwardingBenchmark() {
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			KafkaAutoConfiguration.class, DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class,
			DelayQueueForwardingAutoConfiguration.class, DelayQueueKafkaAutoConfiguration.class })
	static class ForwardingApplication {

	}

	public static void main(String[] args) throws Exception {
		double scale = Double.parseDouble(System.getProperty("bench.scale", "1"));
		int runs = Integer.getInteger("bench.runs", 3);
		int jobs = (int) Math.round(50_000 * scale);
		EmbeddedKafkaKraftBroker kafka = new EmbeddedKafkaKraftBroker(1, 3);
		kafka.brokerProperty("auto.create.topics.enable", "true");
		kafka.brokerProperty("num.partitions", "3");
		kafka.brokerProperty("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
		kafka.afterPropertiesSet();
		StringBuilder table = new StringBuilder(String.format(
				"### Forwarding into Kafka: %,d jobs due at one instant, 2 instances x concurrency %d, acks=all%n%n",
				jobs, CONCURRENCY));
		table.append("| run | JVM | forwarded (records/s) | lag p50 (ms) | lag p99 (ms) | lag max (ms) | lost | duplicates |\n");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
		try (BenchRedis redis = new BenchRedis()) {
			for (int run = 0; run < runs; run++) {
				redis.flush();
				String kafkaTopic = "bench-orders-" + UUID.randomUUID().toString().substring(0, 8);
				List<ConfigurableApplicationContext> instances = new ArrayList<>();
				try {
					for (int i = 0; i < 2; i++) {
						instances.add(start(redis, kafka, kafkaTopic));
					}
					DelayedJobTemplate template = instances.get(0).getBean(DelayedJobTemplate.class);
					try (KafkaConsumer<byte[], byte[]> consumer = consumer(kafka, kafkaTopic)) {
						if (run == 0) {
							measure(template, consumer, 2_000, "warm-up");
						}
						Result result = measure(template, consumer, jobs, "r" + run);
						String row = String.format("| %d | %s | %,.0f | %.1f | %.1f | %.1f | %d | %d |%n", run + 1,
								(run == 0) ? "fresh (after 2,000 warm-up jobs)" : "warm", result.rate(),
								result.lag(0.5), result.lag(0.99), result.lag(1.0), result.lost(), result.duplicates());
						System.out.print(row);
						table.append(row);
					}
				}
				finally {
					instances.forEach(ConfigurableApplicationContext::close);
				}
			}
		}
		finally {
			kafka.destroy();
		}
		System.out.println();
		System.out.println(table);
	}

	private static ConfigurableApplicationContext start(BenchRedis redis, EmbeddedKafkaKraftBroker kafka,
			String kafkaTopic) {
		Map<String, Object> properties = redis.contextProperties();
		properties.put("spring.kafka.bootstrap-servers", kafka.getBrokersAsString());
		properties.put("delayqueue.forward." + TOPIC + ".kafka.topic", kafkaTopic);
		properties.put("delayqueue.forward." + TOPIC + ".concurrency", CONCURRENCY);
		return new SpringApplicationBuilder(ForwardingApplication.class).web(WebApplicationType.NONE)
			.properties(properties)
			.logStartupInfo(false)
			.run();
	}

	private static KafkaConsumer<byte[], byte[]> consumer(EmbeddedKafkaKraftBroker kafka, String kafkaTopic) {
		Map<String, Object> settings = new HashMap<>();
		settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString());
		settings.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + UUID.randomUUID());
		settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
		KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(),
				new ByteArrayDeserializer());
		consumer.subscribe(List.of(kafkaTopic));
		return consumer;
	}

	private static Result measure(DelayedJobTemplate template, KafkaConsumer<byte[], byte[]> consumer, int jobs,
			String prefix) {
		Instant due = Instant.now().plus(LEAD);
		List<JobBuilder> batch = new ArrayList<>();
		for (int i = 0; i < jobs; i++) {
			batch.add(template.job(TOPIC, prefix + "-" + i).payload(BenchPayload.of(i, due.toEpochMilli())).dueAt(due));
			if (batch.size() == 1_000 || i == jobs - 1) {
				template.scheduleAll(batch);
				batch.clear();
			}
		}
		if (Instant.now().isAfter(due)) {
			throw new IllegalStateException("scheduling took longer than the lead of " + LEAD);
		}
		Set<String> seen = new HashSet<>();
		int duplicates = 0;
		long[] lags = new long[jobs];
		int received = 0;
		long last = 0;
		long deadline = System.nanoTime() + LEAD.plusSeconds(120).toNanos();
		while (seen.size() < jobs && System.nanoTime() < deadline) {
			for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
				String id = new String(record.headers().lastHeader(DelayQueueHeaders.ID).value(), StandardCharsets.UTF_8);
				if (!id.startsWith(prefix + "-")) {
					continue;
				}
				long now = System.currentTimeMillis();
				if (seen.add(id)) {
					lags[received++] = now - due.toEpochMilli();
					last = now;
				}
				else {
					duplicates++;
				}
			}
		}
		long[] measured = Arrays.copyOf(lags, received);
		Arrays.sort(measured);
		double seconds = Math.max(1, last - due.toEpochMilli()) / 1000.0;
		return new Result(received / seconds, measured, jobs - received, duplicates);
	}

	record Result(double rate, long[] lags, int lost, int duplicates) {

		double lag(double quantile) {
			if (this.lags.length == 0) {
				return Double.NaN;
			}
			int index = (int) Math.ceil(quantile * this.lags.length) - 1;
			return this.lags[Math.max(0, Math.min(index, this.lags.length - 1))];
		}

	}

}
