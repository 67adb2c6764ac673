package io.github.delayqueue.chaos;

import java.time.Duration;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayedListenerAutoConfiguration;
import io.github.delayqueue.core.DelayedJob;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An application instance of the chaos tests, run as a process of its own (so that it can be
 * killed with {@code SIGKILL}): a {@code @DelayedListener} on topic {@code chaos} that works
 * {@code chaos.handle-millis} per job and records
 * every delivery in Redis, outside the queue's keys ({@code <namespace>-results:deliveries}:
 * id → deliveries, {@code <namespace>-results:lag}: id → delivered − due in ms).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
		DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
public class ChaosWorker {

	public static void main(String[] args) {
		new SpringApplicationBuilder(ChaosWorker.class).web(WebApplicationType.NONE)
			.properties("spring.main.keep-alive=true", "spring.main.banner-mode=off")
			.run(args);
	}

	@Bean
	Recorder recorder(StringRedisTemplate redis, @Value("${delayqueue.namespace}") String namespace,
			@Value("${chaos.handle-millis:0}") long handleMillis) {
		return new Recorder(redis, namespace + "-results", handleMillis);
	}

	static class Recorder {

		private final StringRedisTemplate redis;

		private final String prefix;

		private final long handleMillis;

		Recorder(StringRedisTemplate redis, String prefix, long handleMillis) {
			this.redis = redis;
			this.prefix = prefix;
			this.handleMillis = handleMillis;
		}

		@DelayedListener(topic = "chaos", concurrency = "8")
		void handle(DelayedJob<String> job) throws InterruptedException {
			long lag = Duration.between(job.dueAt(), job.deliveredAt()).toMillis();
			this.redis.opsForHash().increment(this.prefix + ":deliveries", job.id(), 1);
			this.redis.opsForHash().put(this.prefix + ":lag", job.id(), String.valueOf(lag));
			// the rest of a real handler's work: a kill now leaves a job done but not finished,
			// which is delivered again (a duplicate)
			Thread.sleep(this.handleMillis);
		}

	}

}
