package io.github.delayqueue.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample with its embedded Redis stops it after the queue, the listeners and the Redis
 * clients, and keeps it out of the terminal's reach: a Ctrl+C (SIGINT to the terminal's
 * foreground process group) must not stop it while the application is still stopping.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedRedisShutdownTests {

	@Test
	void embeddedRedisOutlivesTheQueueAndAnswersNoSignalOfTheTerminal(CapturedOutput output, @TempDir Path dir)
			throws Exception {
		Assumptions.assumeFalse(answers(6379), "a Redis answers on localhost:6379: the sample uses it");
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.registerShutdownHook(false)
			.run("--server.port=0", "--sample.embedded-redis.dir=" + dir, "--sample.order.close-after=1s",
					"--delayqueue.metrics.sample-interval=200ms");
		ProcessHandle redis;
		try {
			assertThat(output).contains("started the EMBEDDED redis-server");
			// the demo order's job fires and its webhook goes out: the timers and listeners work on it
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(output).contains("Closed unpaid order", "delivered on attempt 1"));
			redis = redisServer(context.getEnvironment().getRequiredProperty("spring.data.redis.port"));
			Path stat = Path.of("/proc", String.valueOf(redis.pid()), "stat");
			if (Files.exists(stat)) {
				List<String> own = sessionAndGroup(ProcessHandle.current().pid());
				assertThat(sessionAndGroup(redis.pid())).as("the process group and session of redis-server")
					.doesNotContainAnyElementsOf(own);
			}
		}
		finally {
			context.close();
		}
		assertThat(redis.isAlive()).isFalse();
		assertThat(output).doesNotContain("Reconnecting", "Cannot reconnect", "Connection refused", "unreachable",
				"did not answer");
	}

	/**
	 * The redis-server answering on a port, found by the process id it gives in {@code INFO}.
	 */
	private static ProcessHandle redisServer(String port) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", Integer.parseInt(port))) {
			socket.getOutputStream().write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
			BufferedReader reader = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				if (line.startsWith("process_id:")) {
					return ProcessHandle.of(Long.parseLong(line.substring("process_id:".length()))).orElseThrow();
				}
			}
		}
		throw new IllegalStateException("no process_id in the INFO of the Redis on port " + port);
	}

	/**
	 * The process group and the session of a process (Linux).
	 */
	private static List<String> sessionAndGroup(long pid) throws IOException {
		String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
		// pid (command) state ppid pgrp session ...
		String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		return List.of("pgrp " + fields[2], "session " + fields[3]);
	}

	// A stale pid file (a server killed with SIGKILL, or a reboot, leaves it behind) may name
	// a process that is not the embedded server by now, even another redis-server of the same
	// user: the start stops only a process that runs in the embedded server's directory.
	@Test
	void aStalePidFileNamingAnotherRedisServerDoesNotStopIt(@TempDir Path dir, @TempDir Path otherDir)
			throws Exception {
		Assumptions.assumeFalse(answers(6379), "a Redis answers on localhost:6379: the sample uses it");
		int port;
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		// another redis-server of this user: here the embedded binary, as another checkout of the
		// sample (on another directory) or any non-Debian redis-server would run it
		java.io.File binary = redis.embedded.core.ExecutableProvider.newJarResourceProvider().get();
		binary.setExecutable(true);
		Process other = new ProcessBuilder(binary.getAbsolutePath(), "--port", String.valueOf(port), "--save", "", "--dir",
				otherDir.toString())
			.redirectErrorStream(true)
			.redirectOutput(otherDir.resolve("out.log").toFile())
			.start();
		try {
			int otherPort = port;
			await().atMost(Duration.ofSeconds(10)).until(() -> answers(otherPort));
			// the pid file of an earlier run, whose pid now belongs to someone else's redis-server
			Files.writeString(dir.resolve("redis.pid"), other.pid() + "\n");
			ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
				.registerShutdownHook(false)
				.run("--server.port=0", "--sample.embedded-redis.dir=" + dir);
			try {
				assertThat(other.isAlive()).as("the other redis-server (pid " + other.pid() + ")").isTrue();
			}
			finally {
				context.close();
			}
		}
		finally {
			other.destroyForcibly();
		}
	}

	private static boolean answers(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("localhost", port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
