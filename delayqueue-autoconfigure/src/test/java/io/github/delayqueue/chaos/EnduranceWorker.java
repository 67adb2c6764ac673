package io.github.delayqueue.chaos;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

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

/**
 * An application instance of the endurance run ({@link EnduranceTests}), run as a process of
 * its own: a {@code @DelayedListener} on topic {@code endurance} that fails the first attempt
 * of every job whose id starts with {@code retry-} and records every other delivery in a file
 * ({@code <chaos.out>.deliveries}: {@code id,epoch ms,attempt,due epoch ms} a line), outside Redis so that
 * the faults cannot touch the record and the record adds nothing to Redis's memory. Every
 * {@code chaos.sample-millis} it writes its heap and threads to {@code <chaos.out>.jvm}
 * ({@code epoch ms,heap used,heap committed,threads}). Each line is written at once, unbuffered:
 * a {@code SIGKILL} loses none that was written.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
		DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class })
public class EnduranceWorker {

	public static void main(String[] args) {
		new SpringApplicationBuilder(EnduranceWorker.class).web(WebApplicationType.NONE)
			.properties("spring.main.keep-alive=true", "spring.main.banner-mode=off")
			.run(args);
	}

	@Bean(destroyMethod = "close")
	Recorder recorder(@Value("${chaos.out}") String out, @Value("${chaos.handle-millis:2}") long handleMillis,
			@Value("${chaos.sample-millis:5000}") long sampleMillis) throws IOException {
		return new Recorder(out, handleMillis, sampleMillis);
	}

	static class Recorder {

		private final FileOutputStream deliveries;

		private final FileOutputStream samples;

		private final long handleMillis;

		private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "endurance-sampler");
			thread.setDaemon(true);
			return thread;
		});

		Recorder(String out, long handleMillis, long sampleMillis) throws IOException {
			this.deliveries = new FileOutputStream(out + ".deliveries", true);
			this.samples = new FileOutputStream(out + ".jvm", true);
			this.handleMillis = handleMillis;
			this.sampler.scheduleAtFixedRate(this::sample, 0, sampleMillis, TimeUnit.MILLISECONDS);
		}

		@DelayedListener(topic = "endurance", concurrency = "8")
		void handle(DelayedJob<String> job) throws InterruptedException {
			if (job.id().startsWith("retry-") && job.attempt() == 1) {
				throw new IllegalStateException("The first attempt of a retried job fails");
			}
			write(this.deliveries,
					job.id() + "," + System.currentTimeMillis() + "," + job.attempt() + "," + job.dueAt().toEpochMilli());
			Thread.sleep(this.handleMillis);
		}

		private void sample() {
			var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
			write(this.samples, System.currentTimeMillis() + "," + heap.getUsed() + "," + heap.getCommitted() + ","
					+ ManagementFactory.getThreadMXBean().getThreadCount());
		}

		private static void write(FileOutputStream file, String line) {
			byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
			synchronized (file) {
				try {
					file.write(bytes);
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
		}

		void close() throws IOException {
			this.sampler.shutdownNow();
			this.deliveries.close();
			this.samples.close();
		}

	}

}
