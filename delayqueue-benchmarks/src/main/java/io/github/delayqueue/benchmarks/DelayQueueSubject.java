package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.autoconfigure.DelayQueueBuilderCustomizer;
import io.github.delayqueue.config.DelayedListenerConfigurer;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobBuilder;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.ScheduleResult;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * delayqueue as a user runs it: each instance is a Spring Boot application context with the
 * starter's auto-configuration, producing with {@link DelayedJobTemplate} ({@code schedule},
 * {@code scheduleAt}, {@code scheduleAll} for bulk) and consuming with
 * {@code @DelayedListener} methods. The completion of a job is taken from the queue's
 * observer, i.e. after its finish reached Redis.
 */
final class DelayQueueSubject implements Subject {

	/**
	 * The headers every bulk-scheduled job gets: {@code bench.headers}, as
	 * {@code name=value,name=value} (none by default), to measure what headers cost.
	 */
	private static final Map<String, String> HEADERS = headers(System.getProperty("bench.headers", ""));

	/**
	 * {@code bench.tracing=on}: the template and the listeners observed, with Micrometer
	 * Tracing and OpenTelemetry (every trace sampled, no exporter), and every job scheduled
	 * in the scope of a request's observation, so that it stores its trace context; the
	 * module's {@code bench-tracing} profile, active then, puts Spring Boot's OpenTelemetry
	 * starter on the classpath. Off (the default): no tracer and no observation registry (with
	 * one, Spring Boot would observe every Lettuce command).
	 */
	private static final boolean TRACING = "on".equals(System.getProperty("bench.tracing", "off"));

	/**
	 * The priorities the jobs are spread over: {@code bench.priorities} of them (1, the
	 * default, sets none: every job has the default priority), the default one and the others
	 * from the highest down, e.g. 5, 9, 8 for three; a job's priority follows its id's hash.
	 */
	private static final int[] PRIORITIES = priorities(Integer.getInteger("bench.priorities", 1));

	/** Jobs per {@code scheduleAll} call in bulk mode. */
	static final int BULK_CHUNK = 1_000;

	private static final int MAX_TOPICS = 4;

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private final BenchRedis redis;

	private final Layout layout;

	private final RecorderHolder recorder;

	private final DelayedJobTemplate template;

	/** The observation every job is scheduled in the scope of, with bench.tracing=on. */
	private final Observation request;

	DelayQueueSubject(BenchRedis redis, Layout layout, RecorderHolder recorder) {
		if (layout.topics().size() > MAX_TOPICS) {
			throw new IllegalArgumentException("at most " + MAX_TOPICS + " topics per instance");
		}
		this.redis = redis;
		this.layout = layout;
		this.recorder = recorder;
		try {
			for (int i = 0; i < layout.instances(); i++) {
				join();
			}
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
		this.template = this.instances.get(0).getBean(DelayedJobTemplate.class);
		this.request = TRACING
				? Observation.start("bench.request", this.instances.get(0).getBean(ObservationRegistry.class)) : null;
	}

	/** Runs a schedule in the scope of the request's observation when tracing is on. */
	private void traced(Runnable schedule) {
		if (this.request == null) {
			schedule.run();
			return;
		}
		try (Observation.Scope scope = this.request.openScope()) {
			schedule.run();
		}
	}

	/**
	 * Starts one more instance, as another process of the application would.
	 * @return its application context, closed with the others
	 */
	ConfigurableApplicationContext join() {
		ConfigurableApplicationContext instance = start(this.redis, this.layout, this.recorder, this.instances.size());
		this.instances.add(instance);
		return instance;
	}

	/**
	 * A bean of the first instance.
	 */
	<T> T bean(Class<T> type) {
		return this.instances.get(0).getBean(type);
	}

	private static ConfigurableApplicationContext start(BenchRedis redis, Layout layout, RecorderHolder recorder,
			int index) {
		Map<String, Object> properties = redis.contextProperties();
		properties.putAll(layout.properties());
		properties.put("bench.instance", index);
		properties.put("bench.instances", layout.instances());
		properties.put("bench.concurrency", layout.concurrency());
		properties.put("management.otlp.metrics.export.enabled", false);
		if (TRACING) {
			properties.put("management.tracing.sampling.probability", 1.0);
			properties.put("delayqueue.template.observation-enabled", true);
			properties.put("delayqueue.listener.observation-enabled", true);
		}
		else {
			properties.put("management.tracing.enabled", false);
		}
		for (int t = 0; t < MAX_TOPICS; t++) {
			boolean used = t < layout.topics().size();
			properties.put("bench.topic." + t, used ? layout.topics().get(t) : "unused-" + t);
			properties.put("bench.topic." + t + ".enabled", used);
		}
		return new SpringApplicationBuilder(BenchApplication.class).web(WebApplicationType.NONE)
			.properties(properties)
			.logStartupInfo(false)
			.initializers((context) -> context.getBeanFactory().registerSingleton("benchRecorder", recorder))
			.run();
	}

	private static int[] priorities(int count) {
		if (count < 1 || count > 10) {
			throw new IllegalArgumentException("bench.priorities must be 1 to 10, was " + count);
		}
		int[] priorities = new int[count];
		priorities[0] = JobConstraints.DEFAULT_PRIORITY;
		int p = JobConstraints.MAX_PRIORITY;
		for (int i = 1; i < count; i++, p--) {
			if (p == JobConstraints.DEFAULT_PRIORITY) {
				p--;
			}
			priorities[i] = p;
		}
		return priorities;
	}

	/** A job's builder, with its priority when jobs are spread over several. */
	private JobBuilder builder(Job job) {
		JobBuilder builder = this.template.job(job.topic(), job.id()).payload(job.payload());
		return (PRIORITIES.length > 1)
				? builder.priority(PRIORITIES[Math.floorMod(job.id().hashCode(), PRIORITIES.length)]) : builder;
	}

	@Override
	public void schedule(Job job) {
		traced(() -> scheduleOne(job));
	}

	private void scheduleOne(Job job) {
		BenchPayload payload = job.payload();
		if (PRIORITIES.length > 1) {
			JobBuilder builder = builder(job);
			((job.dueAtMillis() > 0) ? builder.dueAt(Instant.ofEpochMilli(job.dueAtMillis()))
					: builder.delay(Duration.ofMillis(job.delayMillis()))).schedule();
		}
		else if (job.dueAtMillis() > 0) {
			this.template.scheduleAt(job.topic(), job.id(), payload, Instant.ofEpochMilli(job.dueAtMillis()));
		}
		else {
			this.template.schedule(job.topic(), job.id(), payload, Duration.ofMillis(job.delayMillis()));
		}
	}

	@Override
	public void scheduleBulk(List<Job> jobs) {
		for (int from = 0; from < jobs.size(); from += BULK_CHUNK) {
			List<JobBuilder> chunk = new ArrayList<>(BULK_CHUNK);
			for (Job job : jobs.subList(from, Math.min(jobs.size(), from + BULK_CHUNK))) {
				JobBuilder builder = builder(job).headers(HEADERS);
				chunk.add((job.dueAtMillis() > 0) ? builder.dueAt(Instant.ofEpochMilli(job.dueAtMillis()))
						: builder.delay(Duration.ofMillis(job.delayMillis())));
			}
			traced(() -> this.template.scheduleAll(chunk));
		}
	}

	@Override
	public void scheduleAsync(List<Job> jobs) {
		List<CompletableFuture<ScheduleResult>> results = new ArrayList<>(jobs.size());
		for (Job job : jobs) {
			JobBuilder builder = builder(job);
			traced(() -> results.add(((job.dueAtMillis() > 0) ? builder.dueAt(Instant.ofEpochMilli(job.dueAtMillis()))
					: builder.delay(Duration.ofMillis(job.delayMillis()))).scheduleAsync()));
		}
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).join();
	}

	@Override
	public long pending() {
		return this.instances.get(0).getBean(DelayQueueOperations.class).stats().totals().total();
	}

	/**
	 * Every script of the engine's package under both of its loaded forms (a bucket's, and
	 * one that is not), read through the engine's own loader so that the SHA-1s match.
	 */
	@Override
	public Map<String, String> scriptNames() {
		try {
			Class<?> script = Class.forName("io.github.delayqueue.redis.LuaScript");
			Method job = script.getDeclaredMethod("job", String.class);
			Method of = script.getDeclaredMethod("of", String.class, int.class);
			Method sha = script.getDeclaredMethod("sha");
			job.setAccessible(true);
			of.setAccessible(true);
			sha.setAccessible(true);
			Map<String, String> names = new HashMap<>();
			for (Resource resource : new PathMatchingResourcePatternResolver()
				.getResources("classpath*:io/github/delayqueue/redis/*.lua")) {
				String name = resource.getFilename().replace(".lua", "");
				for (Object loaded : List.of(job.invoke(null, name), of.invoke(null, name, 0))) {
					names.put(new String((byte[]) sha.invoke(loaded), StandardCharsets.US_ASCII), name);
				}
			}
			return names;
		}
		catch (ReflectiveOperationException | IOException ex) {
			throw new IllegalStateException("Cannot name the engine's scripts", ex);
		}
	}

	@Override
	public void close() {
		if (this.request != null) {
			this.request.stop();
		}
		// stop in parallel, as separate processes would
		this.instances.parallelStream().forEach(ConfigurableApplicationContext::close);
		this.instances.clear();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class BenchApplication {

		@Bean
		BenchListeners benchListeners(RecorderHolder benchRecorder) {
			return new BenchListeners(benchRecorder);
		}

		/**
		 * A listener on each of the topics {@code bench.spread.prefix} 0 to
		 * {@code bench.spread.count} − 1 (none by default), spread over the instances: an
		 * instance takes the topics whose number modulo {@code bench.instances} is its own.
		 */
		@Bean
		DelayedListenerConfigurer benchSpreadListeners(Environment environment, RecorderHolder benchRecorder) {
			int count = environment.getProperty("bench.spread.count", Integer.class, 0);
			String prefix = environment.getProperty("bench.spread.prefix", "spread-");
			int instances = environment.getProperty("bench.instances", Integer.class, 1);
			int instance = environment.getProperty("bench.instance", Integer.class, 0) % instances;
			BenchListeners handler = new BenchListeners(benchRecorder);
			return (registrar) -> {
				for (int t = instance; t < count; t += instances) {
					registrar.registerEndpoint(new SimpleDelayedListenerEndpoint<>("bench-spread-" + t, prefix + t,
							BenchPayload.class, handler::handle));
				}
			};
		}

		@Bean
		DelayQueueBuilderCustomizer benchCompletions(RecorderHolder benchRecorder) {
			return (builder) -> builder.observer(new DelayQueueObserver() {

				@Override
				public void completed(String topic) {
					benchRecorder.completed();
				}

			});
		}

	}

	/**
	 * Up to four topics per instance, each a listener of {@code bench.concurrency} threads;
	 * the unused ones never start.
	 */
	static class BenchListeners {

		private final RecorderHolder recorder;

		BenchListeners(RecorderHolder recorder) {
			this.recorder = recorder;
		}

		@DelayedListener(id = "bench-0", topic = "${bench.topic.0}", concurrency = "${bench.concurrency}",
				autoStartup = "${bench.topic.0.enabled}")
		void topic0(DelayedJob<BenchPayload> job) {
			handle(job);
		}

		@DelayedListener(id = "bench-1", topic = "${bench.topic.1}", concurrency = "${bench.concurrency}",
				autoStartup = "${bench.topic.1.enabled}")
		void topic1(DelayedJob<BenchPayload> job) {
			handle(job);
		}

		@DelayedListener(id = "bench-2", topic = "${bench.topic.2}", concurrency = "${bench.concurrency}",
				autoStartup = "${bench.topic.2.enabled}")
		void topic2(DelayedJob<BenchPayload> job) {
			handle(job);
		}

		@DelayedListener(id = "bench-3", topic = "${bench.topic.3}", concurrency = "${bench.concurrency}",
				autoStartup = "${bench.topic.3.enabled}")
		void topic3(DelayedJob<BenchPayload> job) {
			handle(job);
		}

		private void handle(DelayedJob<BenchPayload> job) {
			this.recorder.delivered(job.payload().seq(), job.dueAt().toEpochMilli());
		}

	}

	private static Map<String, String> headers(String text) {
		Map<String, String> headers = new LinkedHashMap<>();
		for (String pair : text.split(",")) {
			if (!pair.isBlank()) {
				String[] nameAndValue = pair.split("=", 2);
				headers.put(nameAndValue[0].strip(), (nameAndValue.length > 1) ? nameAndValue[1] : "");
			}
		}
		return headers;
	}

}
