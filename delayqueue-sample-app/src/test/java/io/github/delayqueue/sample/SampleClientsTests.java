package io.github.delayqueue.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Python and PHP clients of {@code clients/} against the running sample application:
 * their own test suites (with the actuator endpoint's dead-job pages, signed in as the sample's
 * demo user), and jobs crossing between them and Java. The interpreters come from
 * the machine ({@code .ci/run} installs them); without one its tests are skipped, except on CI
 * ({@code CI} set), where a missing interpreter fails.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "sample.demo-order=false" })
@AutoConfigureTestRedis
class SampleClientsTests {

	private static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private DelayedJobTemplate template;

	@Autowired
	private FromClients fromClients;

	record Greeting(String name, int n) {
	}

	/**
	 * A Java consumer of the jobs the clients schedule.
	 */
	static class FromClients {

		final BlockingQueue<DelayedJob<Greeting>> received = new LinkedBlockingQueue<>();

		@DelayedListener(topic = "from-clients")
		void receive(DelayedJob<Greeting> job) {
			this.received.add(job);
		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Config {

		@Bean
		FromClients fromClients() {
			return new FromClients();
		}

	}

	@Test
	void pythonClientTestSuitePasses() throws Exception {
		Run run = run(python(), "-m", "unittest", "-v", "test_delayqueue_client.py");
		assertThat(run.exit()).as(run.output()).isZero();
		assertThat(run.output()).contains("OK")
			.contains("test_recurring_jobs_are_put_read_paused_triggered_and_deleted")
			.contains("test_a_bad_cron_names_the_field")
			.contains("test_a_higher_priority_is_reserved_first")
			.contains("test_raw_json_comes_back_byte_for_byte");
	}

	@Test
	void phpClientTestSuitePasses() throws Exception {
		Run run = run(php(), "test.php");
		assertThat(run.exit()).as(run.output()).isZero();
		assertThat(run.output()).contains("ok   raw JSON comes back byte for byte").contains("17 passed, 0 failed");
	}

	@Test
	void javaSchedulesAndPythonReservesAndFinishes() throws Exception {
		this.template.schedule("to-python", "j-1", Map.of("name", "Ada", "n", 1), Duration.ofMillis(500));
		Run run = run(python(), "delayqueue_client.py", "reserve", "to-python", "--wait", "PT10S", "--finish");
		assertThat(run.exit()).as(run.output()).isZero();
		JsonNode job = json.readTree(run.output().strip());
		assertThat(job.get("id").asString()).isEqualTo("j-1");
		assertThat(job.get("body").get("name").asString()).isEqualTo("Ada");
		assertThat(job.get("attempt").asInt()).isEqualTo(1);
		assertThat(this.template.find("to-python", "j-1")).isEmpty();
	}

	@Test
	void pythonSchedulesAndADelayedListenerReceives() throws Exception {
		Run run = run(python(), "delayqueue_client.py", "add", "from-clients", "py-1", "{\"name\":\"Grace\",\"n\":2}",
				"--delay", "PT0.5S");
		assertThat(run.exit()).as(run.output()).isZero();
		DelayedJob<Greeting> job = this.fromClients.received.poll(10, TimeUnit.SECONDS);
		assertThat(job).isNotNull();
		assertThat(job.id()).isEqualTo("py-1");
		assertThat(job.payload()).isEqualTo(new Greeting("Grace", 2));
	}

	@Test
	void cancelFromPythonPreventsDelivery() throws Exception {
		assertThat(run(python(), "delayqueue_client.py", "add", "from-clients", "py-cancelled",
				"{\"name\":\"never\",\"n\":0}", "--delay", "PT5S").exit()).isZero();
		// the cancel's interpreter starts within those 5 s on a busy machine too
		Run cancel = run(python(), "delayqueue_client.py", "cancel", "from-clients", "py-cancelled");
		assertThat(cancel.output()).contains("\"cancelled\": true");
		// a later job comes through; the cancelled one, due before it, never does
		assertThat(run(python(), "delayqueue_client.py", "add", "from-clients", "py-later",
				"{\"name\":\"later\",\"n\":3}", "--delay", "PT5S").exit()).isZero();
		DelayedJob<Greeting> job = this.fromClients.received.poll(10, TimeUnit.SECONDS);
		assertThat(job).isNotNull();
		assertThat(job.id()).isEqualTo("py-later");
		assertThat(this.fromClients.received).isEmpty();
	}

	@Test
	void examplesRunAgainstTheSample() throws Exception {
		Run python = run(python(), "example.py");
		assertThat(python.exit()).as(python.output()).isZero();
		assertThat(python.output()).contains("reserved again:").contains("the job is gone: True");
		Run php = run(php(), "example.php");
		assertThat(php.exit()).as(php.output()).isZero();
		assertThat(php.output()).contains("reserved again:").contains("the job is gone: true");
	}

	@Test
	void examplesSayWhenTheServerIsDown() throws Exception {
		String server = "127.0.0.1:" + closedPort();
		String url = "http://" + server + "/delayqueue";
		for (Run run : List.of(runAgainst(server, python(), "example.py"), runAgainst(server, php(), "example.php"))) {
			assertThat(run.exit()).as(run.output()).isOne();
			assertThat(run.output()).contains("could not reach the delayqueue API at " + url + " (POST /jobs)")
				.contains("Is the sample application running?")
				.doesNotContain("Traceback", "Fatal error");
		}
	}

	/**
	 * A port nothing listens on.
	 */
	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static String python() {
		return interpreter("python3");
	}

	private static String php() {
		return interpreter("php");
	}

	/**
	 * The interpreter on the PATH; a skipped test without one, a failure on CI.
	 */
	private static String interpreter(String name) {
		Executables.find("python3 php-cli", name);
		return name;
	}

	private Run run(String interpreter, String... args) throws IOException, InterruptedException {
		return runAgainst("localhost:" + this.port, interpreter, args);
	}

	/**
	 * Runs a client program against the sample at {@code server} (host and port).
	 */
	private static Run runAgainst(String server, String interpreter, String... args)
			throws IOException, InterruptedException {
		String language = interpreter.startsWith("python") ? "python" : "php";
		List<String> command = new ArrayList<>();
		command.add(interpreter);
		command.addAll(List.of(args));
		Path log = Files.createTempFile("delayqueue-" + language, ".log");
		try {
			ProcessBuilder builder = new ProcessBuilder(command).directory(CLIENTS.resolve(language).toFile())
				.redirectErrorStream(true)
				.redirectOutput(log.toFile());
			builder.environment().put("DELAYQUEUE_URL", "http://" + server + "/delayqueue");
			builder.environment().put("DELAYQUEUE_TOKEN", "sample-token");
			builder.environment().put("DELAYQUEUE_ACTUATOR_URL", "http://demo:demo-password@" + server + "/actuator");
			builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
			Process process = builder.start();
			boolean ended = process.waitFor(120, TimeUnit.SECONDS);
			if (!ended) {
				process.destroyForcibly().waitFor();
			}
			String output = Files.readString(log, StandardCharsets.UTF_8);
			if (!ended) {
				throw new IllegalStateException(String.join(" ", command) + " did not end in 120 s: " + output);
			}
			return new Run(process.exitValue(), output);
		}
		finally {
			Files.deleteIfExists(log);
		}
	}

	record Run(int exit, String output) {
	}

}
