package io.github.delayqueue.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One chaos run: its own Redis (a redis-server, or any set-up the caller starts), worker
 * processes (by default {@link ChaosWorker}) that can be killed and restarted, and a producer
 * application in this JVM (no timer, no listeners) that schedules the jobs and reads the
 * results. Sizes come from system properties so that the same tests run small in
 * {@code verify} and full size with {@code -Pchaos}.
 */
final class ChaosRun implements AutoCloseable {

	final String namespace = "chaos" + System.nanoTime();

	final ConfigurableApplicationContext producer;

	final DelayedJobTemplate template;

	final StringRedisTemplate results;

	/** Where the workers write: their logs, and whatever files a worker keeps. */
	final Path logs;

	private final AutoCloseable servers;

	private final Supplier<RedisTestServer> master;

	private final List<String> connection;

	private final Class<?> workerClass;

	private final List<String> workerArguments;

	private final List<Process> workers = new ArrayList<>();

	private final List<Integer> starts = new ArrayList<>();

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			DelayQueueAutoConfiguration.class })
	static class Producer {

	}

	/**
	 * A run on a redis-server of its own with {@link ChaosWorker} processes.
	 * @param workers how many worker processes
	 * @param handleMillis how long each job takes to handle
	 */
	ChaosRun(int workers, int handleMillis) throws IOException {
		this(RedisTestServers.local().start(), workers, ChaosWorker.class,
				List.of("--chaos.handle-millis=" + handleMillis));
	}

	private ChaosRun(RedisTestServer redis, int workers, Class<?> workerClass, List<String> workerArguments)
			throws IOException {
		// the jobs carry the workers' TTR: a killed worker's jobs come back after 5 s
		this(redis, () -> redis, List.of(redis.springBootProperties()), workers, workerClass, workerArguments,
				List.of("delayqueue.default-ttr=5s"));
	}

	/**
	 * A run on Redis servers the caller started.
	 * @param servers the servers, closed with the run
	 * @param master the server that holds the namespace now (after a fail-over, the new
	 * master)
	 * @param connection the Spring Boot properties that connect an application to the servers
	 * @param workers how many worker processes
	 * @param workerClass the worker processes' main class
	 * @param workerArguments more command-line arguments of each worker
	 * @param producerProperties more properties of the producer application
	 */
	ChaosRun(AutoCloseable servers, Supplier<RedisTestServer> master, List<String> connection, int workers,
			Class<?> workerClass, List<String> workerArguments, List<String> producerProperties) throws IOException {
		this.servers = servers;
		this.master = master;
		this.connection = connection;
		this.workerClass = workerClass;
		this.workerArguments = workerArguments;
		this.logs = Files.createTempDirectory("delayqueue-chaos-");
		this.producer = new SpringApplicationBuilder(Producer.class).web(WebApplicationType.NONE)
			.properties(connection.toArray(String[]::new))
			.properties("delayqueue.namespace=" + this.namespace, "delayqueue.timer.enabled=false",
					"spring.main.banner-mode=off")
			.properties(producerProperties.toArray(String[]::new))
			.run();
		this.template = this.producer.getBean(DelayedJobTemplate.class);
		this.results = this.producer.getBean(StringRedisTemplate.class);
		for (int i = 0; i < workers; i++) {
			this.starts.add(0);
			this.workers.add(startWorker(i));
		}
	}

	static int size(String name, int quick) {
		return Integer.getInteger("chaos." + name, quick);
	}

	/**
	 * Starts worker {@code index}; its {@code --chaos.out} names a file prefix in
	 * {@link #logs} of its own, {@code worker-<index>-<start>}.
	 */
	private Process startWorker(int index) {
		int start = this.starts.get(index);
		this.starts.set(index, start + 1);
		List<String> command = new ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
				"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
				this.workerClass.getName(), "--delayqueue.namespace=" + this.namespace,
				"--delayqueue.default-ttr=5s", "--delayqueue.timer.lease-ttl=2s", "--logging.level.root=WARN",
				"--chaos.out=" + this.logs.resolve("worker-" + index + "-" + start)));
		command.addAll(this.workerArguments);
		for (String property : this.connection) {
			command.add("--" + property);
		}
		try {
			return new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.logs.resolve("worker-" + index + ".log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * How many application instances beat in Redis now.
	 */
	long liveInstances() {
		Long live = this.results.opsForZSet().zCard("{" + this.namespace + "}:instances");
		return (live != null) ? live : 0;
	}

	/**
	 * The instances that beat in Redis now (a killed one stays until its heartbeat expires).
	 */
	Set<String> instances() {
		Set<String> members = this.results.opsForZSet().range("{" + this.namespace + "}:instances", 0, -1);
		return (members != null) ? members : Set.of();
	}

	/**
	 * Kills a worker with {@code SIGKILL} and starts a new one in its place.
	 */
	void killAndRestart(int index) throws InterruptedException {
		Process worker = this.workers.get(index);
		worker.destroyForcibly();
		worker.waitFor(10, TimeUnit.SECONDS);
		this.workers.set(index, startWorker(index));
	}

	int workers() {
		return this.workers.size();
	}

	Map<Object, Object> deliveries() {
		return this.results.opsForHash().entries(this.namespace + "-results:deliveries");
	}

	long deliveredCount() {
		Long count = this.results.opsForHash().size(this.namespace + "-results:deliveries");
		return (count != null) ? count : 0;
	}

	/**
	 * Delivery lag (delivered − due) of every job's last delivery, sorted.
	 */
	long[] lags() {
		return this.results.opsForHash()
			.values(this.namespace + "-results:lag")
			.stream()
			.mapToLong((value) -> Long.parseLong((String) value))
			.sorted()
			.toArray();
	}

	static long percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return 0;
		}
		return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)];
	}

	String logTail() {
		StringBuilder tail = new StringBuilder();
		for (File file : this.logs.toFile().listFiles((dir, name) -> name.endsWith(".log"))) {
			try {
				List<String> lines = Files.readAllLines(file.toPath());
				tail.append("== ").append(file.getName()).append('\n');
				lines.subList(Math.max(0, lines.size() - 20), lines.size()).forEach((line) -> tail.append(line).append('\n'));
			}
			catch (IOException ex) {
				tail.append(ex).append('\n');
			}
		}
		return tail.toString();
	}

	/**
	 * Waits until every job is finished, then checks the queue's invariant (see
	 * {@link QueueInvariant}): with nothing left to move, the workers change no bucket key.
	 */
	void assertInvariant() {
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(60))
			.until(() -> this.template.getOperations().stats().totals().total() == 0);
		QueueInvariant.assertHolds(this.master.get(), this.namespace);
	}

	@Override
	public void close() {
		for (Process worker : this.workers) {
			worker.destroyForcibly();
		}
		for (Process worker : this.workers) {
			try {
				worker.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.producer.close();
		try {
			this.servers.close();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		Arrays.stream(this.logs.toFile().listFiles()).forEach(File::delete);
		this.logs.toFile().delete();
	}

}
